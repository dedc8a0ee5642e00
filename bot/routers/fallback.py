"""Anything no other router took: a short pointer to /help instead of silence."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import Message

from bot.i18n import Translator

# Long garbage is not echoed back in full.
_MAX_ECHO = 32


def create_router() -> Router:
    router = Router(name="fallback")
    router.message.register(on_unknown_command, F.text.startswith("/"))
    router.message.register(on_text, F.text)
    router.message.register(on_other)
    return router


async def on_unknown_command(message: Message, i18n: Translator) -> None:
    command = (message.text or "").split(maxsplit=1)[0][:_MAX_ECHO]
    await message.answer(i18n("unknown-command", command=command))


async def on_text(message: Message, i18n: Translator) -> None:
    await message.answer(i18n("unknown-text"))


async def on_other(message: Message, i18n: Translator) -> None:
    await message.answer(i18n("unsupported-message"))
