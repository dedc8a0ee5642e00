"""Telegram's limits for every message the bot sends: alerts and replies share one Limiter.

* Overall: `rate` messages per second, as a GCRA (the "virtual scheduling" form of a token
  bucket) with a tolerance of `burst - 1` messages. In any window of T seconds at most
  `burst + rate * T` messages start, so `rate + burst <= 30` keeps every second under
  Telegram's ~30 messages/s (research/telegram.md, §3). The tolerance also absorbs the event
  loop waking a waiter a little late, which a burst of exactly 1 would turn into lost rate.
* Per chat: one alert in flight, and the next one `per_chat_interval` after Telegram
  answered the previous message to that chat (Telegram's "about one message per second" in
  a chat), whatever the latency. Replies do not wait for that gap: Telegram tolerates short
  bursts in a private chat, and bot.middlewares.throttling already holds a user to one
  answer per second; but a reply counts, so the next alert to that chat waits after it.
* A flood pause (`pause`) holds every message; `hold_chat` holds one chat.
* Urgent messages (a user's reply) take the next free slot before any alert waiting for it.

The clock and the sleep are injected: tests move time instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

Sleep = Callable[[float], Awaitable[None]]

# How often a message for a chat that has one in flight looks again.
_IN_FLIGHT_POLL_S = 0.02
_PRUNE_EVERY = 1024


class Limiter:
    def __init__(
        self,
        rate: float,
        burst: float = 1.0,
        *,
        per_chat_interval: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        self.rate = rate
        self.burst = burst
        self.per_chat_interval = per_chat_interval
        self._interval = 1.0 / rate
        self._tolerance = (burst - 1.0) / rate
        self._clock = clock
        self._sleep = sleep
        self._next = -math.inf  # GCRA's theoretical arrival time of the next message
        self._paused_until = -math.inf
        self._urgent_waiting = 0
        self._in_flight: set[int] = set()
        self._ready_at: dict[int, float] = {}  # chat -> when it may get its next message
        self._slots = 0

    # --- state --------------------------------------------------------------------------

    def pause(self, seconds: float) -> None:
        """Hold every message for `seconds` (a flood 429 covering the whole bot)."""
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    def paused_for(self) -> float:
        return max(0.0, self._paused_until - self._clock())

    def hold_chat(self, chat_id: int, seconds: float) -> None:
        """Nothing to this chat for `seconds` (its own 429)."""
        until = self._clock() + seconds
        self._ready_at[chat_id] = max(self._ready_at.get(chat_id, until), until)

    def busy_chats(self) -> set[int]:
        """Chats that would wait now: one message in flight, or messaged a moment ago."""
        now = self._clock()
        held = {chat for chat, at in self._ready_at.items() if at > now}
        return held | self._in_flight

    # --- taking a turn ------------------------------------------------------------------

    @asynccontextmanager
    async def slot(self, chat_id: int | None, *, urgent: bool = False) -> AsyncIterator[None]:
        """Wait for this chat's turn and the next free overall slot; send inside the block.

        The chat's interval counts from the block's end, i.e. from Telegram's answer.
        """
        if chat_id is None:
            await self._take(urgent)
            yield
            return
        if not urgent:
            await self._wait_for_chat(chat_id)
        self._in_flight.add(chat_id)
        try:
            await self._take(urgent)
            yield
        finally:
            self._in_flight.discard(chat_id)
            self._ready_at[chat_id] = max(
                self._ready_at.get(chat_id, -math.inf), self._clock() + self.per_chat_interval
            )
            self._maybe_prune()

    async def _wait_for_chat(self, chat_id: int) -> None:
        while True:
            if chat_id in self._in_flight:
                await self._sleep(_IN_FLIGHT_POLL_S)
                continue
            wait = self._ready_at.get(chat_id, -math.inf) - self._clock()
            if wait <= 0:
                return
            await self._sleep(wait)

    async def _take(self, urgent: bool) -> None:
        if urgent:
            self._urgent_waiting += 1
        try:
            while True:
                now = self._clock()
                wait = max(self._next - self._tolerance - now, self._paused_until - now)
                if wait <= 0 and (urgent or not self._urgent_waiting):
                    self._next = max(self._next, now) + self._interval
                    return
                # An alert that finds a reply waiting lets it have this slot and tries the next.
                await self._sleep(wait if wait > 0 else self._interval)
        finally:
            if urgent:
                self._urgent_waiting -= 1

    def _maybe_prune(self) -> None:
        self._slots += 1
        if self._slots % _PRUNE_EVERY:
            return
        now = self._clock()
        for chat in [chat for chat, at in self._ready_at.items() if at <= now]:
            del self._ready_at[chat]
