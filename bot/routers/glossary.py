"""«Что такое QLoRA?», "what is gradient checkpointing?": the term explained in a few lines,
with a /fit to try, instead of the command help (estimator.glossary decides what is asked)."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import Message

from estimator.glossary import term_asked
from estimator.i18n import Translator
from estimator.parsing.language import reply_language
from monitor.users import User


def create_router() -> Router:
    router = Router(name="glossary")
    # A sticker or a photo has no text: `F.text` first, or the filter would read None.
    router.message.register(on_term, F.text, F.text.func(lambda text: term_asked(text) is not None))
    return router


async def on_term(message: Message, translators: dict[str, Translator], user: User) -> None:
    text = message.text or ""
    term = term_asked(text)
    if term is None:  # the filter let it through: it asks about a term
        return
    language = reply_language(text, user.language)
    i18n = translators.get(language) or next(iter(translators.values()))
    await message.answer(i18n(f"glossary-{term.value}"))
