"""Loads the chat's stored settings (creating them on first contact) and picks its texts."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import Chat, TelegramObject
from aiogram.types import User as TelegramUser

from bot.ports import BotStore
from estimator.i18n import Translator
from monitor.users import Language

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]

logger = logging.getLogger(__name__)

# How long a word to a chat whose handler failed waits for its stored language.
LANGUAGE_READ_S = 1.0


def initial_language(language_code: str | None, default: Language) -> Language:
    """The language for a new chat, from the Telegram client's language when we have it."""
    if language_code:
        primary = language_code.split("-")[0].lower()
        if primary == "ru":
            return "ru"
        if primary == "en":
            return "en"
    return default


async def reply_language(
    store: BotStore, chat_id: int, sender: TelegramUser | None, default: Language
) -> Language:
    """The chat's stored language; when storage cannot say (it is what failed), the one a new
    chat would get (the Telegram client's), never the bot's default for someone who reads
    English."""
    language = initial_language(sender.language_code if sender else None, default)
    try:
        async with asyncio.timeout(LANGUAGE_READ_S):
            user = await store.get_user(chat_id)
    except Exception as error:
        logger.warning("could not read chat %s's language: %s", chat_id, error)
        return language
    return language if user is None else user.language


class UserMiddleware(BaseMiddleware):
    """Injects `user` (monitor.users.User) and `i18n` (Translator) into handler data."""

    def __init__(
        self,
        store: BotStore,
        translators: Mapping[Language, Translator],
        default_language: Language,
        default_timezone: str,
    ) -> None:
        self._store = store
        self._translators = translators
        self._default_language = default_language
        self._default_timezone = default_timezone

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        chat: Chat | None = data.get("event_chat")
        if chat is None:
            return await handler(event, data)
        sender: TelegramUser | None = data.get("event_from_user")
        language = initial_language(
            sender.language_code if sender else None, self._default_language
        )
        user = await self._store.ensure_user(
            chat.id, language=language, timezone=self._default_timezone
        )
        if user.blocked:
            # They are writing to us, so they have unblocked the bot: resume what the 403
            # paused.
            await self._store.unblock(chat.id)
            user = replace(user, blocked=False)
        data["user"] = user
        data["i18n"] = self._translators[user.language]
        return await handler(event, data)
