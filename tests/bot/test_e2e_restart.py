"""kill -9 during a 200-message fan-out: after a restart every alert is delivered, and none
twice apart from at most the ones that were in flight (GPURADAR_SEND_CONCURRENCY)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections import Counter
from pathlib import Path

from bot.config import Settings
from storage import Store
from tests.bot.conftest import TOKEN
from tests.bot.test_e2e_delivery import seed
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually

ROOT = Path(__file__).resolve().parents[2]
CHATS = range(10_000, 10_200)


async def seed_fanout(db_path: Path) -> None:
    """200 users, each with a subscription and one pending alert about the same H100."""
    store = await Store.open(db_path)
    try:
        await seed(store, CHATS)
        assert await store.pending_count() == len(CHATS)
    finally:
        await store.close()


async def start_bot(telegram: FakeTelegram, db_path: Path) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPURADAR_")}
    env.update(
        {
            "GPURADAR_BOT_TOKEN": TOKEN,
            "GPURADAR_TELEGRAM_API_URL": telegram.base_url,
            "GPURADAR_DB_PATH": str(db_path),
            "GPURADAR_MONITOR": "false",
            "GPURADAR_SEND_RATE": "100",
            "GPURADAR_OPS_PORT": "0",
            "PYTHONPATH": str(ROOT),
        }
    )
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=db_path.parent,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )


def delivered(telegram: FakeTelegram) -> Counter[int]:
    return Counter(
        int(call.params["chat_id"])
        for call in telegram.calls_of("sendMessage")
        if call.ok and int(call.params["chat_id"]) in CHATS
    )


async def test_kill_9_mid_fanout_then_restart_delivers_each_alert_once(tmp_path: Path):
    db_path = tmp_path / "fanout.sqlite3"
    await seed_fanout(db_path)
    async with FakeTelegram(token=TOKEN) as telegram:
        first = await start_bot(telegram, db_path)
        try:
            await eventually(lambda: sum(delivered(telegram).values()) >= 50, within=60)
        finally:
            first.send_signal(signal.SIGKILL)
            await first.wait()
        partial = sum(delivered(telegram).values())
        assert partial < len(CHATS), "the fan-out finished before the kill: nothing tested"

        second = await start_bot(telegram, db_path)
        try:
            await eventually(lambda: set(delivered(telegram)) == set(CHATS), within=60)
        finally:
            second.send_signal(signal.SIGTERM)
            await asyncio.wait_for(second.wait(), 30)
        counts = delivered(telegram)
    assert set(counts) == set(CHATS)
    repeated = [chat for chat, count in counts.items() if count > 1]
    in_flight = Settings.model_validate({}).send_concurrency
    assert len(repeated) <= in_flight  # at most the messages in flight at the kill
    assert max(counts.values()) <= 2
