"""Alert fan-out: N subscribers match one event; the real outbox and Sender deliver it through
the fake Telegram, which enforces a global limit and 1 message/s per chat on a real clock.

Prints messages delivered, duplicates, 429s received, elapsed time, and the achieved rate as a
share of the fake's limit. Targets: >= 90 % of the ceiling, zero 429s, no duplicates, nothing
lost. The sender runs just under the limit (`--margin`); `--limit 1000` keeps the run short
(Telegram's real ceiling is ~30/s, where the sender's default of 25/s applies).

The fake runs in a child process by default: it stands in for Telegram's servers, whose CPU
is not ours, and in our process its HTML parsing and bookkeeping would take about a third of
the CPU the sender is being measured on (`--same-process` shows that case).

    .venv/bin/python -m bench.fanout [--n 10000] [--limit 1000] [--margin 0.03]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path
from typing import cast

from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.telegram import TelegramAPIServer

from bot.delivery.sender import Sender
from bot.i18n import load_translators
from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import Offer, Price, StockState
from monitor.users import User
from storage import Store
from storage.outbox import OutboxQueries, enqueue, to_text
from tests.fakes.telegram import TOKEN, FakeTelegram, LocalSession

FIRST_CHAT = 1_000_000
# The sender's bucket depth here: enough to catch up the pause between two outbox batches,
# small enough that it barely flatters the measured rate (the sender's default, 1/5 s worth,
# is sized for Telegram's real 25-30/s, where 5 messages are nothing).
BURST_SECONDS = 0.05
Call = tuple[int, int, float]  # chat id, HTTP status, arrival time (time.time())
# The fake's base URL, and a function that stops it and returns its sendMessage calls.
FakeHandle = tuple[str, Callable[[], list[Call]]]


class BenchStore(Store, OutboxQueries):
    """The real Store with the outbox queries mixed in, as the application composes it."""


@dataclass(frozen=True)
class Result:
    subscribers: int
    delivered: int
    duplicates: int
    flood_waits: int
    lost: int
    pending_left: int
    elapsed_s: float
    limit: float
    sender_rate: float
    sender_burst: float

    @property
    def rate(self) -> float:
        return self.delivered / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def sustained(self) -> float:
        """The rate without the sender's initial burst, which flatters a short run."""
        if self.elapsed_s <= 0:
            return 0.0
        return max(0.0, self.delivered - self.sender_burst) / self.elapsed_s

    @property
    def share(self) -> float:
        return self.rate / self.limit

    @property
    def passed(self) -> bool:
        clean = self.flood_waits == self.duplicates == self.lost == self.pending_left == 0
        return clean and self.share >= 0.9


# --- the outbox ----------------------------------------------------------------------------


def the_event(now: datetime) -> Event:
    offer = Offer(
        provider="selectel",
        sku="gpu-h100-8",
        location="MSK-1",
        gpu="H100 80GB",
        gpu_raw="NVIDIA H100 80GB SXM",
        gpu_known=True,
        gpu_count=8,
        vram_gb=80,
        price=Price.per_hour(2400.0, "RUB/hour"),
        stock=StockState.IN_STOCK,
        stock_count=1,
        url="https://selectel.ru/services/gpu/",
    )
    return Event(EventKind.APPEARED, offer, now, old_stock=StockState.OUT_OF_STOCK)


async def fill(store: BenchStore, n: int, now: datetime) -> int:
    """N users, and one alert each queued through the real enqueue in one transaction."""
    users = {
        FIRST_CHAT + i: User(FIRST_CHAT + i, "ru", "Europe/Moscow", None, False, now, now)
        for i in range(n)
    }
    event = the_event(now)
    alerts = [Alert(chat, index + 1, event) for index, chat in enumerate(users)]
    async with store._db.transaction() as connection:
        # Raw inserts for the users only: the benchmark is about delivery, not sign-ups.
        await connection.executemany(
            "INSERT INTO users (chat_id, language, timezone, created_at, last_seen_at)"
            " VALUES (?, 'ru', 'Europe/Moscow', ?, ?)",
            [(chat, to_text(now), to_text(now)) for chat in users],
        )
        return await enqueue(connection, alerts, users, now)


# --- the fake Telegram ---------------------------------------------------------------------


def _calls(telegram: FakeTelegram) -> list[Call]:
    return [
        (int(call.params.get("chat_id", 0)), call.status, call.time)
        for call in telegram.calls_of("sendMessage")
    ]


def serve_fake(connection: Connection, limit: float) -> None:
    """Child process: serve until told to stop, then send back every sendMessage call."""
    asyncio.run(_serve_fake(connection, limit))


async def _serve_fake(connection: Connection, limit: float) -> None:
    async with FakeTelegram(global_per_second=limit, per_chat_per_second=1) as telegram:
        connection.send(telegram.base_url)
        await asyncio.get_running_loop().run_in_executor(None, connection.recv)
        connection.send(_calls(telegram))


