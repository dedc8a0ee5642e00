"""Shared helpers for the fake Telegram's own tests."""

from typing import Any

import aiohttp
from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)

from bot.fake_telegram import (
    FakeBotApi,
)
from tests.fakes.telegram import TOKEN

CHAT = 42
ERR = "Bad Request: can't parse entities: "


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def keyboard(*buttons: InlineKeyboardButton) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[list(buttons)])


async def raw_call(
    api: FakeBotApi, method: str, *, token: str = TOKEN, **kwargs: Any
) -> tuple[int, dict[str, Any]]:
    """POST straight to the fake; kwargs go to aiohttp (data=, json=, ...)."""
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{api.base_url}/bot{token}/{method}", **kwargs) as response,
    ):
        return response.status, await response.json()


async def wait_until_polling(api: FakeBotApi) -> None:
    await api.wait_until(lambda: True if api.updates.waiting else None, what="a held getUpdates")
