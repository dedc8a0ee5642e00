"""/help: every command with an example."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from estimator.i18n import Translator


def create_router() -> Router:
    router = Router(name="help")
    router.message.register(on_help, Command("help"))
    return router


async def on_help(message: Message, i18n: Translator) -> None:
    await message.answer(i18n("help"))
