"""Replies to the last sizing answer: «а с qlora?», «а на 2080 ti?», «dataset=20k», «уложусь
в 1000 ₽?». Each is answered with the sizing adjusted (estimator.followup), in the language
of the reply, or, where the reply has no words of a language (`dataset=20k`, «h100?»), in
the language of the answer it follows.

Only a chat with a remembered sizing (bot.conversation) gets here, and only with a text that
changes it and says nothing else: a price question, chatter, or a new question naming a
model («13b lora на 4090») goes on to the routers after this one.
"""

from __future__ import annotations

from typing import Any

from aiogram import F, Router
from aiogram.filters import Filter
from aiogram.types import Message

from bot.conversation import Conversations, as_language
from bot.ports import BotStore
from bot.views.sizing_errors import error_text
from bot.views.sizing_reply import reply_with_answer
from estimator.followup import MAX_LENGTH, apply_followup, is_new_question, read_changes
from estimator.i18n import Translator
from estimator.parse import ParsedQuery, QueryError
from estimator.parsing.language import reply_language


class FollowUp(Filter):
    """Matches a change of the chat's last sizing; hands the adjusted sizing (or what is
    wrong with the reply's key=value pairs) and the language to answer in to the handler."""

    async def __call__(
        self, message: Message, conversations: Conversations
    ) -> bool | dict[str, Any]:
        text = message.text
        if not text or text.startswith("/") or len(text) > MAX_LENGTH:
            return False
        # The text first: most messages are no change at all, and cost no database read.
        if read_changes(text) is None or is_new_question(text):
            return False
        last = await conversations.last(message.chat.id)
        if last is None:
            return False
        previous, language = last
        answer_in = as_language(reply_language(text, language))
        try:
            adjusted: ParsedQuery | QueryError | None = apply_followup(previous, text)
        except QueryError as error:
            adjusted = error
        if adjusted is None:
            return False
        return {"followup": adjusted, "followup_language": answer_in}


def create_router() -> Router:
    router = Router(name="followup")
    router.message.register(on_followup, F.text, FollowUp())
    return router


async def on_followup(
    message: Message,
    followup: ParsedQuery | QueryError,
    followup_language: str,
    translators: dict[str, Translator],
    i18n: Translator,
    store: BotStore,
    conversations: Conversations,
) -> None:
    local = translators.get(followup_language, i18n)
    if isinstance(followup, QueryError):
        await message.answer(error_text(local, followup))
        return
    # The adjusted sizing is the one the next reply changes.
    await conversations.remember(message.chat.id, followup, followup_language)
    await reply_with_answer(message, followup, followup_language, local, store)
