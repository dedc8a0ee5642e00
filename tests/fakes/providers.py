"""Fake provider sites on 127.0.0.1: each serves tests/fixtures/<provider>/ on the real paths.

A test switches a site's mode while it runs, for the whole site or for one path (one part of a
provider failing while the others answer). Generic modes are applied here for every provider
(500, slow, captcha page, truncated body, a redirect to another host); the content modes
(changed, empty, API error, reordered columns) are chosen by each provider's site module in
tests/fakes/sites/.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from aiohttp import web

from monitor.scrape import ScrapeResult
from scrapers.__main__ import live
from scrapers.config import ScraperSettings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SLOW_SECONDS = 60.0  # longer than any client timeout used in tests


class Mode(StrEnum):
    NORMAL = "normal"
    CHANGED = "changed"  # stock or prices differ from normal
    ERROR_500 = "500"
    SLOW = "slow"  # answers only after the client has given up
    CAPTCHA = "captcha"  # a bot-check HTML page with status 200
    EMPTY = "empty"  # a well-formed answer with no offers
    API_ERROR = "api_error"  # HOSTKEY: HTTP 200 with result ERROR
    REORDERED = "reordered"  # immers: the tariff table's columns in another order
    TRUNCATED = "truncated"  # the body cut off half way
    REDIRECT_AWAY = "redirect_away"  # a 302 to the same path on another host (`away_url`)


@dataclass(frozen=True)
class SiteResponse:
    body: bytes
    content_type: str = "application/json"
    status: int = 200

    @classmethod
    def fixture(cls, provider: str, name: str, content_type: str = "") -> SiteResponse:
        path = FIXTURES / provider / name
        kind = content_type or ("text/html" if name.endswith(".html") else "application/json")
        return cls(path.read_bytes(), kind)


@dataclass(frozen=True)
class SiteRequest:
    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    # time.monotonic() on arrival: how often a provider is scraped (one refresher, or three?)
    at: float = field(default_factory=time.monotonic)


# What a provider's site module supplies: (method, path) -> handler(request, mode).
RouteHandler = Callable[[SiteRequest, Mode], SiteResponse]
Routes = dict[tuple[str, str], RouteHandler]


@dataclass
class FakeSite:
    """One fake site. `mode` applies to every path, `path_modes` to one path only (one part of
    a provider failing while the others answer)."""

    name: str
    routes: Routes
    mode: Mode = Mode.NORMAL
    requests: list[SiteRequest] = field(default_factory=list)
    path_modes: dict[str, Mode] = field(default_factory=dict)
    away_url: str = "http://elsewhere.invalid"  # where REDIRECT_AWAY sends a request
    _runner: web.AppRunner | None = None
    _port: int = 0

    async def __aenter__(self) -> FakeSite:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        # A small shutdown timeout: a SLOW handler is cancelled, not waited for.
        self._runner = web.AppRunner(app, shutdown_timeout=0.2, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _handle(self, http: web.Request) -> web.StreamResponse:
        form = {key: str(value) for key, value in (await http.post()).items()}
        request = SiteRequest(http.method, http.path, dict(http.query), form)
        self.requests.append(request)
        handler = self.routes.get((http.method, http.path))
        if handler is None:
            return web.Response(status=404, text="Not Found")
        mode = self.path_modes.get(http.path, self.mode)
        if mode is Mode.REDIRECT_AWAY:
            raise web.HTTPFound(self.away_url + http.path_qs)
        if mode is Mode.ERROR_500:
            return web.Response(status=500, text="Internal Server Error")
        if mode is Mode.SLOW:
            await asyncio.sleep(SLOW_SECONDS)
        if mode is Mode.CAPTCHA:
            captcha = SiteResponse.fixture("common", "captcha.html")
            return web.Response(body=captcha.body, content_type="text/html", charset="utf-8")
        answer = handler(request, mode)
        body = answer.body[: len(answer.body) // 2] if mode is Mode.TRUNCATED else answer.body
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        if http.method == "GET" and http.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={"ETag": etag})
        return web.Response(
            status=answer.status,
            body=body,
            content_type=answer.content_type,
            charset="utf-8",
            headers={"ETag": etag},
        )


class FakeProviders:
    """All three fake sites; `env()` gives the settings that point the app at them."""

    def __init__(self, sites: dict[str, Routes]) -> None:
        self.sites = {name: FakeSite(name, routes) for name, routes in sites.items()}

    async def __aenter__(self) -> FakeProviders:
        for site in self.sites.values():
            await site.start()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        for site in self.sites.values():
            await site.stop()

    def __getitem__(self, name: str) -> FakeSite:
        return self.sites[name]

    def set_mode(self, name: str, mode: Mode) -> None:
        self.sites[name].mode = mode

    def env(self) -> dict[str, str]:
        return {f"GPURADAR_{name.upper()}_URL": site.base_url for name, site in self.sites.items()}

    def urls(self) -> dict[str, Any]:
        """The same as Settings fields (`selectel_url=...`), for running_app(**...); Any, as
        keyword arguments beside the others of running_app."""
        return {f"{name}_url": site.base_url for name, site in self.sites.items()}


def all_sites() -> dict[str, Routes]:
    from tests.fakes.sites import hostkey, immers, selectel

    return {"selectel": selectel.routes(), "hostkey": hostkey.routes(), "immers": immers.routes()}


async def scrape_fixtures() -> list[ScrapeResult]:
    """Every provider's offers as the real scrapers read the fake sites (the fixtures)."""
    async with FakeProviders(all_sites()) as sites:
        outcomes = await live(ScraperSettings(**sites.urls()), None)
    return [outcome for outcome in outcomes if isinstance(outcome, ScrapeResult)]
