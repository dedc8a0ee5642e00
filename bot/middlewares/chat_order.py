"""One chat's updates are handled one at a time, in the order Telegram sent them.

aiogram handles each update as a task of its own, so two messages from one person run side by
side: a backlog replayed after a restart could answer «/help» before «/start» had stored the
person, whenever its reads got ahead of the other's writes. The outermost update middleware
(registered first, before anything that awaits) takes a per-chat lock: tasks start in the
order their updates came and asyncio.Lock wakes its waiters first come, first served, so each
chat's updates run in order while different chats run side by side. A lock lives only while
a chat has updates in hand.

An update that waits its turn longer than TYPING_AFTER_S shows «печатает…» in its chat, as a
reply that waits at the limiter does (bot.delivery.session): the person sees the answer is
coming.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Chat, TelegramObject

from bot.delivery.session import TYPING_AFTER_S

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class ChatOrder(BaseMiddleware):
    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._in_hand: dict[int, int] = {}
        self._typing: set[asyncio.Task[None]] = set()  # held, or the loop may drop them

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        chat = data.get("event_chat")  # aiogram's UserContextMiddleware, which runs first
        if not isinstance(chat, Chat):
            return await handler(event, data)  # an inline query: no chat to keep in order
        lock = self._locks.setdefault(chat.id, asyncio.Lock())
        self._in_hand[chat.id] = self._in_hand.get(chat.id, 0) + 1
        bot = data.get("bot")
        timer = None
        if lock.locked() and isinstance(bot, Bot):
            loop = asyncio.get_running_loop()
            timer = loop.call_later(TYPING_AFTER_S, self._show_typing, bot, chat.id)
        try:
            async with lock:
                if timer is not None:
                    timer.cancel()
                return await handler(event, data)
        finally:
            if timer is not None:
                timer.cancel()
            self._in_hand[chat.id] -= 1
            if not self._in_hand[chat.id]:
                del self._in_hand[chat.id], self._locks[chat.id]

    def _show_typing(self, bot: Bot, chat_id: int) -> None:
        task = asyncio.ensure_future(_typing(bot, chat_id))
        self._typing.add(task)
        task.add_done_callback(self._typing.discard)

    def chats_in_hand(self) -> int:
        """Chats with updates being handled or waiting (their locks), for tests."""
        return len(self._locks)


async def _typing(bot: Bot, chat_id: int) -> None:
    with contextlib.suppress(TelegramAPIError):  # only a hint: the answer comes without it
        await bot.send_chat_action(chat_id, "typing")
