"""Scale: the bot as a real process (`python -m bot`, polling a fake Telegram that allows 30
messages/s overall and 1 per chat, scraping the fake provider sites, its ops server on
127.0.0.1) on a real database with 1k, 10k and 100k subscriptions, on SQLite and PostgreSQL.
Every figure is printed beside the 1k baseline of the same run.

Before each start, in this process (bench.scale_world): the market's first snapshots, N
subscriptions (one in ten waits for any H100 in stock, the rest bench.match's mix), then
Selectel's 8x H100 server comes into stock and one refresh through the real pipeline queues
its alerts: the fan-out the started bot finds in its outbox. Beside it, a history market of
`--offers` H100 offers each changing price every 10 minutes for `--days` days.

Printed per size:
  refresh     the popular event's refresh (load, match, write) in ms, and the alerts queued
  index       the match index loaded from the store, in ms (what the bot does at its
              first refresh, a page per turn of its event loop)
  first reply seconds from starting the process to the reply to a /help sent at once
  RSS         the bot's resident memory once its index is loaded, MiB, and per subscription
              beyond the 1k baseline's, KiB
  late alert  seconds from one more alert's event (queued 15 s into the fan-out, for one new
              chat) to its delivery, and how many fan-out messages were still waiting
  history     GET /api/v1/history?gpu=h100&days=90: ms to the whole answer, its KB as JSON
              and as sent gzip-compressed; and the median ms of it and nine more ranges
  /help p99   other people's /help (one every 250 ms, each from a new chat), push to reply,
              ms: during start-up (from when the /help asked before the first reply are
              answered until the index is loaded), during the fan-out (until the late alert
              is delivered), during ten history answers; then start-up counted from the
              first reply, when those first answered wait behind that backlog, which the
              30 messages/s drains (how many, and in how long after the first reply)
  /readyz     the ops server's readiness probe, asked every 100 ms from the bot's start:
              how many of those asked during start-up (as above) and during the history
              answers were not a 200 (a 503, an error, or no answer within 5 s)

    .venv/bin/python -m bench.scale [--sizes 1000,10000,100000] [--backend sqlite|postgresql|both]
        [--offers 20] [--days 120]

Targets on a 2-core machine: first reply <= 3 s at 100k; the late alert within 30 s of its
event during a 10k fan-out; history <= 300 ms and <= 200 KB; /help p99 <= 200 ms throughout;
/readyz never other than 200 once the bot answers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gzip
import signal
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import aiohttp

from bench.backends import Backend, add_backend_option, chosen_backends
from bench.scale_world import LATE_CHAT, Prepared, late_alert, prepare
from bench.soak import free_port, rss_mib, start_bot
from storage import Store
from tests.fakes.providers import FakeProviders, all_sites
from tests.fakes.telegram import FakeTelegram
from tests.postgres import temporary_database

TOKEN = "5151:scale"
HELP_EVERY_S = 0.25
PEOPLE = 500_000  # the /help askers' chat ids start here, apart from every subscriber
LATE_AFTER_S = 15.0  # into the fan-out
PATIENCE_S = 300.0
READY_EVERY_S = 0.1  # /readyz probes, each after the last one's answer
READY_PATIENCE_S = 5.0  # a probe unanswered this long counts as not ready


@dataclass
class Asker:
    """Other people's /help, one every HELP_EVERY_S from a new chat; reply waits by push time."""

    telegram: FakeTelegram
    pushed: dict[int, float] = field(default_factory=dict)  # chat -> push moment
    waits: list[tuple[float, float]] = field(default_factory=list)  # (push moment, wait s)
    first_reply: float | None = None

    def heard(self, chat: int, at: float) -> None:
        start = self.pushed.pop(chat, None)
        if start is not None:
            self.waits.append((start, at - start))
            self.first_reply = self.first_reply or at

    async def run(self, stop: asyncio.Event) -> None:
        chat = PEOPLE
        while not stop.is_set():
            chat += 1
            self.pushed[chat] = time.monotonic()
            self.telegram.push_message(chat, "/help")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), HELP_EVERY_S)

    def caught_up(self) -> tuple[int, float] | None:
        """(how many were asked before the first reply, when the last of them was answered):
        the backlog a start leaves, which Telegram's 30 messages/s drains in about a second
        whatever the bot does; None until it is answered."""
        first = self.first_reply
        if first is None or any(at < first for at in self.pushed.values()):
            return None
        answered = [at + wait for at, wait in self.waits if at < first]
        return len(answered), max(answered)

    def p99_ms(self, start: float, end: float) -> float:
        """The p99 of the waits of the /help pushed in [start, end); one never answered
        counts as waiting until now."""
        now = time.monotonic()
        waits = [wait for at, wait in self.waits if start <= at < end]
        waits += [now - at for at in self.pushed.values() if start <= at < end]
        if not waits:
            return 0.0  # none asked in the window (the index loaded before the first reply)
        waits.sort()
        return waits[min(len(waits) - 1, round(0.99 * (len(waits) - 1)))] * 1000


