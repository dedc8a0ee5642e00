"""Loads the chat's stored settings (creating them on first contact) and picks its texts."""

from __future__ import annotations

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


def initial_language(language_code: str | None, default: Language) -> Language:
    """The language for a new chat, from the Telegram client's language when we have it."""
    if language_code:
        primary = language_code.split("-")[0].lower()
        if primary == "ru":
            return "ru"
        if primary == "en":
            return "en"
    return default


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
