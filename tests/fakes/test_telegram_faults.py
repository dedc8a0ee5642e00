"""The fake Telegram: injected faults, rate limits, hooks and waiting."""

import asyncio

import pytest
from aiogram import Bot
from aiogram.exceptions import (
    RestartingTelegram,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)

from bot.fake_telegram import (
    ApiCall,
)
from tests.fakes.helpers import CHAT, FakeClock
from tests.fakes.telegram import FakeTelegram, make_bot


async def test_flood_wait_maps_to_retry_after(tg: FakeTelegram, bot: Bot) -> None:
    tg.flood_wait("sendMessage", retry_after=3)
    with pytest.raises(TelegramRetryAfter) as caught:
        await bot.send_message(CHAT, "x")
    assert caught.value.retry_after == 3
    assert tg.calls[-1].response == {
        "ok": False,
        "error_code": 429,
        "description": "Too Many Requests: retry after 3",
        "parameters": {"retry_after": 3},
    }
    await bot.send_message(CHAT, "x")  # one fault, then back to normal


async def test_flood_wait_never_sends_zero(tg: FakeTelegram, bot: Bot) -> None:
    tg.flood_wait(retry_after=0)
    with pytest.raises(TelegramRetryAfter) as caught:
        await bot.send_message(CHAT, "x")
    assert caught.value.retry_after == 1


async def test_blocked_chat_is_forbidden(tg: FakeTelegram, bot: Bot) -> None:
    tg.block_chat(CHAT)
    with pytest.raises(TelegramForbiddenError) as caught:
        await bot.send_message(CHAT, "x")
    assert caught.value.message == "Forbidden: bot was blocked by the user"
    await bot.send_message(CHAT + 1, "others still work")
    tg.unblock_chat(CHAT)
    await bot.send_message(CHAT, "x")


async def test_server_errors(tg: FakeTelegram, bot: Bot) -> None:
    tg.server_error("sendMessage", times=2)
    tg.fail_next("sendMessage", 500, "Internal Server Error: restart")
    for _ in range(2):
        with pytest.raises(TelegramServerError, match="Bad Gateway"):
            await bot.send_message(CHAT, "x")
    with pytest.raises(RestartingTelegram):
        await bot.send_message(CHAT, "x")
    await bot.send_message(CHAT, "x")


async def test_fail_next_any_status(tg: FakeTelegram, bot: Bot) -> None:
    tg.fail_next("editMessageText", 400, "Bad Request: chat not found")
    tg.fail_next("getMe", 404, "Not Found")
    with pytest.raises(TelegramBadRequest, match="chat not found"):
        await bot.edit_message_text(text="x", chat_id=CHAT, message_id=1)
    with pytest.raises(TelegramNotFound):
        await bot.get_me()
    assert [c.status for c in tg.calls] == [400, 404]


async def test_per_chat_rate_limit_with_fake_clock() -> None:
    clock = FakeClock()
    async with FakeTelegram(per_chat_per_second=1, clock=clock) as api, make_bot(api) as bot:
        await bot.send_message(1, "a")
        with pytest.raises(TelegramRetryAfter) as caught:
            await bot.send_message(1, "b")
        assert caught.value.retry_after == 1
        await bot.send_message(2, "other chats are independent")
        await bot.send_chat_action(1, "typing")  # not a message
        clock.advance(0.5)
        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(1, "b")
        clock.advance(0.5)
        await bot.send_message(1, "b")
        assert api.texts(1) == ["a", "b"]


async def test_per_chat_burst_and_slow_rate() -> None:
    clock = FakeClock()
    async with (
        FakeTelegram(per_chat_per_second=0.5, per_chat_burst=3, clock=clock) as api,
        make_bot(api) as bot,
    ):
        for i in range(3):
            await bot.send_message(1, str(i))
        with pytest.raises(TelegramRetryAfter) as caught:
            await bot.send_message(1, "3")
        assert caught.value.retry_after == 2  # one message per 2 s
        clock.advance(2)
        await bot.send_message(1, "3")


async def test_global_rate_limit_with_fake_clock() -> None:
    clock = FakeClock()
    async with FakeTelegram(global_per_second=30, clock=clock) as api, make_bot(api) as bot:
        for chat_id in range(1, 31):
            await bot.send_message(chat_id, "alert")
        with pytest.raises(TelegramRetryAfter) as caught:
            await bot.send_message(31, "alert")
        assert caught.value.retry_after == 1
        clock.advance(1 / 30)
        await bot.send_message(31, "alert")
        with pytest.raises(TelegramRetryAfter):
            await bot.send_message(32, "alert")


async def test_listeners_see_successful_calls_only(tg: FakeTelegram, bot: Bot) -> None:
    seen: list[ApiCall] = []

    def broken(call: ApiCall) -> None:
        raise RuntimeError("printer on fire")

    tg.add_listener(broken)  # logged, never turned into an API error
    tg.add_listener(seen.append)
    await bot.send_message(CHAT, "ok")
    with pytest.raises(TelegramBadRequest):
        await bot.send_message(CHAT, "")
    assert [c.method for c in seen] == ["sendMessage"]
    assert seen[0].result["text"] == "ok"


async def test_wait_for_call_after_mark(tg: FakeTelegram, bot: Bot) -> None:
    await bot.send_message(CHAT, "old")
    mark = tg.mark()
    waiter = asyncio.create_task(tg.wait_for_call("sendMessage", after=mark))
    await bot.send_message(CHAT, "new")
    assert (await asyncio.wait_for(waiter, 5)).params["text"] == "new"
    found = await tg.wait_for_call(
        "SENDMESSAGE", predicate=lambda c: c.params["text"] == "old", timeout=0.1
    )
    assert found.index == 0


async def test_wait_timeout_lists_recent_calls(tg: FakeTelegram, bot: Bot) -> None:
    await bot.send_message(CHAT, "the only call")
    with pytest.raises(TimeoutError) as caught:
        await tg.wait_for_call("editMessageText", timeout=0.05)
    assert "no editMessageText call" in str(caught.value)
    assert "sendMessage(chat_id='42', text='the only call'" in str(caught.value)


async def test_press_finds_buttons(tg: FakeTelegram, bot: Bot) -> None:
    markup = InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text="One", callback_data="1")],
            [
                InlineKeyboardButton(text="Two", callback_data="2"),
                InlineKeyboardButton(text="Site", url="https://example.com"),
            ],
        ]
    )
    await bot.send_message(CHAT, "pick", reply_markup=markup)
    buttons = tg.buttons(tg.last_message(CHAT))
    assert [(b.text, b.row, b.column) for b in buttons] == [
        ("One", 0, 0),
        ("Two", 1, 0),
        ("Site", 1, 1),
    ]
    tg.press(CHAT, 1)
    tg.press(CHAT, "One")
    assert [c.data for c in tg.callbacks] == ["2", "1"]
    with pytest.raises(ValueError, match="no callback_data"):
        tg.press(CHAT, "Site")
    with pytest.raises(LookupError, match="Three"):
        tg.press(CHAT, "Three")
    with pytest.raises(LookupError):
        tg.push_callback(CHAT, 999, "x")