@dataclass
class ReadyProbe:
    """GET /readyz every READY_EVERY_S (each answer awaited, then the pause); remembers when
    each was asked and whether it came back 200 (a 503, an error or no answer in
    READY_PATIENCE_S is not)."""

    port: int
    answers: list[tuple[float, bool]] = field(default_factory=list)  # (asked at, 200?)

    async def run(self, stop: asyncio.Event) -> None:
        url = f"http://127.0.0.1:{self.port}/readyz"
        timeout = aiohttp.ClientTimeout(total=READY_PATIENCE_S)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            while not stop.is_set():
                asked = time.monotonic()
                try:
                    async with session.get(url) as response:
                        await response.read()
                        ok = response.status == 200
                except (aiohttp.ClientError, TimeoutError):
                    ok = False
                self.answers.append((asked, ok))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), READY_EVERY_S)

    def failures(self, start: float, end: float) -> tuple[int, int]:
        """(not 200, asked) among the probes asked in [start, end)."""
        window = [ok for at, ok in self.answers if start <= at < end]
        return window.count(False), len(window)


@dataclass(frozen=True)
class Figures:
    n: int
    prepared: Prepared
    first_reply_s: float
    rss_mib: float
    late_s: float
    late_behind: int
    history_ms: float
    history_kb: float
    history_gzip_kb: float
    history_median_ms: float
    help_p99_ms: tuple[float, float, float]  # start-up, fan-out, history
    help_p99_from_first_ms: float  # start-up counted from the first reply, backlog and all
    backlog: tuple[int, float]  # the /help asked before the first reply; s to answer them
    readyz_failed: tuple[tuple[int, int], tuple[int, int]]  # (not 200, asked): start-up, history


