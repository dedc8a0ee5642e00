"""Commands that are announced in /help but arrive in later releases answer politely."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot.i18n import Translator

UPCOMING_COMMANDS = {
    "watch": "feature-watch",
    "subs": "feature-subscriptions",
    "history": "feature-history",
}


def create_router() -> Router:
    router = Router(name="soon")
    router.message.register(on_upcoming, Command(*UPCOMING_COMMANDS))
    return router


async def on_upcoming(message: Message, command: CommandObject, i18n: Translator) -> None:
    feature = i18n(UPCOMING_COMMANDS[command.command.lower()])
    await message.answer(i18n("feature-soon", feature=feature))
