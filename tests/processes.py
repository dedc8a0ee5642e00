"""Real `python -m bot` processes for end-to-end tests: started, killed -9, restarted, asked.

The fakes they talk to (Telegram, the provider sites) run inside the test's event loop; each
process gets every setting from the test, never from this shell or a `.env`:

    settings = bot_settings(telegram.base_url, database=tmp_path / "data" / "bot.sqlite3",
                            sites=sites, refresh_s=10)
    async with BotProcess(tmp_path / "one", settings) as bot:
        await bot.wait_healthy()
        bot.kill()        # kill -9
        bot.start()       # the same settings, folder and ops port
    bot.assert_clean()    # no traceback and no token in anything it wrote

Each run's stdout and stderr go to one file in the process's folder (`run-N.log`), so a chatty
process never blocks on a full pipe, and a failing test can show what it said.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import aiohttp

from tests.fakes.providers import FakeProviders
from tests.fakes.telegram import TOKEN
from tests.polling import eventually

ROOT = Path(__file__).resolve().parents[1]
# Start-up imports aiogram and opens the database: a second or two alone, more on a busy
# machine with several bots starting at once.
START_S = 60.0
STOP_S = 30.0
HEALTH_TIMEOUT_S = 5.0
POLL_PROCESS_S = 0.1  # a process is asked over HTTP: ten times a second is enough
TAIL_CHARS = 4000


def free_port() -> int:
    """A loopback port nothing listens on (bound, then closed again)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def clean_environ(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """This shell's environment (or `environ`) without any gpuradar setting: the test decides
    every one."""
    source = os.environ if environ is None else environ
    clean = {k: v for k, v in source.items() if not k.startswith("GPURADAR_")}
    clean.pop("BOT_TOKEN", None)
    return clean


def bot_settings(
    telegram_url: str,
    *,
    database: Path | str,
    sites: FakeProviders | None = None,
    refresh_s: int | None = None,
    token: str = TOKEN,
    **more: str,
) -> dict[str, str]:
    """The GPURADAR_* settings of a polling bot against the fakes.

    `database` is a SQLite file (GPURADAR_DB_PATH) or a postgresql:// URL
    (GPURADAR_DATABASE_URL). Without `sites` nothing is scraped (GPURADAR_MONITOR=false);
    with them every provider is scraped from its fake, every `refresh_s` seconds when given.
    `more` adds settings by their full names (GPURADAR_SEND_RATE="100").
    """
    settings = {
        "GPURADAR_MODE": "polling",
        "GPURADAR_BOT_TOKEN": token,
        "GPURADAR_TELEGRAM_API_URL": telegram_url,
        "GPURADAR_MONITOR": "false" if sites is None else "true",
        # No process here draws a chart: the chart workers' warm-up (two matplotlib imports,
        # about a second of CPU each) would only slow the other tests on the machine.
        # tests/bot/test_e2e_history.py checks the warm-up of a served bot.
        "GPURADAR_CHART_WARM_UP": "false",
    }
    if isinstance(database, str) and database.startswith("postgresql://"):
        settings["GPURADAR_DATABASE_URL"] = database
    else:
        settings["GPURADAR_DB_PATH"] = str(database)
    if sites is not None:
        settings.update(sites.env())
    if refresh_s is not None:
        settings["GPURADAR_REFRESH_SECONDS"] = str(refresh_s)
    settings.update(more)
    return settings


Health = tuple[int, dict[str, Any]]


class ProcessExitedError(AssertionError):
    """The bot stopped while a test waited for it to do something."""


class BotProcess:
    """One `python -m bot`, restartable: each start is a new run with the same settings.

    The ops server (/healthz, /metrics) listens on a port chosen here, the same for every run.
    Used as `async with`, it starts on entry and is stopped on exit (SIGTERM, then SIGKILL).
    """

    def __init__(self, folder: Path, settings: Mapping[str, str], *, name: str = "bot") -> None:
        self.folder = folder
        self.name = name
        self.ops_port = free_port()
        self.env = {
            **clean_environ(),
            "PYTHONPATH": str(ROOT),
            "GPURADAR_OPS_HOST": "127.0.0.1",
            "GPURADAR_OPS_PORT": str(self.ops_port),
            **settings,
        }
        self.logs: list[Path] = []
        self._process: subprocess.Popen[bytes] | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        if self.running:
            raise RuntimeError(f"{self.name} is already running (pid {self.pid})")
        self.folder.mkdir(parents=True, exist_ok=True)
        log = self.folder / f"run-{len(self.logs) + 1}.log"
        self.logs.append(log)
        with log.open("wb") as output:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "bot"],
                cwd=self.folder,  # no .env from the checkout; relative paths land here
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                # Its own process group: kill and freeze reach its chart workers too, as a
                # container's or a VM's death or stall would.
                start_new_session=True,
            )

    def kill(self) -> None:
        """kill -9 of the bot and its workers, and reap it (SIGKILL cannot be caught, so this
        takes milliseconds)."""
        process = self._require()
        if process.poll() is None:
            self._signal_group(signal.SIGKILL)
        process.wait(timeout=STOP_S)

    def freeze(self) -> None:
        """SIGSTOP the bot and its workers: a GC pause, a swapped-out host, a stalled VM. Its
        connections stay open; it does nothing until thaw()."""
        self._signal_group(signal.SIGSTOP)

    def thaw(self) -> None:
        self._signal_group(signal.SIGCONT)

    def _signal_group(self, signum: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):  # gone already, workers and all
            os.killpg(self._require().pid, signum)

    async def terminate(self, within: float = STOP_S) -> int:
        """SIGTERM, and wait for the exit status."""
        process = self._require()
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        return await self.wait(within)

    async def wait(self, within: float = STOP_S) -> int:
        """Wait for the process to exit by itself; its exit status."""
        process = self._require()
        try:
            await eventually(lambda: process.poll() is not None, within, every=POLL_PROCESS_S)
        except TimeoutError:
            message = f"{self.name} still running after {within} s{self._tail()}"
            raise TimeoutError(message) from None
        return process.returncode

    async def __aenter__(self) -> Self:
        self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.running:
            return
        try:
            await self.terminate()
        except TimeoutError:
            self.kill()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int:
        return self._require().pid

    @property
    def returncode(self) -> int | None:
        return self._require().poll()

    # --- asking it -------------------------------------------------------------------------

    async def health(self) -> Health | None:
        """/healthz as (HTTP status, JSON body); None while nothing answers on the port."""
        answer = await self._get("/healthz")
        return None if answer is None else (answer[0], json.loads(answer[1]))

    async def role(self) -> str | None:
        """ "leader" or "follower" as /healthz says; None without an answer or a role."""
        health = await self.health()
        replica = None if health is None else health[1].get("replica")
        return replica.get("role") if isinstance(replica, dict) else None

    async def metric(self, sample: str) -> float | None:
        """The value of one /metrics sample, named as the page writes it
        (`gpuradar_outbox_pending`, `gpuradar_leader`, `name{label="x"}`); None when the page
        does not answer or has no such sample."""
        answer = await self._get("/metrics")
        if answer is None:
            return None
        for line in answer[1].splitlines():
            name, _, value = line.rpartition(" ")
            if name == sample:
                return float(value)
        return None

    async def _get(self, path: str) -> tuple[int, str] | None:
        url = f"http://127.0.0.1:{self.ops_port}{path}"
        timeout = aiohttp.ClientTimeout(total=HEALTH_TIMEOUT_S)
        try:
            async with aiohttp.ClientSession(timeout=timeout) as session, session.get(url) as got:
                return got.status, await got.text()
        except (aiohttp.ClientError, TimeoutError):
            return None

    async def wait_healthy(
        self,
        condition: Callable[[dict[str, Any]], bool] = lambda body: True,
        within: float = START_S,
    ) -> dict[str, Any]:
        """The first /healthz body (of any status) that meets `condition`.

        Fails at once, with what the process said, if it exits meanwhile.
        """
        found: list[dict[str, Any]] = []

        async def answered() -> bool:
            self.check_alive()
            health = await self.health()
            if health is not None and condition(health[1]):
                found.append(health[1])
                return True
            return False

        try:
            await eventually(answered, within, every=POLL_PROCESS_S)
        except TimeoutError:
            last = await self.health()
            raise TimeoutError(
                f"{self.name}: no /healthz as wanted within {within} s; last {last}{self._tail()}"
            ) from None
        return found[0]

    def check_alive(self) -> None:
        """Raise ProcessExitedError, with the end of its output, if the process has exited."""
        process = self._require()
        if process.poll() is not None:
            raise ProcessExitedError(f"{self.name} exited with {process.returncode}{self._tail()}")

    def output(self) -> str:
        """Everything every run wrote to stdout and stderr, runs in order."""
        return "".join(log.read_text(encoding="utf-8", errors="replace") for log in self.logs)

    def assert_clean(self) -> None:
        """No traceback and no token secret in anything the process wrote."""
        text = self.output()
        assert "Traceback" not in text, f"{self.name} printed a traceback{self._tail()}"
        secret = self.env.get("GPURADAR_BOT_TOKEN", "").partition(":")[2]
        assert not secret or secret not in text, f"{self.name} printed the bot token"

    def _require(self) -> subprocess.Popen[bytes]:
        if self._process is None:
            raise RuntimeError(f"{self.name} was never started")
        return self._process

    def _tail(self) -> str:
        text = self.output() if self.logs else ""
        return f"; its output ends:\n{text[-TAIL_CHARS:]}" if text else "; it printed nothing"
