"""The Bot API session pauses at close only where TLS connections need the time."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest
from aiogram import Bot
from aiogram.methods.base import Response
from aiogram.types import User

from bot.api_session import ApiSession
from tests.fakes.telegram import TOKEN, FakeTelegram


@pytest.mark.parametrize(
    ("url", "pauses"),
    [
        ("https://api.telegram.org", [0.25]),  # aiogram's wait for TLS shutdowns, kept
        ("http://127.0.0.1:8081", []),  # a local Bot API server: nothing to wait for
    ],
)
async def test_close_pauses_only_over_tls(
    monkeypatch: pytest.MonkeyPatch, url: str, pauses: list[float]
):
    session = ApiSession(url)
    client = await session.create_session()
    slept: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded(seconds: float) -> None:
        slept.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(asyncio, "sleep", recorded)
    await session.close()
    monkeypatch.undo()
    assert client.closed
    assert [s for s in slept if s > 0] == pauses
    assert session.api.base.startswith(url)


async def test_each_answer_model_outlives_a_collection():
    """aiogram reads an answer as Response[T]; pydantic caches that model weakly, and the
    session holds it so that the next answer does not build it again."""
    async with FakeTelegram() as telegram:
        session = ApiSession(telegram.base_url)
        bot = Bot(TOKEN, session=session)
        try:
            me = await bot.get_me()
        finally:
            await session.close()
    assert me.is_bot
    model = weakref.ref(Response[User])
    gc.collect()
    assert model() is not None
