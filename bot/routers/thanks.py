"""«Спасибо», "thanks": a short reply in kind, not the command help the catch-all gives."""

from __future__ import annotations

import re

from aiogram import F, Router
from aiogram.types import Message

from estimator.i18n import Translator
from estimator.parsing.language import reply_language
from monitor.users import User

# A message of thanks and nothing else: these words, their intensifiers, emoji, punctuation.
_THANKS = frozenset(
    {
        "спасибо",
        "спасибки",
        "спс",
        "благодарю",
        "благодарим",
        "пасиб",
        "пасибо",
        "мерси",
        "thanks",
        "thank",
        "thx",
        "ty",
        "cheers",
    }
)
_ALONG = frozenset(
    {
        "большое",
        "огромное",
        "вам",
        "тебе",
        "бро",
        "очень",
        "за",
        "помощь",
        "ответ",
        "you",
        "so",
        "much",
        "a",
        "lot",
        "very",
        "for",
        "the",
        "help",
        "answer",
        "again",
        "ещё",
        "еще",
        "раз",
    }
)
_WORD = re.compile(r"[^\W\d_]+")
MAX_TEXT = 80


def is_thanks(text: str) -> bool:
    """Whether `text` only thanks («Спасибо большое!», "thanks a lot 🙏"): a question that
    also thanks («спасибо, а на 4090?») is not, and goes on to the routers that answer it."""
    if len(text) > MAX_TEXT or re.search(r"\d|\?", text):
        return False
    words = [word.lower() for word in _WORD.findall(text)]
    return any(w in _THANKS for w in words) and all(w in _THANKS or w in _ALONG for w in words)


def create_router() -> Router:
    router = Router(name="thanks")
    router.message.register(on_thanks, F.text.func(is_thanks))
    return router


async def on_thanks(message: Message, translators: dict[str, Translator], user: User) -> None:
    language = reply_language(message.text or "", user.language)
    i18n = translators.get(language) or next(iter(translators.values()))
    await message.answer(i18n("chat-thanks"))
