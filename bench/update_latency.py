"""How long the bot takes to answer one update end to end, against the in-process fake Bot API.

Measures, in one run on this machine:
  baseline  - one sendMessage from aiogram to the fake server (HTTP + validation), no bot logic;
  /help     - push a message, long-poll it, run middlewares (SQLite user read) and the handler;
  /settings - the same with a settings view (time-zone maths, keyboard);
  button    - a callback press that writes to SQLite and edits the message.
Prints the median and p95 in milliseconds, and each as a ratio of the baseline.

    .venv/bin/python -m bench.update_latency [--n 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bot.app import build_application
from bot.config import Settings
from bot.fake_telegram import FakeBotApi

TOKEN = "777:bench"
CHAT = 42


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def timed(n: int, step: Callable[[int], Awaitable[None]]) -> list[float]:
    samples = []
    for i in range(n):
        started = time.perf_counter()
        await step(i)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def main(n: int) -> None:
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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200)
    asyncio.run(main(parser.parse_args().n))
