"""Per-user flood control: at most one answer per interval, and one notice per flood.

A flood is a run of updates from one user that arrive less than `interval` apart. Updates that
find the user's answer slot still busy are dropped. The first time a flood has dropped
something, the next free slot is spent on a single notice instead of an answer, so the user
learns why they are not being answered and never receives more than one message per interval.
Callback queries have their own slot and are answered with a toast, never with a message.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import CallbackQuery, Message, TelegramObject
from aiogram.types import User as TelegramUser

from bot.i18n import Translator

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]

# Forget users who have been quiet this long, so the table does not grow with every user ever.
_FORGET_AFTER_S = 300.0
_PRUNE_EVERY = 1024


@dataclass
class _Flow:
    last_arrival: float
    last_answer: float
    dropped: int = 0
    warned: bool = False


class ThrottlingMiddleware(BaseMiddleware):
    def __init__(self, interval: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._flows: dict[tuple[str, int], _Flow] = {}
        self._seen = 0

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        sender: TelegramUser | None = data.get("event_from_user")
        if sender is None or self._interval <= 0:
            return await handler(event, data)
        now = self._clock()
        self._maybe_prune(now)
        key = (type(event).__name__, sender.id)
        flow = self._flows.get(key)
        if flow is None:
            self._flows[key] = _Flow(last_arrival=now, last_answer=now)
            return await handler(event, data)

        calm = now - flow.last_arrival >= self._interval
        flow.last_arrival = now
        if calm:
            flow.dropped, flow.warned = 0, False
        if now - flow.last_answer < self._interval:
            flow.dropped += 1
            if isinstance(event, CallbackQuery):
                await event.answer(self._text(data, "throttled-callback"))
            return None
        flow.last_answer = now
        if flow.dropped and not flow.warned:
            flow.warned = True
            if isinstance(event, Message):
                await event.answer(self._text(data, "throttled"))
                return None
        return await handler(event, data)

    def _text(self, data: dict[str, Any], key: str) -> str:
        translator: Translator | None = data.get("i18n")
        return translator(key) if translator else key

    def _maybe_prune(self, now: float) -> None:
        self._seen += 1
        if self._seen % _PRUNE_EVERY:
            return
        stale = [
            key for key, flow in self._flows.items() if now - flow.last_arrival > _FORGET_AFTER_S
        ]
        for key in stale:
            del self._flows[key]
