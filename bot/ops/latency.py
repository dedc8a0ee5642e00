"""An outer middleware on dispatcher.update that times the handling of every update."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject, Update
from aiogram.types.update import UpdateTypeLookupError

from bot.ops.metrics import Metrics


class LatencyMiddleware(BaseMiddleware):
    def __init__(self, metrics: Metrics, clock: Callable[[], float] = time.perf_counter) -> None:
        self._metrics = metrics
        self._clock = clock

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        started = self._clock()
        try:
            return await handler(event, data)
        finally:
            self._metrics.observe_update(_update_type(event), self._clock() - started)


def _update_type(event: TelegramObject) -> str:
    if not isinstance(event, Update):
        return "unknown"
    try:
        return event.event_type
    except UpdateTypeLookupError:  # a kind of update this aiogram does not know yet
        return "unknown"