async def measure(backend: Backend, n: int, offers: int, days: int) -> Figures:
    async with (
        FakeTelegram(token=TOKEN, global_per_second=30, per_chat_per_second=1) as telegram,
        a_log() as log,
        FakeProviders(all_sites()) as sites,
        a_database(backend) as (store, env),
    ):
        prepared = await prepare(store, sites, n, offers, days)
        asker = Asker(telegram)
        fan_out: dict[str, float] = {}

        def on_call(call: object) -> None:
            method, params = getattr(call, "method", ""), getattr(call, "params", {})
            if method.lower() != "sendmessage":
                return
            chat, now = int(params.get("chat_id", 0)), time.monotonic()
            if chat >= PEOPLE and chat < LATE_CHAT:
                asker.heard(chat, now)
            elif chat == LATE_CHAT:
                fan_out.setdefault("late", now)
            else:
                fan_out.setdefault("first", now)

        telegram.add_listener(on_call)
        ops_port = free_port()
        stop = asyncio.Event()
        started = time.monotonic()
        settings = {**env, "GPURADAR_OPS_PORT": str(ops_port)}
        bot = await start_bot(
            telegram, sites, settings, cwd=Path(tempfile.gettempdir()), token=TOKEN, stderr=log
        )
        asking = asyncio.create_task(asker.run(stop))
        ready = ReadyProbe(ops_port)
        probing = asyncio.create_task(ready.run(stop))
        try:
            loaded = await index_loaded(store, datetime.now(UTC), bot)
            rss = rss_mib(bot.pid)
            await until(lambda: asker.first_reply is not None)
            first_reply = (asker.first_reply or 0.0) - started
            await until(lambda: asker.caught_up() is not None)
            backlog, caught_up = asker.caught_up() or (0, 0.0)
            await until(lambda: "first" in fan_out)
            await asyncio.sleep(max(0.0, fan_out["first"] + LATE_AFTER_S - time.monotonic()))
            late_at = time.monotonic()
            await late_alert(store, datetime.now(UTC))
            behind = await store.pending_count()
            await until(lambda: "late" in fan_out)
            fanned = time.monotonic()
            history = await history_answers(ops_port)
            done = time.monotonic()
            p99s = (
                asker.p99_ms(caught_up, loaded),
                asker.p99_ms(loaded, fanned),
                asker.p99_ms(fanned, done),
            )
            p99_from_first = asker.p99_ms(asker.first_reply or started, loaded)
            readyz = (
                ready.failures(asker.first_reply or started, loaded),
                ready.failures(fanned, done),
            )
        finally:
            stop.set()
            await asking
            await probing
            bot.send_signal(signal.SIGTERM)
            await asyncio.wait_for(bot.wait(), 60)
            log.seek(0)
            errors = [
                line
                for line in log.read().decode(errors="replace").splitlines()
                if "ERROR" in line or "Traceback" in line
            ]
            log.close()
            for line in errors[-5:]:
                print(f"    bot: {line}")
    return Figures(
        n,
        prepared,
        first_reply,
        rss,
        fan_out["late"] - late_at,
        behind,
        *history,
        p99s,
        p99_from_first,
        (backlog, caught_up - started - first_reply),
        readyz,
    )


@contextlib.asynccontextmanager
async def a_log() -> AsyncIterator[IO[bytes]]:
    """Where the bot's log goes (a pipe left unread could fill and stall it)."""
    with tempfile.TemporaryFile() as log:
        yield log


