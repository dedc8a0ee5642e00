"""The fake Telegram: wire format and long polling."""

import asyncio
import time
from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiogram.exceptions import (
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.types import (
    BufferedInputFile,
)

from tests.fakes.helpers import CHAT, raw_call, wait_until_polling
from tests.fakes.telegram import FakeTelegram, make_bot


async def test_form_body_is_parsed_and_enveloped(tg: FakeTelegram) -> None:
    status, body = await raw_call(tg, "sendMessage", data={"chat_id": "7", "text": "hi"})
    assert status == 200
    assert body["ok"] is True
    assert body["result"]["text"] == "hi"
    assert body["result"]["chat"] == {"id": 7, "type": "private", "first_name": "Test"}
    assert tg.calls[-1].params == {"chat_id": "7", "text": "hi"}


async def test_json_body_is_accepted_and_normalised(tg: FakeTelegram) -> None:
    markup = {"inline_keyboard": [[{"text": "A", "callback_data": "a"}]]}
    status, body = await raw_call(
        tg, "SENDMESSAGE", json={"chat_id": 7, "text": "hi", "reply_markup": markup}
    )
    assert status == 200, body
    call = tg.calls[-1]
    assert call.method == "sendMessage"  # canonical name whatever the case sent
    assert call.params["chat_id"] == "7"
    assert call.json_param("reply_markup") == markup


async def test_multipart_photo_upload(tg: FakeTelegram, bot: Bot) -> None:
    message = await bot.send_photo(
        CHAT, BufferedInputFile(b"\x89PNG fake", "chart.png"), caption="<b>Chart</b>"
    )
    assert message.caption == "Chart"
    assert message.photo is not None
    assert message.photo[-1].file_size == len(b"\x89PNG fake")
    call = tg.calls_of("sendPhoto")[-1]
    key = call.params["photo"].removeprefix("attach://")
    assert call.files[key].data == b"\x89PNG fake"
    assert call.files[key].filename == "chart.png"
    assert tg.last_message(CHAT).kind == "photo"


async def test_multipart_with_direct_file_part(tg: FakeTelegram) -> None:
    form = aiohttp.FormData()
    form.add_field("chat_id", "7")
    form.add_field("document", b"a,b\n1,2\n", filename="t.csv", content_type="text/csv")
    status, body = await raw_call(tg, "sendDocument", data=form)
    assert status == 200, body
    assert body["result"]["document"]["file_name"] == "t.csv"
    assert body["result"]["document"]["mime_type"] == "text/csv"


async def test_unknown_method_is_404(tg: FakeTelegram, bot: Bot) -> None:
    status, body = await raw_call(tg, "sendTelepathy", data={"chat_id": "1"})
    assert (status, body) == (404, {"ok": False, "error_code": 404, "description": "Not Found"})
    assert tg.calls[-1].method == "sendTelepathy"


async def test_malformed_token_is_401(tg: FakeTelegram) -> None:
    status, body = await raw_call(tg, "getMe", token="not-a-token")
    assert (status, body["description"]) == (401, "Unauthorized")


async def test_configured_token_rejects_others() -> None:
    async with FakeTelegram(token="1:RIGHT") as api, make_bot(api, "2:WRONG") as wrong:
        with pytest.raises(TelegramUnauthorizedError):
            await wrong.get_me()


async def test_a_crash_in_the_fake_is_a_recorded_500(tg: FakeTelegram, bot: Bot) -> None:
    async def crash(request: Any) -> None:
        raise KeyError("oops")

    tg._handlers["getme"] = ("getMe", crash)
    with pytest.raises(TelegramServerError, match="KeyError"):
        await bot.get_me()
    assert tg.calls[-1].status == 500


async def test_get_me(bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.is_bot, me.username) == (123456, True, "gpuradar_test_bot")


async def test_long_poll_returns_as_soon_as_an_update_arrives() -> None:
    async with FakeTelegram(max_poll_wait=30) as api, make_bot(api) as bot:
        poll = asyncio.create_task(bot.get_updates(timeout=30))
        await wait_until_polling(api)
        started = time.monotonic()
        update_id = api.push_message(CHAT, "hello")
        updates = await asyncio.wait_for(poll, 25)
        # The failure is holding the poll to its 30 s cap.
        assert time.monotonic() - started < 15
        assert [u.update_id for u in updates] == [update_id]
        assert updates[0].message is not None
        assert updates[0].message.text == "hello"


async def test_long_poll_gives_empty_list_after_cap() -> None:
    async with FakeTelegram(max_poll_wait=0.2) as api, make_bot(api) as bot:
        started = time.monotonic()
        assert await bot.get_updates(timeout=30) == []
        # Held until the 0.2 s cap (not answered at once), and not for the 30 s asked.
        assert 0.15 < time.monotonic() - started < 15


async def test_zero_timeout_does_not_wait() -> None:
    async with FakeTelegram(max_poll_wait=30) as api, make_bot(api) as bot:
        started = time.monotonic()
        assert await bot.get_updates(timeout=0) == []
        # The failure is holding the request to the 30 s cap.
        assert time.monotonic() - started < 15


async def test_offset_confirms_and_drops_older_updates(tg: FakeTelegram, bot: Bot) -> None:
    first = tg.push_message(CHAT, "/start")
    second = tg.push_message(CHAT, "again")
    assert [u.update_id for u in await bot.get_updates()] == [first, second]
    # Unconfirmed updates are delivered again, like Telegram does.
    assert [u.update_id for u in await bot.get_updates(limit=1)] == [first]
    assert [u.update_id for u in await bot.get_updates(offset=second)] == [second]
    await tg.wait_confirmed(first, timeout=0.5)
    with pytest.raises(TimeoutError, match=f"confirmation of update {second}"):
        await tg.wait_confirmed(second, timeout=0.05)
    assert await bot.get_updates(offset=second + 1) == []
    await tg.wait_confirmed(second, timeout=0.5)
    assert tg.updates.pending == []


async def test_command_message_carries_bot_command_entity(tg: FakeTelegram, bot: Bot) -> None:
    tg.push_message(CHAT, "/start payload", language_code="en", first_name="Ann")
    (update,) = await bot.get_updates()
    message = update.message
    assert message is not None
    assert message.entities is not None
    assert (message.entities[0].type, message.entities[0].length) == ("bot_command", 6)
    assert message.from_user is not None
    assert (message.from_user.id, message.from_user.language_code) == (CHAT, "en")


async def test_push_update_keeps_raw_update_id(tg: FakeTelegram, bot: Bot) -> None:
    assert tg.push_update({"update_id": 500, "message": _raw_message("x")}) == 500
    assert tg.push_message(CHAT, "next") == 501
    assert [u.update_id for u in await bot.get_updates()] == [500, 501]


def _raw_message(text: str) -> dict[str, Any]:
    return {
        "message_id": 1,
        "date": 0,
        "chat": {"id": CHAT, "type": "private"},
        "from": {"id": CHAT, "is_bot": False, "first_name": "T"},
        "text": text,
    }


async def test_allowed_updates_filter(tg: FakeTelegram, bot: Bot) -> None:
    tg.push_message(CHAT, "a message")
    assert await bot.get_updates(allowed_updates=["callback_query"]) == []


async def test_drop_pending_updates(tg: FakeTelegram, bot: Bot) -> None:
    tg.push_message(CHAT, "old")
    assert await bot.delete_webhook(drop_pending_updates=True) is True
    assert await bot.get_updates() == []


async def test_stop_is_fast_with_a_pending_long_poll() -> None:
    api = FakeTelegram(max_poll_wait=60)
    await api.start()
    async with make_bot(api, request_timeout=60) as bot:
        poll = asyncio.create_task(bot.get_updates(timeout=60))
        await wait_until_polling(api)
        started = time.monotonic()
        await api.stop()
        # The failure is waiting out the 60 s poll.
        assert time.monotonic() - started < 30
        assert await asyncio.wait_for(poll, 2) == []
