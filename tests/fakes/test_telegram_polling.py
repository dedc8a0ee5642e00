"""The fake Telegram: a real aiogram Dispatcher polling the fake end to end."""

import pytest
from aiogram import Bot, Dispatcher, F, Router
from aiogram.filters import CommandStart
from aiogram.types import (
    CallbackQuery,
    Message,
)
from aiogram.utils.keyboard import InlineKeyboardBuilder

from tests.fakes.helpers import CHAT
from tests.fakes.telegram import FakeTelegram, polling


def create_router() -> Router:
    router = Router()

    @router.message(CommandStart())
    async def start(message: Message) -> None:
        builder = InlineKeyboardBuilder()
        builder.button(text="Show stock", callback_data="stock")
        await message.answer("<b>Hi!</b> Pick one:", reply_markup=builder.as_markup())

    @router.callback_query(F.data == "stock")
    async def stock(query: CallbackQuery) -> None:
        await query.answer("Loading…")
        assert isinstance(query.message, Message)
        await query.message.edit_text("H100: <b>3</b> in stock")

    @router.message(F.text == "boom")
    async def boom(message: Message) -> None:
        raise RuntimeError("handler failed")

    return router


async def test_polling_round_trip(tg: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    dp.include_router(create_router())
    async with polling(dp, bot):
        await tg.user_says(CHAT, "/start")
        reply = tg.last_message(CHAT)
        assert reply.plain_text == "Hi! Pick one:"
        assert [b.callback_data for b in tg.buttons(reply)] == ["stock"]

        mark = tg.mark()
        await tg.user_presses(CHAT, "Show stock")
        answer = await tg.wait_for_call("answerCallbackQuery", after=mark, timeout=0)
        assert answer.params["text"] == "Loading…"
        assert tg.callbacks[0].answered
        edited = tg.last_message(CHAT)
        assert (edited.message_id, edited.plain_text, edited.edited) == (
            reply.message_id,
            "H100: 3 in stock",
            True,
        )
        assert edited.reply_markup is None
    assert [c.method for c in tg.calls if c.method != "getUpdates"] == [
        "getMe",
        "sendMessage",
        "answerCallbackQuery",
        "editMessageText",
    ]


async def test_polling_surfaces_handler_errors(tg: FakeTelegram, bot: Bot) -> None:
    dp = Dispatcher()
    dp.include_router(create_router())
    with pytest.raises(ExceptionGroup) as caught:
        async with polling(dp, bot):
            await tg.user_says(CHAT, "boom")
    assert caught.group_contains(RuntimeError, match="handler failed")
