"""kill -9 during a 200-message fan-out: after a restart every alert is delivered, and none
twice apart from at most the ones that were in flight (GPURADAR_SEND_CONCURRENCY)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bot.config import Settings
from storage import Store
from tests.bot.conftest import TOKEN
from tests.bot.test_e2e_delivery import seed
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually
from tests.processes import BotProcess, bot_settings

# Real processes, waited on for seconds: scheduled first (tests/conftest.py).
pytestmark = pytest.mark.processes

CHATS = range(10_000, 10_200)


async def seed_fanout(db_path: Path) -> None:
    """200 users, each with a subscription and one pending alert about the same H100."""
    store = await Store.open(db_path)
    try:
        await seed(store, CHATS)
        assert await store.pending_count() == len(CHATS)
    finally:
        await store.close()


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
        settings = bot_settings(
            telegram.base_url, database=db_path, token=TOKEN, GPURADAR_SEND_RATE="100"
        )
        async with BotProcess(tmp_path / "bot", settings) as bot:
            await eventually(lambda: sum(delivered(telegram).values()) >= 50, within=60)
            bot.kill()
            partial = sum(delivered(telegram).values())
            assert partial < len(CHATS), "the fan-out finished before the kill: nothing tested"

            bot.start()
            await eventually(lambda: set(delivered(telegram)) == set(CHATS), within=60)
        counts = delivered(telegram)
    assert bot.returncode == 0  # the restarted one stopped cleanly on SIGTERM
    bot.assert_clean()
    assert set(counts) == set(CHATS)
    repeated = [chat for chat, count in counts.items() if count > 1]
    in_flight = Settings.model_validate({}).send_concurrency
    assert len(repeated) <= in_flight  # at most the messages in flight at the kill
    assert max(counts.values()) <= 2
