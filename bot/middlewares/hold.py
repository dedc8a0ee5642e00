"""Messages that storage being down would lose are held, and the person told once.

An outer middleware on the dispatcher's updates, inside aiogram's error middleware: a message
whose handling failed with a storage-unavailable error (the app passes storage.unavailable's)
goes to the hold queue (bot.hold) and its chat is told, once until it is answered, in its
language, that the answer will follow; bot.replay feeds it through the dispatcher again when
storage is back. A later message of a chat with messages held waits behind them. Only
messages are held: a button press gets its toast and the apology (bot.routers.errors), as a
callback query cannot be answered minutes later.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import TelegramObject, Update
from aiogram.types import User as TelegramUser

from bot.hold import HoldQueue
from bot.middlewares.user import reply_language
from bot.ports import BotStore
from estimator.i18n import Translator
from monitor.users import Language

logger = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]

# The keyword bot.replay feeds a held update with: "retry" (held again if storage fails
# again) or "last" (this try's failure goes to the error handler: no more holding).
REPLAY_KEY: Final = "held_replay"
# What a replayed update returns when storage failed it again.
STILL_UNAVAILABLE: Final = object()


class HoldMiddleware(BaseMiddleware):
    def __init__(
        self,
        queue: HoldQueue,
        unavailable: tuple[type[BaseException], ...],
        store: BotStore,
        translators: dict[Language, Translator],
        default_language: Language,
    ) -> None:
        self._queue = queue
        self._unavailable = unavailable
        self._store = store
        self._translators = translators
        self._default_language = default_language

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, Update) or event.message is None:
            return await handler(event, data)
        chat_id = event.message.chat.id
        replay = data.get(REPLAY_KEY)
        if replay is None:
            if self._queue.knows(event.update_id):
                return None  # delivered again while held, or answered from the hold already
            if self._queue.holds_chat(chat_id) and self._queue.hold(chat_id, event):
                return None  # behind the chat's held messages, to be answered in order
        try:
            return await handler(event, data)
        except self._unavailable:
            if replay == "retry":
                return STILL_UNAVAILABLE
            if replay is not None or not self._queue.hold(chat_id, event):
                raise  # given up on, or no room: the error handler apologises
        logger.warning("storage unavailable: update %s held", event.update_id)
        if self._queue.first_telling(chat_id):
            await self._tell(data["bot"], chat_id, data.get("event_from_user"))
        return None

    async def _tell(self, bot: Bot, chat_id: int, sender: TelegramUser | None) -> None:
        language = await reply_language(self._store, chat_id, sender, self._default_language)
        try:
            await bot.send_message(chat_id, self._translators[language]("held-notice"))
        except TelegramAPIError as error:
            logger.warning("could not tell chat %s its answer follows: %s", chat_id, error)