@contextlib.asynccontextmanager
async def a_database(backend: Backend) -> AsyncIterator[tuple[Store, dict[str, str]]]:
    """A migrated store of `backend` for this process, and the bot's settings for it."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="gpuradar-scale-") as folder:
            path = Path(folder) / "scale.sqlite3"
            store = await Store.open(path)
            try:
                yield store, {"GPURADAR_DB_PATH": str(path)}
            finally:
                await store.close()
        return
    async with temporary_database() as url:
        store = await Store.connect(url)
        try:
            yield store, {"GPURADAR_DATABASE_URL": url}
        finally:
            await store.close()


async def index_loaded(store: Store, since: datetime, bot: asyncio.subprocess.Process) -> float:
    """When every provider has refreshed since `since` (the first refresh loads the index)."""

    def done(health: list[object]) -> bool:
        fresh = [h for h in health if (getattr(h, "last_attempt_at", None) or since) >= since]
        return len(fresh) >= 3

    deadline = time.monotonic() + PATIENCE_S
    while not done(list(await store.provider_health())):
        if time.monotonic() > deadline or bot.returncode is not None:
            raise RuntimeError("the bot's first refresh did not come")
        await asyncio.sleep(0.2)
    return time.monotonic()


async def until(condition: object) -> None:
    deadline = time.monotonic() + PATIENCE_S
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise RuntimeError("gave up waiting")
        await asyncio.sleep(0.05)


async def history_answers(port: int) -> tuple[float, float, float, float]:
    """(ms, KB, gzipped KB) of the 90-day answer, then nine more ranges (81-89 days: each
    made anew, none cached) to hold the server busy while /help is asked, and the median ms
    of all ten."""
    url = f"http://127.0.0.1:{port}/api/v1/history"
    took: list[float] = []
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        for days in (90, *range(81, 90)):
            started = time.perf_counter()
            async with session.get(
                url, params={"gpu": "h100", "days": str(days)}, headers={"Accept-Encoding": "gzip"}
            ) as response:
                response.raise_for_status()
                sent = await response.read()
                encoding = response.headers.get("Content-Encoding")
            took.append((time.perf_counter() - started) * 1000)
            if days == 90:
                body = gzip.decompress(sent) if encoding == "gzip" else sent
                sizes = (len(body) / 1000, len(sent) / 1000)
    return took[0], *sizes, statistics.median(took)


def ratio(value: float, base: float) -> str:
    return f"x{value / base:.1f}" if base else ""


def print_figures(backend: Backend, rows: list[Figures]) -> None:
    base = rows[0]
    print(f"== {backend} (baseline: {base.n:,} subscriptions, same run)")
    for row in rows:
        p = row.prepared
        per_sub = (row.rss_mib - base.rss_mib) * 1024 / (row.n - base.n) if row.n != base.n else 0.0
        first = row.first_reply_s
        print(
            f"{row.n:>7,} subs: refresh {p.refresh_ms:6.0f} ms ({p.queued:,} alerts;"
            f" {ratio(p.refresh_ms, base.prepared.refresh_ms)}), index {p.index_ms:6.0f} ms;"
            f" first reply {first:4.1f} s ({ratio(first, base.first_reply_s)});"
            f" RSS {row.rss_mib:5.0f} MiB ({per_sub:.1f} KiB/subscription over {base.n:,})"
        )
        print(
            f"{'':>13} late alert {row.late_s:5.1f} s with {row.late_behind:,} waiting"
            f" (1k: {base.late_s:.1f} s); history 90 days ({p.history_rows:,} change points)"
            f" {row.history_ms:4.0f} ms (median of 10: {row.history_median_ms:.0f} ms),"
            f" {row.history_kb:.0f} KB, {row.history_gzip_kb:.0f} KB gzipped"
            f" (1k: {base.history_ms:.0f} ms, {base.history_median_ms:.0f} ms)"
        )
        start, fan, history = row.help_p99_ms
        b_start, b_fan, b_history = base.help_p99_ms
        print(
            f"{'':>13} /help p99: start-up {start:5.0f} ms, fan-out {fan:5.0f} ms,"
            f" history {history:5.0f} ms (1k: {b_start:.0f}, {b_fan:.0f}, {b_history:.0f});"
            f" start-up from the first reply {row.help_p99_from_first_ms:.0f} ms"
            f" (1k: {base.help_p99_from_first_ms:.0f}), behind the {row.backlog[0]} asked"
            f" before it, answered {row.backlog[1]:.1f} s after it (1k: {base.backlog[1]:.1f} s)"
        )
        (start_failed, start_asked), (history_failed, history_asked) = row.readyz_failed
        (b_start_failed, _), (b_history_failed, _) = base.readyz_failed
        print(
            f"{'':>13} /readyz not 200: start-up {start_failed} of {start_asked},"
            f" history {history_failed} of {history_asked}"
            f" (1k: {b_start_failed}, {b_history_failed})"
        )


async def main(sizes: list[int], backends: list[Backend], offers: int, days: int) -> None:
    for backend in backends:
        rows = [await measure(backend, n, offers, days) for n in sizes]
        print_figures(backend, rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="subscriptions per run")
    parser.add_argument("--offers", type=int, default=20, help="offers in the history market")
    parser.add_argument("--days", type=int, default=120, help="days of history stored")
    add_backend_option(parser)
    options = parser.parse_args()
    asyncio.run(
        main(
            [int(size) for size in options.sizes.split(",")],
            chosen_backends(options.backend),
            options.offers,
            options.days,
        )
    )
