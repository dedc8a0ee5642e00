"""/history through the real handlers: a sign of life at once, then the chart."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_watch import seed_history
from tests.fakes.telegram import FakeTelegram
from tests.polling import COLD_CHART_S


async def test_history_says_a_photo_is_coming_before_it_sends_one(
    telegram: FakeTelegram, db_path: Path
):
    await seed_history(db_path)
    async with running_app(telegram, db_path):
        after = telegram.mark()
        telegram.push_message(CHAT, "/history h100")
        photo = await telegram.wait_for_call("sendPhoto", after=after, timeout=COLD_CHART_S)
        after_photo = telegram.mark()
        telegram.push_message(CHAT, "/history")  # usage: no chart coming, so no action
        await telegram.wait_for_call("sendMessage", after=after_photo)
    actions = [call for call in telegram.calls_of("sendChatAction") if call.index >= after]
    assert [(a.params["chat_id"], a.params["action"]) for a in actions] == [
        (str(CHAT), "upload_photo")
    ]
    assert actions[0].index < photo.index
    assert photo.ok, photo.description
    assert "Selectel" in photo.params["caption"]


async def test_a_served_bot_warms_its_chart_workers_before_the_first_history(
    telegram: FakeTelegram, db_path: Path
):
    await seed_history(db_path)
    async with running_app(telegram, db_path, warm_charts=True) as application:
        assert application.charts is not None
        assert application.charts.warming  # started with the bot, before any /history
        # Waits for that warm-up: two cold Python processes importing matplotlib.
        await asyncio.wait_for(application.charts.warm_up(), 60)
        after = telegram.mark()
        telegram.push_message(CHAT, "/history h100")
        photo = await telegram.wait_for_call("sendPhoto", after=after, timeout=COLD_CHART_S)
    assert photo.ok, photo.description
