"""Fixtures for the fake Telegram: a started server and a real aiogram Bot pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiogram import Bot

from tests.fakes.telegram import FakeTelegram, make_bot


@pytest.fixture
async def tg() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as fake:
        yield fake


@pytest.fixture
async def bot(tg: FakeTelegram) -> AsyncIterator[Bot]:
    async with make_bot(tg) as client:
        yield client
