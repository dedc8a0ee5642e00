"""Replies under load: 500 users each send two commands at once (/start, then /help a moment
later) to the real application, long-polling a fake Telegram that allows 30 messages/s
overall and 1 per chat. Every update deserves its reply.

Prints, for the product (replies share the sender's limiter and wait out 429s) and, measured
in the same run, for the bot without that session middleware (replies sent straight to
Telegram, as before they shared the limiter): replies delivered, 429s received, tracebacks
logged, and how long until the last reply. Target: every reply delivered, 0 tracebacks.

    .venv/bin/python -m bench.replies [--users 500]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bot.app import build_application
from bot.config import Settings
from bot.delivery.session import SharedLimitMiddleware
from tests.fakes.telegram import TOKEN, FakeTelegram

FIRST_CHAT = 50_000
# The second command comes this long after the bot took in the first wave: past the
# throttling middleware's one answer per user per second, so both commands are due a reply.
SECOND_WAVE_S = 1.2
# Give up on replies that have not come this long after the last update was pushed.
PATIENCE_S = 120.0


class TracebackCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.tracebacks = 0
        self.lines = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.lines += 1
        if record.exc_info:
            self.tracebacks += 1


@dataclass(frozen=True)
class Result:
    label: str
    expected: int
    delivered: int
    flood_waits: int
    tracebacks: int
    log_lines: int
    last_reply_s: float

    @property
    def passed(self) -> bool:
        return self.delivered == self.expected and self.tracebacks == 0


async def run(label: str, users: int, *, shared_limit: bool) -> Result:
    counter = TracebackCounter()
    logging.getLogger().addHandler(counter)
    chats = range(FIRST_CHAT, FIRST_CHAT + users)
    wanted = {str(chat) for chat in chats}
    try:
        async with FakeTelegram(global_per_second=30, per_chat_per_second=1) as telegram:
            with tempfile.TemporaryDirectory() as folder:
                settings = Settings.model_validate(
                    {"db_path": Path(folder) / "r.sqlite3", "monitor": False, "ops_port": 0}
                )
                app = await build_application(settings, token=TOKEN, api_url=telegram.base_url)
                if not shared_limit:
                    for middleware in list(app.bot.session.middleware):
                        if isinstance(middleware, SharedLimitMiddleware):
                            app.bot.session.middleware.unregister(middleware)
                polling = asyncio.create_task(app.run_polling(handle_signals=False))
                await telegram.wait_for_call("getMe")
                after = telegram.mark()

                def replies() -> int:
                    return sum(
                        1
                        for call in telegram.calls[after:]
                        if call.method == "sendMessage"
                        and call.ok
                        and call.params.get("chat_id") in wanted
                    )

                started = time.perf_counter()
                first = [telegram.push_message(chat, "/start") for chat in chats]
                await telegram.wait_confirmed(first[-1], timeout=30)  # fetched by the bot
                await asyncio.sleep(SECOND_WAVE_S)
                for chat in chats:
                    telegram.push_message(chat, "/help")
                deadline = time.perf_counter() + PATIENCE_S
                last = replies()
                quiet_since = time.perf_counter()
                # Until every reply came, or nothing more came for 10 s (the rest are lost).
                while last < 2 * users and time.perf_counter() < deadline:
                    await asyncio.sleep(0.2)
                    now = replies()
                    if now != last:
                        last, quiet_since = now, time.perf_counter()
                    elif time.perf_counter() - quiet_since > 10:
                        break
                elapsed = time.perf_counter() - started
                floods = sum(1 for call in telegram.calls[after:] if call.status == 429)
                await app.stop()
                await polling
                await app.close()
    finally:
        logging.getLogger().removeHandler(counter)
    return Result(label, 2 * users, last, floods, counter.tracebacks, counter.lines, elapsed)


async def main(users: int) -> None:
    print(f"{users} users x 2 commands at once, fake Telegram 30 msg/s overall and 1 per chat")
    print(
        f"{'replies':<34}{'delivered':>12}{'429s':>7}{'tracebacks':>12}{'log lines':>11}"
        f"{'seconds':>9}  target"
    )
    for label, shared in (("shared limiter (product)", True), ("unlimited (before)", False)):
        result = await run(label, users, shared_limit=shared)
        print(
            f"{result.label:<34}{result.delivered:>6}/{result.expected:<5}"
            f"{result.flood_waits:>7}{result.tracebacks:>12}{result.log_lines:>11}"
            f"{result.last_reply_s:>9.1f}  {'PASS' if result.passed else 'FAIL'}",
            flush=True,
        )
    print("target: every reply delivered, 0 tracebacks (warnings and errors are counted)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=500)
    args = parser.parse_args()
    # Warnings and errors are counted (TracebackCounter), not printed.
    logging.getLogger().setLevel(logging.WARNING)
    logging.getLogger().addHandler(logging.NullHandler())
    asyncio.run(main(args.users))
