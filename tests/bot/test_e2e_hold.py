"""Storage down: each message is held, its person told once in their language, nothing of it
confirmed to Telegram, and every one answered in order once storage is back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.runtime import Application
from tests.bot.conftest import CHAT, running_app
from tests.fakes.telegram import FakeTelegram

ENGLISH, RUSSIAN = CHAT + 10, CHAT + 11
HELD_EN = "Our database is briefly unavailable."
HELD_RU = "База данных ненадолго недоступна."


def storage_down(application: Application) -> None:
    def disk_gone() -> None:
        raise sqlite3.OperationalError("disk I/O error")

    application.store.database.write_fault = disk_gone


def texts(telegram: FakeTelegram, chat: int, after: int) -> list[str]:
    return [
        str(call.result["text"])
        for call in telegram.calls_of("sendMessage")
        if call.ok and call.index >= after and int(call.params["chat_id"]) == chat
    ]


async def test_messages_sent_while_storage_is_down_are_answered_when_it_returns(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        storage_down(application)
        mark = telegram.mark()
        telegram.push_message(ENGLISH, "/help", language_code="en-GB")
        telegram.push_message(RUSSIAN, "/help", language_code="ru")
        await telegram.wait_until(
            lambda: (texts(telegram, ENGLISH, mark) and texts(telegram, RUSSIAN, mark)) or None
        )
        # A second message from a person already told: held behind the first, no second word.
        second = telegram.push_message(ENGLISH, "/start", language_code="en-GB")
        await telegram.wait_until(lambda: application.hold.knows(second) or None)

        [notice] = texts(telegram, ENGLISH, mark)
        assert notice.startswith(HELD_EN)
        assert texts(telegram, RUSSIAN, mark)[0].startswith(HELD_RU)
        # Telegram still keeps what came once something was held: a replica that died now
        # would lose only the batch in flight when storage went (`first`, confirmed by the
        # next poll while its handler ran).
        assert not telegram.updates.is_confirmed(second)

        application.store.database.write_fault = None
        await telegram.wait_until(lambda: len(texts(telegram, ENGLISH, mark)) == 3 or None)
        await telegram.wait_until(lambda: len(texts(telegram, RUSSIAN, mark)) == 2 or None)
        await telegram.wait_confirmed(second)

    english = texts(telegram, ENGLISH, mark)
    assert english[1].startswith("What I can do"), english  # the /help, then the /start
    assert not english[2].startswith("What I can do"), english
    assert texts(telegram, RUSSIAN, mark)[1].startswith("Что я умею")
    # Answered once each, though Telegram delivered them again while they were held.
    assert len(texts(telegram, ENGLISH, mark)) == 3
