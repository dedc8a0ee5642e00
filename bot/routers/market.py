"""General questions in free text: which card is faster, where it is cheaper, what is in stock
now, hourly or monthly rent. Answered from the live offers and the guides' knowledge; anything
else gets the commands that would answer it, with the GPU or model already filled in. Sizing
questions never reach here (the /fit router takes them first).
"""

from __future__ import annotations

from aiogram import F, Router
from aiogram.types import Message

from bot.conversation import Conversations
from bot.ports import BotStore
from bot.usecases.market import market_reply
from estimator.i18n import Translator
from estimator.parsing.language import reply_language
from monitor.users import User

MAX_TEXT = 300


def create_router() -> Router:
    router = Router(name="market")
    router.message.register(on_text, F.text, ~F.text.startswith("/"))
    return router


async def on_text(
    message: Message,
    translators: dict[str, Translator],
    store: BotStore,
    user: User,
    conversations: Conversations,
) -> None:
    text = (message.text or "")[:MAX_TEXT]
    language = reply_language(text, user.language)  # «?», «550»: the user's setting
    i18n = translators.get(language) or next(iter(translators.values()))
    reply = await market_reply(store, conversations, message.chat.id, text, i18n, user.timezone)
    await message.answer(reply)
