"""How long the bot takes to answer one update end to end, against the in-process fake Bot API.

Measures, in one run on this machine:
  baseline  - one sendMessage from aiogram to the fake server (HTTP + validation), no bot logic;
  /help     - push a message, long-poll it, run middlewares (SQLite user read) and the handler;
  /settings - the same with a settings view (time-zone maths, keyboard);
  button    - a callback press that writes to SQLite and edits the message.
Prints the median and p95 in milliseconds, and each as a ratio of the baseline.

Then "5 concurrent /history plus /help": five users ask for a chart at once and a sixth for
/help; the /help latency while the charts are drawn, with charts in worker processes (the
product) and, as the baseline measured in the same run, in a thread, as the bot drew them before
it had worker processes (matplotlib holds the GIL, so every other reply waits). Target: /help
p95 < 50 ms.

    .venv/bin/python -m bench.update_latency [--n 200] [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

from bot.app import build_application
from bot.chart_pool import ChartPool
from bot.config import Settings
from bot.fake_telegram import ApiCall, FakeBotApi
from monitor.offers import StockState
from monitor.scrape import ScrapeResult
from storage import Store
from tests.factories import make_offer, store_snapshot

TOKEN = "777:bench"
CHAT = 42
SLOT_S = 1 / Settings.model_validate({}).send_rate
# The chart case's history: offers of one GPU, each changing price every few hours for 30
# days, so a chart is as heavy as a popular card's (~0.5 s of matplotlib here).
CHART_OFFERS = 8
CHART_POINTS = 150
# /help comes this long after the five /history: their database reads are done, and the
# charts are being drawn (each takes ~0.6 s).
DRAWING_S = 0.2  # --help-after-ms


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def timed(n: int, step: Callable[[int], Awaitable[None]]) -> list[float]:
    samples = []
    for i in range(n):
        started = time.perf_counter()
        await step(i)
        samples.append((time.perf_counter() - started) * 1000)
        # One message per slot of the send rate: back to back, each reply would wait for the
        # limiter's next slot (1/28 s) and this would measure the pacing, not the bot.
        await asyncio.sleep(SLOT_S)
    return samples


async def help_during_charts(
    rounds: int, *, in_threads: bool, help_after_s: float = DRAWING_S
) -> list[float]:
    """/help latency (ms) while five other users' /history charts are being drawn."""
    api = FakeBotApi()
    await api.start()
    with tempfile.TemporaryDirectory() as folder:
        db_path = Path(folder) / "h.sqlite3"
        await seed_busy_history(db_path)
        settings = Settings.model_validate({"db_path": db_path, "monitor": False})
        app = await build_application(
            settings, token=TOKEN, api_url=api.base_url, throttle_interval=0.0
        )
        if in_threads:  # the old way: asyncio.to_thread (a thread each), no queue limit
            app.charts = ChartPool(queue_limit=100, executor=lambda: ThreadPoolExecutor(8))
            app.dispatcher["charts"] = app.charts  # app.close() closes this one
        assert app.charts is not None
        await app.charts.warm_up()
        # As in production: updates handled as concurrent tasks.
        polling = asyncio.create_task(app.run_polling(handle_signals=False))
        await api.wait_for_call("getMe")
        samples = []
        try:
            for round_ in range(rounds + 1):  # the first round warms the workers up
                # Five new chart users each round (one chart per user per 10 s), and one
                # /help user who has used the bot before, like CHAT above.
                users = [10_000 + 10 * round_ + i for i in range(5)] + [CHAT]
                after = api.mark()
                for user in users[:5]:
                    api.push_message(user, "/history h100")
                await asyncio.sleep(help_after_s)  # the charts are being drawn now
                started = time.perf_counter()
                api.push_message(users[5], "/help")
                await api.wait_for_call("sendMessage", predicate=_to(users[5]), after=after)
                if round_:
                    samples.append((time.perf_counter() - started) * 1000)
                # Each of the five gets a chart, or "wait" (the queue holds four).
                await api.wait_until(partial(_answered, api, users[:5], after), timeout=30)
        finally:
            await app.stop()
            await polling
            await app.close()
            await api.stop()
    return samples


