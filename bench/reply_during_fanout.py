"""A person's reply while an alert fan-out drains: the real application (polling, the sender,
their shared limiter) with 10 000 alerts queued in its outbox, against a fake Telegram that
allows 30 messages/s overall and 1 per chat and answers after `--rtt-ms`. Every `--every-s`
a different person sends /help; the wait is from the push to Telegram receiving the reply.

Prints the p50, p99 and worst wait with the fan-out and, measured in the same run, with an
empty outbox, plus how many alerts went out meanwhile (the fan-out was really draining).
Target: the p99 with the fan-out within a second of the one without (replies go ahead of
alerts in the limiter: bot.delivery.session).

    .venv/bin/python -m bench.reply_during_fanout [--users 10000] [--samples 30]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench.fanout import FIRST_CHAT, TELEGRAM_LIMIT, fill
from bot.app import build_application
from bot.config import Settings
from tests.fakes.telegram import TOKEN, FakeTelegram

PERSON = 10  # the people asking /help: chat ids from here, far below the subscribers
HELP_TITLE = "Что я умею"


@dataclass(frozen=True)
class Waits:
    label: str
    waits_s: list[float]
    alerts_sent: int

    def at(self, fraction: float) -> float:
        ordered = sorted(self.waits_s)
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure(label: str, users: int, samples: int, every_s: float, rtt_s: float) -> Waits:
    async with FakeTelegram(
        global_per_second=TELEGRAM_LIMIT, per_chat_per_second=1, latency=rtt_s
    ) as telegram:
        with tempfile.TemporaryDirectory() as folder:
            settings = Settings.model_validate(
                {"db_path": Path(folder) / "bench.sqlite3", "monitor": False}
            )
            app = await build_application(settings, token=TOKEN, api_url=telegram.base_url)
            if users:
                await fill(app.store, users, datetime.now(UTC))
            polling = asyncio.create_task(app.run_polling(handle_signals=False))
            try:
                await telegram.wait_for_call("getMe")
                # Spread over the fan-out: one person every `every_s`.
                waits = []
                for n in range(samples):
                    started = time.monotonic()
                    waits.append(await ask(telegram, PERSON + n))
                    await asyncio.sleep(max(0.0, every_s - (time.monotonic() - started)))
            finally:
                await app.stop()
                await polling
                await app.close()
            sent = [
                call
                for call in telegram.calls_of("sendMessage")
                if call.ok and int(call.params["chat_id"]) >= FIRST_CHAT
            ]
    return Waits(label, waits, len(sent))


async def ask(telegram: FakeTelegram, chat: int) -> float:
    after = telegram.mark()
    pushed = time.time()
    telegram.push_message(chat, "/help")
    reply = await telegram.wait_for_call(
        "sendMessage",
        after=after,
        predicate=lambda call: (
            call.ok
            and int(call.params["chat_id"]) == chat
            and HELP_TITLE in str(call.result["text"])
        ),
        timeout=120,
    )
    return reply.time - pushed


def show(result: Waits) -> None:
    print(
        f"{result.label:<24} p50 {result.at(0.5):6.2f} s  p99 {result.at(0.99):6.2f} s"
        f"  worst {max(result.waits_s):6.2f} s  ({len(result.waits_s)} replies,"
        f" {result.alerts_sent} alerts sent meanwhile)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=30)
    parser.add_argument("--every-s", type=float, default=1.0)
    parser.add_argument("--rtt-ms", type=float, default=60.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    rtt_s = args.rtt_ms / 1000
    baseline = await measure("no fan-out", 0, args.samples, args.every_s, rtt_s)
    loaded = await measure(
        f"{args.users} alerts draining", args.users, args.samples, args.every_s, rtt_s
    )
    for result in (baseline, loaded):
        show(result)


if __name__ == "__main__":
    asyncio.run(main())