@asynccontextmanager
async def fake_in_child(limit: float) -> AsyncIterator[FakeHandle]:
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no inherited loop
    ours, theirs = context.Pipe()
    child = context.Process(target=serve_fake, args=(theirs, limit), daemon=True)
    child.start()
    loop = asyncio.get_running_loop()
    try:
        base_url = await loop.run_in_executor(None, ours.recv)

        def finish() -> list[Call]:
            ours.send("stop")
            return cast(list[Call], ours.recv())

        yield base_url, finish
    finally:
        child.join(timeout=10)
        if child.is_alive():
            child.kill()


@asynccontextmanager
async def fake_here(limit: float) -> AsyncIterator[FakeHandle]:
    async with FakeTelegram(global_per_second=limit, per_chat_per_second=1) as telegram:
        yield telegram.base_url, lambda: _calls(telegram)


# --- the run -------------------------------------------------------------------------------


async def run(
    n: int, limit: float, margin: float, concurrency: int, burst: float | None, same_process: bool
) -> Result:
    with tempfile.TemporaryDirectory() as folder:
        store = cast(BenchStore, await BenchStore.open(Path(folder) / "fanout.sqlite3"))
        try:
            queued = await fill(store, n, datetime.now(UTC))
            assert queued == n, f"queued {queued} of {n}"
            fake = fake_here(limit) if same_process else fake_in_child(limit)
            async with fake as (base_url, finish):
                rate = limit * (1 - margin)
                started, depth = await send_all(base_url, store, rate, concurrency, burst)
                calls = finish()
            pending = await store.pending_count()
            return result(n, limit, rate, depth, calls, started, pending)
        finally:
            await store.close()


async def send_all(
    base_url: str, store: BenchStore, rate: float, concurrency: int, burst: float | None
) -> tuple[float, float]:
    """Run the real Sender until the outbox is empty.

    Returns when it started (time.time(), as the fake stamps calls) and its burst.
    """

    async def on_blocked(chat_id: int) -> None:
        raise AssertionError(f"nobody blocks the bot here, yet chat {chat_id} did")

    session = LocalSession(api=TelegramAPIServer.from_base(base_url), timeout=10)
    bot = Bot(TOKEN, session=session, default=DefaultBotProperties(parse_mode="HTML"))
    sender = Sender(
        bot,
        store,
        load_translators(),
        on_blocked=on_blocked,
        rate=rate,
        burst=burst,
        concurrency=concurrency,
        idle_interval=0.05,
    )
    stop = asyncio.Event()
    started = time.time()
    task = asyncio.create_task(sender.run(stop))
    try:
        while await store.pending_count() and not task.done():  # noqa: ASYNC110 - in SQLite
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await task
        await bot.session.close()
    return started, sender.burst


def result(
    n: int,
    limit: float,
    rate: float,
    burst: float,
    calls: list[Call],
    started: float,
    pending: int,
) -> Result:
    ok = [call for call in calls if call[1] == 200]
    per_chat = Counter(chat for chat, _, _ in ok)
    return Result(
        subscribers=n,
        delivered=len(ok),
        duplicates=sum(count - 1 for count in per_chat.values()),
        flood_waits=sum(1 for call in calls if call[1] == 429),
        lost=n - len(per_chat),
        pending_left=pending,
        # Up to the last delivery, not to when the polling loop noticed the outbox was empty.
        elapsed_s=max(call[2] for call in ok) - started if ok else 0.0,
        limit=limit,
        sender_rate=rate,
        sender_burst=burst,
    )


def report(result: Result, concurrency: int, same_process: bool) -> str:
    where = "in this process" if same_process else "in a child process"
    return "\n".join(
        [
            f"fan-out: {result.subscribers} subscribers, one alert each",
            f"  fake Telegram ({where}): {result.limit:.0f} msg/s global, 1 msg/s per chat",
            f"  sender: {result.sender_rate:.0f} msg/s (burst {result.sender_burst:.0f}),"
            f" {concurrency} in flight",
            f"  messages delivered  {result.delivered}",
            f"  duplicates          {result.duplicates}",
            f"  lost                {result.lost} (rows still pending: {result.pending_left})",
            f"  429s received       {result.flood_waits}",
            f"  elapsed             {result.elapsed_s:.2f} s",
            f"  achieved rate       {result.rate:.0f} msg/s = {result.share:.1%} of the limit"
            f" ({result.sustained / result.limit:.1%} without the sender's initial burst)",
            "  target: >= 90 % of the limit, no 429s, no duplicates, nothing lost: "
            + ("PASS" if result.passed else "FAIL"),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Alert fan-out through the real Sender.")
    parser.add_argument("--n", type=int, default=10_000, help="subscribers (default 10000)")
    parser.add_argument("--limit", type=float, default=1000.0, help="the fake's global msg/s")
    parser.add_argument("--margin", type=float, default=0.03, help="sender runs at limit*(1-m)")
    parser.add_argument("--concurrency", type=int, default=8, help="sends in flight at once")
    parser.add_argument(
        "--burst", type=float, help="sender burst (default: 1/20 s worth, see BURST_SECONDS)"
    )
    parser.add_argument("--same-process", action="store_true", help="fake in this process")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    burst = args.burst if args.burst is not None else args.limit * BURST_SECONDS
    outcome = asyncio.run(
        run(args.n, args.limit, args.margin, args.concurrency, burst, args.same_process)
    )
    print(report(outcome, args.concurrency, args.same_process))


if __name__ == "__main__":
    main()
