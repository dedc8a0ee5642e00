"""«Что такое QLoRA?», "what is gradient checkpointing?": the term explained in a few lines,
with a /fit to try, instead of the command help (estimator.glossary decides what is asked)."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import Message

from estimator.glossary import Term, term_asked
from estimator.i18n import Translator
from estimator.parsing.language import reply_language
from monitor.users import User


def create_router() -> Router:
    router = Router(name="glossary")
    router.message.register(on_term, _asks_term)
    return router


def _asks_term(message: Message) -> dict[str, Term] | bool:
    """The term a message asks about, handed to the handler (aiogram passes a filter's dict
    on), so it is read once; a sticker or a photo has no text and asks nothing."""
    term = term_asked(message.text) if message.text else None
    return {"term": term} if term is not None else False


async def on_term(
    message: Message, term: Term, translators: dict[str, Translator], user: User
) -> None:
    language = reply_language(message.text or "", user.language)
    i18n = translators.get(language) or next(iter(translators.values()))
    await message.answer(i18n(f"glossary-{term.value}"))
