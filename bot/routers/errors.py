"""The dispatcher-wide error handler: log the traceback, apologise to the user."""

from __future__ import annotations

import contextlib
import logging

from aiogram import Bot, Router
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import Chat, ErrorEvent
from aiogram.types import User as TelegramUser

from bot.middlewares.user import reply_language
from bot.ports import BotStore
from estimator.i18n import Translator
from monitor.users import Language

logger = logging.getLogger("gpuradar.errors")

# A handler's reply failed for Telegram's reasons, after bot.delivery.session's retries.
UNDELIVERABLE = (
    TelegramRetryAfter,
    TelegramNetworkError,
    TelegramServerError,
    TelegramForbiddenError,
)


def create_router() -> Router:
    router = Router(name="errors")
    router.errors.register(on_error)
    return router


async def on_error(
    event: ErrorEvent,
    bot: Bot,
    store: BotStore,
    translators: dict[Language, Translator],
    default_language: Language,
    event_chat: Chat | None = None,
    event_from_user: TelegramUser | None = None,
) -> None:
    if isinstance(event.exception, UNDELIVERABLE):
        # Telegram, not our code: the reply could not go out (flooded past the session's
        # retries, unreachable, or blocked meanwhile). One line; an apology would fail too.
        logger.warning(
            "reply to chat %s not delivered: %s: %s",
            event_chat.id if event_chat else "?",
            type(event.exception).__name__,
            event.exception.message,
        )
        return
    # The log formatter redacts the bot token from every record, tracebacks included.
    logger.error("handler failed on update %s", event.update.update_id, exc_info=event.exception)
    callback = event.update.callback_query
    if callback is not None:
        # Stop the button's spinner; it may already have been answered before the failure.
        with contextlib.suppress(TelegramAPIError):
            await bot.answer_callback_query(callback.id)
    if event_chat is None:
        return
    language = await reply_language(store, event_chat.id, event_from_user, default_language)
    try:
        await bot.send_message(event_chat.id, translators[language]("error-apology"))
    except TelegramAPIError:
        logger.exception("could not send the apology to chat %s", event_chat.id)
