"""Recordings of the providers' answers: written by `python -m scrapers --record DIR`, served
back on the real paths by `--replay DIR` (and `python -m tests.fakes.serve_providers --replay
DIR`), so a person with internet turns the live sites into fixtures with one command.

A recording is a folder: `manifest.json` plus one file per answer, holding its exact bytes
(as the client got them, after gzip). The manifest lists, per answer: provider, method, URL,
query, form, status, headers, when, sha256 and size, and the file. Session cookies are left
out; nothing else is changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from scrapers.http import Exchange

MANIFEST = "manifest.json"
FORMAT = 1
_DROPPED_HEADERS = frozenset(
    {"set-cookie", "content-length", "content-encoding", "transfer-encoding"}
)
_EXTENSIONS = {"json": ".json", "html": ".html"}


class RecordingError(Exception):
    """A recording folder that cannot be read: one line says why."""


def _key(method: str, path: str, query: Mapping[str, str], form: Mapping[str, str]) -> str:
    return json.dumps([method, path, sorted(query.items()), sorted(form.items())])


@dataclass
class Recorder:
    """An Http observer that keeps every final answer; `save` writes them into a folder (after
    the scrape, so that no file is written on the event loop)."""

    bases: Mapping[str, str]  # provider -> the base URL its scraper was given
    exchanges: list[Exchange] = field(default_factory=list)

    def __call__(self, exchange: Exchange) -> None:
        self.exchanges.append(exchange)

    def save(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        entries = [self._write(folder, n, ex) for n, ex in enumerate(self.exchanges, start=1)]
        manifest = {
            "format": FORMAT,
            "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "providers": dict(self.bases),
            "answers": entries,
        }
        target = folder / MANIFEST
        target.write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", "utf-8")
        return target

    @staticmethod
    def _write(folder: Path, number: int, exchange: Exchange) -> dict[str, Any]:
        kind = exchange.headers.get("Content-Type", "")
        extension = next((ext for word, ext in _EXTENSIONS.items() if word in kind), ".bin")
        name = f"{exchange.provider}/{number:04d}{extension}"
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(exchange.body)
        headers = {k: v for k, v in exchange.headers.items() if k.lower() not in _DROPPED_HEADERS}
        return {
            "provider": exchange.provider,
            "method": exchange.method,
            "url": exchange.url,
            "query": dict(exchange.params),
            "form": dict(exchange.form),
            "status": exchange.status,
            "headers": headers,
            "final_url": exchange.final_url,
            "at": exchange.at.isoformat(timespec="seconds"),
            "sha256": hashlib.sha256(exchange.body).hexdigest(),
            "bytes": len(exchange.body),
            "file": name,
        }


@dataclass(frozen=True)
class Recorded:
    status: int
    content_type: str
    body: bytes


def load(folder: Path) -> tuple[dict[str, str], dict[str, dict[str, Recorded]]]:
    """(provider -> base URL path, provider -> request key -> answer), every body checked
    against its sha256. A request answered twice (a retry) keeps the last answer."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
        bases = {
            name: urlsplit(url).path.rstrip("/") for name, url in manifest["providers"].items()
        }
        answers: dict[str, dict[str, Recorded]] = {name: {} for name in bases}
        for entry in manifest["answers"]:
            body = (folder / entry["file"]).read_bytes()
            if hashlib.sha256(body).hexdigest() != entry["sha256"]:
                raise RecordingError(f"{entry['file']}: sha256 differs from the manifest")
            path = urlsplit(entry["url"]).path
            key = _key(entry["method"], path, entry["query"], entry["form"])
            kind = entry["headers"].get("Content-Type", "application/octet-stream")
            answers.setdefault(entry["provider"], {})[key] = Recorded(entry["status"], kind, body)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise RecordingError(
            f"{folder}: not a recording ({type(error).__name__}: {error})"
        ) from None
    return bases, answers


class ReplayServer:
    """One local HTTP server per recorded provider, answering on the real paths."""

    def __init__(self, folder: Path) -> None:
        self.bases, self._answers = load(folder)
        self._runners: dict[str, web.AppRunner] = {}
        self.urls: dict[str, str] = {}  # provider -> the base URL to give its scraper

    async def __aenter__(self) -> ReplayServer:
        try:
            for provider in self.bases:
                await self._start(provider)
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _start(self, provider: str) -> None:
        answers = self._answers.get(provider, {})

        async def handle(request: web.Request) -> web.Response:
            form = {k: str(v) for k, v in (await request.post()).items()}
            found = answers.get(_key(request.method, request.path, dict(request.query), form))
            if found is None:
                return web.json_response({"error": "not in the recording"}, status=404)
            return web.Response(
                status=found.status, body=found.body, headers={"Content-Type": found.content_type}
            )

        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        self._runners[provider] = runner
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        port = runner.addresses[0][1]
        self.urls[provider] = f"http://127.0.0.1:{port}{self.bases[provider]}"

    async def close(self) -> None:
        for runner in self._runners.values():
            await runner.cleanup()
        self._runners.clear()

    def env(self) -> dict[str, str]:
        """GPURADAR_*_URL settings that point the scrapers (or the bot) at the replay."""
        return {f"GPURADAR_{name.upper()}_URL": url for name, url in self.urls.items()}
