"""Replies under the same limits as alerts: an aiogram session middleware on the bot.

Every message the bot sends to a user outside the sender (answers to commands, charts, the
admin's notices) takes an urgent slot of the shared Limiter, so it goes before any waiting
alert and together they stay under Telegram's ~30 messages/s, and keeps its chat's one
message a second; a 429 is waited out and the call retried, up to a bound. A reply that will
wait longer than `TYPING_AFTER_S` first shows «печатает…» in the chat (sendChatAction, which
Telegram does not count as a message), so the person sees the answer coming. The sender paces
its own alerts (and marks its calls with `sending_alert`), so they pass straight through.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from contextvars import ContextVar
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.exceptions import TelegramAPIError, TelegramRetryAfter
from aiogram.methods import SendChatAction, TelegramMethod
from aiogram.methods.base import TelegramType

from bot.delivery.limiter import Limiter, Sleep

logger = logging.getLogger(__name__)

# True inside the sender's workers: their sends are alerts the sender has paced already.
sending_alert: ContextVar[bool] = ContextVar("sending_alert", default=False)

# Methods that post a message, which Telegram's flood limits count (Bot FAQ).
MESSAGE_METHODS = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "sendMediaGroup",
        "sendVideo",
        "sendAnimation",
        "sendAudio",
        "sendVoice",
        "sendSticker",
        "sendLocation",
        "sendPoll",
        "copyMessage",
        "forwardMessage",
    }
)
# A reply waits out at most this many 429s, each no longer than MAX_REPLY_WAIT_S: a user
# who waited longer has moved on, and the handler should not hold a task for minutes.
MAX_REPLY_RETRIES = 5
MAX_REPLY_WAIT_S = 30.0
# A reply expected to wait longer than this shows «печатает…» first: about the time a person
# waits before wondering whether the bot heard them. Telegram shows the action for 5 s
# (Bot API, sendChatAction) or until the message arrives.
TYPING_AFTER_S = 2.0


class SharedLimitMiddleware(BaseRequestMiddleware):
    def __init__(
        self,
        limiter: Limiter,
        *,
        max_retries: int = MAX_REPLY_RETRIES,
        max_wait: float = MAX_REPLY_WAIT_S,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._limiter = limiter
        self._max_retries = max_retries
        self._max_wait = max_wait
        self._sleep = sleep

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Any:
        if sending_alert.get():
            return await make_request(bot, method)
        limited = method.__api_method__ in MESSAGE_METHODS
        chat = getattr(method, "chat_id", None)
        chat_id = chat if isinstance(chat, int) else None
        retries = 0
        if (
            limited
            and chat_id is not None
            and self._limiter.expected_wait(chat_id) > TYPING_AFTER_S
        ):
            with contextlib.suppress(TelegramAPIError):
                await bot(SendChatAction(chat_id=chat_id, action="typing"))
        while True:
            try:
                if not limited:
                    return await make_request(bot, method)
                async with self._limiter.slot(chat_id, urgent=True):
                    return await make_request(bot, method)
            except TelegramRetryAfter as error:
                retries += 1
                if retries > self._max_retries or error.retry_after > self._max_wait:
                    raise
                if chat_id is not None:
                    self._limiter.hold_chat(chat_id, error.retry_after)
                logger.info(
                    "429 on %s for chat %s: retrying in %s s",
                    method.__api_method__,
                    chat_id,
                    error.retry_after,
                )
                await self._sleep(error.retry_after)
