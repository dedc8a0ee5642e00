"""One `python -m bot` process on SQLite, end to end through the fakes over HTTP: 150 users
watch the H100, it comes into stock, each gets one alert; after kill -9 and a restart on the
same data directory the bot answers again and sends no alert twice."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tests.e2e.watchers import (
    WATCH,
    alerts,
    answered_help,
    drained,
    selectel_success,
    server_list_fetches,
    watching,
)
from tests.fakes.providers import FakeProviders, all_sites
from tests.fakes.sites.selectel import H100Control
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually
from tests.processes import BotProcess, bot_settings

# Real processes, waited on for seconds: scheduled first (tests/conftest.py).
pytestmark = pytest.mark.processes

USERS = range(40_000, 40_150)
# GPURADAR_REFRESH_SECONDS (production: 600-900 s): the H100's flip is seen within seconds.
REFRESH_S = 3
# 150 replies and 150 alerts at 100 a second instead of 28: the same messages, seconds sooner
# (what is counted is who got what, not the pace).
SEND_RATE = "100"
# Generous: a loaded two-core machine may run several of these bots at once.
WITHIN_S = 90.0
# This process's Selectel refreshes that stored a snapshot, and the alerts they queued
# (bot/ops/metrics.py); a sample appears with its first count.
SELECTEL_SNAPSHOTS = 'gpuradar_scrape_successes_total{provider="selectel"}'
SELECTEL_ALERTS = 'gpuradar_alerts_queued_total{provider="selectel"}'


def stored_a_snapshot(bot: BotProcess) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        bot.check_alive()
        return (await bot.metric(SELECTEL_SNAPSHOTS) or 0) >= 1

    return check


async def test_a_bot_process_alerts_each_watcher_once_and_answers_after_kill_9(tmp_path: Path):
    async with FakeProviders(all_sites()) as sites, FakeTelegram() as telegram:
        h100 = H100Control(count=0)
        h100.install(sites["selectel"])
        settings = bot_settings(
            telegram.base_url,
            database=tmp_path / "data" / "gpuradar.sqlite3",
            sites=sites,
            refresh_s=REFRESH_S,
            GPURADAR_SEND_RATE=SEND_RATE,
        )
        async with BotProcess(tmp_path / "bot", settings) as bot:
            await bot.wait_healthy(lambda body: selectel_success(body) is not None)
            assert await bot.role() == "leader"  # alone on its SQLite file, it leads at once
            for chat in USERS:
                telegram.push_message(chat, WATCH)
            await telegram.wait_until(lambda: watching(telegram, USERS) or None, timeout=WITHIN_S)
            assert alerts(telegram, USERS) == Counter()

            h100.count = 1
            await telegram.wait_until(
                lambda: set(alerts(telegram, USERS)) == set(USERS) or None, timeout=WITHIN_S
            )
            # Every send marked in the database: a kill now may not repeat any.
            await eventually(drained(bot), WITHIN_S, every=0.1)
            bot.kill()
            killed_at = telegram.mark()
            fetches_at_kill = len(server_list_fetches(sites["selectel"]))

            bot.start()
            telegram.push_message(USERS[0], "/help")
            await telegram.wait_until(
                lambda: answered_help(telegram, USERS[0], killed_at) or None, timeout=WITHIN_S
            )
            # A whole refresh after the restart, with the H100 still in stock: nothing new.
            # The restarted process counts from zero (/metrics), so a Selectel snapshot it
            # stored is a refresh of its own: the one a new leader runs at once, not one a
            # whole interval later.
            await eventually(stored_a_snapshot(bot), WITHIN_S, every=0.1)
            assert await bot.metric(SELECTEL_ALERTS) is None  # no alert queued since
            assert len(server_list_fetches(sites["selectel"])) > fetches_at_kill
        assert await bot.wait() == 0
        counts = alerts(telegram, USERS)
    assert counts == Counter(dict.fromkeys(USERS, 1))
    bot.assert_clean()
