"""Messages written while the bot was down reach it all at once, after a restart (polling) or
as Telegram's kept webhook deliveries back to back: every one is answered, in order, because
the flood rule judges each at the time it was sent (monitor.flood), not at its arrival."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.bot.conftest import running_app
from tests.bot.ops.test_server import SECRET, post_update, webhook_app
from tests.fakes.telegram import FakeTelegram

USERS = range(700_001, 700_011)
COMMANDS = ("/start", "/help", "/prices")
# Each person sent their three messages 2 s apart while the bot was down.
GAP_S = 2


def answered(telegram: FakeTelegram, user: int) -> list[str]:
    """What the person got, in order: the command each reply answers, by its first words."""
    firsts = {"/start": "Привет", "/help": "Что я умею", "/prices": "💰 Цены и наличие"}
    return [
        next((c for c, lead in firsts.items() if text.startswith(lead)), text[:40])
        for text in telegram.texts(user)
    ]


def message_update(update_id: int, user: int, text: str, date: int) -> dict[str, Any]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "from": {"id": user, "is_bot": False, "first_name": "Test", "language_code": "ru"},
            "chat": {"id": user, "type": "private", "first_name": "Test"},
            "date": date,
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text)}],
        },
    }


async def test_a_backlog_after_a_restart_is_answered_in_full_and_in_order(
    telegram: FakeTelegram, db_path: Path
):
    written = int(time.time()) - 60
    for step, command in enumerate(COMMANDS):
        for user in USERS:
            telegram.push_message(user, command, user_id=user, date=written + step * GAP_S)
    # The production settings: throttling on, updates handled as concurrent tasks.
    async with running_app(telegram, db_path, throttle_interval=1.0):
        await telegram.wait_until(
            lambda: all(len(telegram.texts(user)) >= len(COMMANDS) for user in USERS) or None,
            timeout=60,
        )
    for user in USERS:
        assert answered(telegram, user) == list(COMMANDS), user


async def test_a_kept_webhook_backlog_is_answered_in_full_and_in_order(
    telegram: FakeTelegram, db_path: Path
):
    written = int(time.time()) - 60
    async with webhook_app(telegram, db_path, throttle_interval=1.0) as application:
        update_id = 9_000
        for step, command in enumerate(COMMANDS):
            for user in USERS:
                update_id += 1
                update = message_update(update_id, user, command, written + step * GAP_S)
                assert (await post_update(application, update, SECRET))[0] == 200
        await telegram.wait_until(
            lambda: all(len(telegram.texts(user)) >= len(COMMANDS) for user in USERS) or None,
            timeout=60,
        )
    for user in USERS:
        assert answered(telegram, user) == list(COMMANDS), user


async def test_a_second_message_soon_after_the_first_on_a_cold_bot_is_answered(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path, throttle_interval=1.0):
        sent = int(time.time())
        telegram.push_message(700_100, "/start", user_id=700_100, date=sent)
        telegram.push_message(700_100, "/help", user_id=700_100, date=sent + 1)  # 1.5 s later
        await telegram.wait_until(lambda: len(telegram.texts(700_100)) >= 2 or None, timeout=60)
    assert answered(telegram, 700_100) == ["/start", "/help"]


async def test_a_reply_that_must_wait_shows_typing_first(telegram: FakeTelegram, db_path: Path):
    user = 700_200
    written = int(time.time()) - 60
    for step in range(5):  # five messages 2 s apart, kept while the bot was down
        telegram.push_message(user, "/help", user_id=user, date=written + step * GAP_S)
    async with running_app(telegram, db_path, throttle_interval=1.0, send_chat_interval_s=1.0):
        await telegram.wait_until(lambda: len(telegram.texts(user)) >= 5 or None, timeout=60)
    # Every one answered, a second apart in the chat, and the chat showed «печатает…» for
    # the answers that waited their turn.
    actions = [
        call
        for call in telegram.calls_of("sendChatAction")
        if call.params.get("chat_id") == str(user)
    ]
    assert actions
    assert {call.params.get("action") for call in actions} == {"typing"}
