"""Anything no other router took: a short pointer to /help instead of silence, and a toast for a
button press no handler knows (an old release's button, a stranger's data), which would
otherwise leave the client's spinner turning."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import CallbackQuery, Message

from bot.command_guess import guess_command
from estimator.i18n import Translator

# Long garbage is not echoed back in full.
_MAX_ECHO = 32


def create_router() -> Router:
    router = Router(name="fallback")
    router.message.register(on_unknown_command, F.text.startswith("/"))
    router.message.register(on_text, F.text)
    router.message.register(on_other)
    router.callback_query.register(on_unknown_button)
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


async def on_unknown_button(query: CallbackQuery, i18n: Translator) -> None:
    await query.answer(i18n("button-stale"))