async def seed_busy_history(db_path: Path) -> None:
    store = await Store.open(db_path)
    try:
        start = datetime.now(UTC) - timedelta(days=29)
        step = timedelta(days=29) / CHART_POINTS
        for point in range(CHART_POINTS):
            offers = tuple(
                make_offer(
                    f"h100-{offer}",
                    400.0 + 40 * math.sin(point / 7 + offer) + 10 * offer,
                    StockState.IN_STOCK if (point + offer) % 5 else StockState.OUT_OF_STOCK,
                    provider="selectel",
                    gpu="H100 SXM",
                )
                for offer in range(CHART_OFFERS)
            )
            await store_snapshot(store, ScrapeResult("selectel", offers, start + step * point))
    finally:
        await store.close()


def _to(chat: int) -> Callable[[ApiCall], bool]:
    return lambda call: call.params.get("chat_id") == str(chat)


def _answered(api: FakeBotApi, users: list[int], after: int) -> bool | None:
    chats = {
        call.params.get("chat_id")
        for call in api.calls[after:]
        if call.method in ("sendPhoto", "sendMessage")
    }
    return True if {str(user) for user in users} <= chats else None


async def main(n: int, rounds: int, help_after_s: float) -> None:
    api = FakeBotApi()
    await api.start()
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings.model_validate(
            {"db_path": Path(folder) / "b.sqlite3", "monitor": False}
        )
        app = await build_application(
            settings, token=TOKEN, api_url=api.base_url, throttle_interval=0.0
        )
        polling = asyncio.create_task(app.run_polling(handle_signals=False, handle_as_tasks=False))
        await api.wait_for_call("getMe")
        try:
            await api.wait_confirmed(api.push_message(CHAT, "/start"))

            async def baseline(_: int) -> None:
                await app.bot.send_message(CHAT, "ping")

            async def command(text: str) -> Callable[[int], Awaitable[None]]:
                async def step(_: int) -> None:
                    await api.wait_confirmed(api.push_message(CHAT, text))

                return step

            await api.wait_confirmed(api.push_message(CHAT, "/settings"))

            async def press(i: int) -> None:
                label = "English" if i % 2 == 0 else "Русский"
                # The menu's language flips with each press; find the button by its text.
                await api.wait_confirmed(api.press(CHAT, label, message=api.last_message(CHAT)))

            results = {
                "baseline sendMessage": await timed(n, baseline),
                "/help": await timed(n, await command("/help")),
                "/settings": await timed(n, await command("/settings")),
                "button (write + edit)": await timed(n, press),
            }
        finally:
            await app.stop()
            await polling
            await app.close()
            await api.stop()

    base = statistics.median(results["baseline sendMessage"])
    print(f"update latency, n={n} each, fake Bot API on 127.0.0.1")
    print(f"{'case':<24}{'median ms':>10}{'p95 ms':>9}{'x baseline':>12}")
    for name, samples in results.items():
        median = statistics.median(samples)
        print(f"{name:<24}{median:>10.2f}{percentile(samples, 0.95):>9.2f}{median / base:>12.1f}")

    print(
        f"\n5 concurrent /history plus /help ({help_after_s * 1000:.0f} ms later),"
        f" {rounds} rounds: /help latency"
    )
    print(f"{'charts drawn':<36}{'median ms':>10}{'p95 ms':>9}")
    for label, in_threads in (
        ("in worker processes (product)", False),
        ("in a thread (before)", True),
    ):
        samples = await help_during_charts(rounds, in_threads=in_threads, help_after_s=help_after_s)
        print(f"{label:<36}{statistics.median(samples):>10.1f}{percentile(samples, 0.95):>9.1f}")
    print("target: /help p95 < 50 ms with charts in worker processes")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument(
        "--help-after-ms",
        type=float,
        default=DRAWING_S * 1000,
        help="when /help comes after the five /history (default 200: while they draw)",
    )
    args = parser.parse_args()
    asyncio.run(main(args.n, args.rounds, args.help_after_ms / 1000))
