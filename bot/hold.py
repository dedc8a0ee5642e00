"""Messages held while storage is down, to be answered when it returns (bot.replay), and the
long poll that never confirms one of them to Telegram before it is handled.

A message whose handler failed because storage was unavailable (storage.unavailable) waits
here, in its chat's order; a later message of the same chat waits behind it, so a chat's
answers come in the order they were asked. The queue is bounded: past HOLD_LIMIT a message
gets the apology instead, never silence.

Telegram forgets an update once getUpdates is called with an offset above its id. While
anything is held, `HeldOffset` sends the lowest held id as the offset instead of aiogram's, so
what is held stays Telegram's too: if this replica dies or stops leading meanwhile, Telegram
gives those updates to the next poller, and this replica lets go of them (`release_unconfirmed`).
Only the updates confirmed before their handlers failed (one batch, already in flight when
storage went away) live in this process alone.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.client.session.middlewares.base import BaseRequestMiddleware, NextRequestMiddlewareType
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import Update

# Held messages across all chats: past it, the apology (a burst during an outage of minutes).
HOLD_LIMIT = 1000
# While something is held, Telegram answers getUpdates at once (the held updates are still
# pending there): the poll waits this long between calls instead of spinning.
HELD_POLL_S = 1.0

Sleep = Callable[[float], Awaitable[None]]


@dataclass
class HoldQueue:
    limit: int = HOLD_LIMIT
    # chat -> its held updates, oldest first; chats in the order their first one was held.
    _chats: OrderedDict[int, deque[Update]] = field(default_factory=OrderedDict)
    # Chats told that their answer will follow, until their last held message is answered.
    _told: set[int] = field(default_factory=set)
    # Updates answered from the hold whose id Telegram may still deliver again (not confirmed).
    _answered: OrderedDict[int, None] = field(default_factory=OrderedDict)
    # Every update_id below this was confirmed to Telegram by a getUpdates offset.
    confirmed_below: int = 0
    _nonempty: asyncio.Event = field(default_factory=asyncio.Event)

    def __len__(self) -> int:
        return sum(len(updates) for updates in self._chats.values())

    def holds_chat(self, chat_id: int) -> bool:
        return chat_id in self._chats

    def knows(self, update_id: int) -> bool:
        """Held now, or answered from the hold: a second delivery of it is not handled again."""
        if update_id in self._answered:
            return True
        return any(
            update.update_id == update_id for held in self._chats.values() for update in held
        )

    def hold(self, chat_id: int, update: Update) -> bool:
        """Keep `update` behind the chat's others; False when the queue is full."""
        if len(self) >= self.limit:
            return False
        self._chats.setdefault(chat_id, deque()).append(update)
        self._nonempty.set()
        return True

    def first_telling(self, chat_id: int) -> bool:
        """True once per chat and outage: the chat is to be told now that its answer follows."""
        if chat_id in self._told:
            return False
        self._told.add(chat_id)
        return True

    def heads(self) -> list[tuple[int, Update]]:
        """Each chat's oldest held update, chats in the order they were first held."""
        return [(chat_id, updates[0]) for chat_id, updates in self._chats.items()]

    def answered(self, chat_id: int, update: Update) -> None:
        """The chat's oldest update was handled (or given up on): the next one is its head."""
        updates = self._chats.get(chat_id)
        if not updates or updates[0] is not update:
            return
        updates.popleft()
        if update.update_id >= self.confirmed_below:
            self._answered[update.update_id] = None
            while len(self._answered) > self.limit:
                self._answered.popitem(last=False)
        if not updates:
            del self._chats[chat_id]
            self._told.discard(chat_id)
        if not self._chats:
            self._nonempty.clear()

    def lowest_held(self) -> int | None:
        ids = [update.update_id for updates in self._chats.values() for update in updates]
        return min(ids) if ids else None

    def confirm(self, offset: int) -> None:
        """Telegram was sent `offset`: every update below it is confirmed there."""
        self.confirmed_below = max(self.confirmed_below, offset)
        for update_id in [key for key in self._answered if key < self.confirmed_below]:
            del self._answered[update_id]

    def release_unconfirmed(self) -> int:
        """Let go of the held updates Telegram still keeps (this replica stops polling: the
        next poller gets them); returns how many."""
        released = 0
        for chat_id in list(self._chats):
            kept = deque(u for u in self._chats[chat_id] if u.update_id < self.confirmed_below)
            released += len(self._chats[chat_id]) - len(kept)
            if kept:
                self._chats[chat_id] = kept
            else:
                del self._chats[chat_id]
                self._told.discard(chat_id)
        if not self._chats:
            self._nonempty.clear()
        return released

    async def wait_nonempty(self) -> None:
        await self._nonempty.wait()


class HeldOffset(BaseRequestMiddleware):
    """A session middleware on getUpdates: while updates are held, ask from the lowest held
    one (confirming nothing from there on), once every HELD_POLL_S."""

    def __init__(self, queue: HoldQueue, sleep: Sleep = asyncio.sleep) -> None:
        self._queue = queue
        self._sleep = sleep

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Any:
        if method.__api_method__ != "getUpdates":
            return await make_request(bot, method)
        offset: int | None = getattr(method, "offset", None)
        lowest = self._queue.lowest_held()
        if lowest is not None:
            await self._sleep(HELD_POLL_S)
            lowest = self._queue.lowest_held()  # the replay may have answered them meanwhile
        if lowest is not None and (offset is None or offset > lowest):
            # A copy: aiogram keeps its own offset for when the hold is empty again.
            method, offset = method.model_copy(update={"offset": lowest}), lowest
        if offset is not None:
            self._queue.confirm(offset)
        return await make_request(bot, method)
