"""The leader's long poll, fenced by its lease: no getUpdates goes out once the lease ran out.

A leader frozen past its lease (storage.leader) wakes with a getUpdates loop that would poll
again before the election's own task notices; another replica polls already, so the two would
take each other's updates and both get 409s. This session middleware asks the lease first and
refuses the call; aiogram's polling loop backs off, and the election stops the polling duty.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType


class LeaseLostError(Exception):
    """This replica's leader lease ran out: what only the leader does must not go out."""


class PollingFence(BaseRequestMiddleware):
    def __init__(self, leading: Callable[[], bool]) -> None:
        self._leading = leading
        self.refused = 0  # getUpdates calls held back, for tests and logs

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Any:
        if method.__api_method__ == "getUpdates" and not self._leading():
            self.refused += 1
            raise LeaseLostError("the leader lease ran out: not polling")
        return await make_request(bot, method)
