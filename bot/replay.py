"""Held messages answered when storage returns: every PROBE_EVERY_S while something is held,
probe storage; once it answers, feed each chat's held updates through the dispatcher again,
oldest first, the chats side by side.

Every replica runs this for its whole life, leader or not: what it holds was handed to it
(confirmed to Telegram, or posted to its webhook) and is nobody else's. A message that
storage fails again goes back to waiting; one that fails with storage answering the probe
each time is given up on after MAX_TRIES (its last failure reaches the error handler, which
apologises), so a bug that looks like an outage cannot hold a chat forever.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from aiogram import Bot, Dispatcher
from aiogram.types import Update

from bot.hold import HoldQueue, Sleep
from bot.middlewares.hold import REPLAY_KEY, STILL_UNAVAILABLE

logger = logging.getLogger(__name__)

# How often a replica with held messages asks whether storage is back.
PROBE_EVERY_S = 1.0
PROBE_TIMEOUT_S = 3.0
# Tries of one held update while the probe says storage is up.
MAX_TRIES = 3

Probe = Callable[[], Awaitable[None]]


class Replayer:
    def __init__(
        self,
        queue: HoldQueue,
        dispatcher: Dispatcher,
        bot: Bot,
        probe: Probe,
        unavailable: tuple[type[BaseException], ...],
        *,
        every_s: float = PROBE_EVERY_S,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._queue = queue
        self._dispatcher = dispatcher
        self._bot = bot
        self._probe = probe
        self._unavailable = unavailable
        self._every_s = every_s
        self._sleep = sleep
        self._tries: dict[int, int] = {}  # update_id -> failed tries with storage up

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await _first(self._queue.wait_nonempty(), stop.wait())
            if stop.is_set():
                return
            if not await self.replay_once():
                await _first(self._sleep(self._every_s), stop.wait())

    async def replay_once(self) -> bool:
        """Probe, and answer what is held while storage lets us; True when the hold emptied."""
        try:
            async with asyncio.timeout(PROBE_TIMEOUT_S):
                await self._probe()
        except self._unavailable:
            return False
        while heads := self._queue.heads():
            # Chats side by side (the limiter paces their replies), each chat's in its order.
            answered = await asyncio.gather(*(self._answer(chat, update) for chat, update in heads))
            if not all(answered):
                return False
        return True

    async def _answer(self, chat_id: int, update: Update) -> bool:
        """Feed one held update; False when storage failed it again."""
        tries = self._tries.get(update.update_id, 0) + 1
        replay = "last" if tries >= MAX_TRIES else "retry"
        try:
            result = await self._dispatcher.feed_update(self._bot, update, **{REPLAY_KEY: replay})
        except Exception:  # the error handler logged it and apologised
            result = None
        if result is STILL_UNAVAILABLE:
            self._tries[update.update_id] = tries
            return False
        self._tries.pop(update.update_id, None)
        self._queue.answered(chat_id, update)
        logger.info("held update %s answered", update.update_id)
        return True


async def _first(*waits: Awaitable[object]) -> None:
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
