"""Anything no other router took: a short pointer to /help instead of silence."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import Message

from bot.command_guess import guess_command
from estimator.i18n import Translator

# Long garbage is not echoed back in full.
_MAX_ECHO = 32


def create_router() -> Router:
    router = Router(name="fallback")
    router.message.register(on_unknown_command, F.text.startswith("/"))
    router.message.register(on_text, F.text)
    router.message.register(on_other)
    return router


async def on_unknown_command(message: Message, i18n: Translator) -> None:
    text = message.text or ""
    command = text.split(maxsplit=1)[0][:_MAX_ECHO]
    guess = guess_command(text)
    if guess is not None:
        await message.answer(i18n("unknown-command-guess", command=command, guess=guess))
        return
    await message.answer(i18n("unknown-command", command=command))


async def on_text(message: Message, i18n: Translator) -> None:
    await message.answer(i18n("unknown-text"))


async def on_other(message: Message, i18n: Translator) -> None:
    await message.answer(i18n("unsupported-message"))
