"""Telegram's limits for every message the bot sends: alerts and replies share one Limiter.

* Overall: `rate` messages per second, as a GCRA (the "virtual scheduling" form of a token
  bucket) with a tolerance of `burst - 1` messages. In any window of T seconds at most
  `burst + rate * T` messages start, so `rate + burst <= 30` keeps every second under
  Telegram's ~30 messages/s (docs/telegram.md). The tolerance also absorbs the event
  loop waking a waiter a little late, which a burst of exactly 1 would turn into lost rate.
* Per chat: one message in flight, and the next one `per_chat_interval` after Telegram
  answered the previous message to that chat (Telegram's "about one message per second" in
  a chat), whatever the latency. Replies keep that gap too: a person answered for several
  messages in a row (bot.middlewares.throttling allows a few), or a backlog of theirs after
  a restart, would otherwise draw the chat's 429s. `expected_wait` tells a reply how long it
  will wait, so the chat can show «печатает…» meanwhile (bot.delivery.session).
* A flood pause (`pause`) holds every message; `hold_chat` holds one chat.
* Urgent messages (a user's reply) take the next free slot before any alert waiting for it.

The clock and the sleep are injected: tests move time instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

Sleep = Callable[[float], Awaitable[None]]

# Telegram: "avoid sending more than one message per second" to one chat
# (core.telegram.org/bots/faq, "My bot is hitting limits"). The one owner of that gap: the
# sender hands it to the outbox's claim too, where replicas sharing PostgreSQL keep it.
CHAT_GAP_S = 1.0
# How often a message for a chat that has one in flight looks again.
_IN_FLIGHT_POLL_S = 0.02
_PRUNE_EVERY = 1024


class Limiter:
    def __init__(
        self,
        rate: float,
        burst: float = 1.0,
        *,
        per_chat_interval: float = CHAT_GAP_S,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be > 0 and burst >= 1")
        self.rate = rate
        self.burst = burst
        self.per_chat_interval = per_chat_interval
        self._full_rate, self._full_burst = rate, burst
        self._interval = 1.0 / rate
        self._tolerance = (burst - 1.0) / rate
        self._clock = clock
        self._sleep = sleep
        self._next = -math.inf  # GCRA's theoretical arrival time of the next message
        self._paused_until = -math.inf
        self._waiting: dict[bool, deque[asyncio.Future[None]]] = {True: deque(), False: deque()}
        self._pump_task: asyncio.Future[None] | None = None
        self._in_flight: set[int] = set()
        self._ready_at: dict[int, float] = {}  # chat -> when it may get its next message
        self._queued: dict[int, int] = {}  # chat -> messages waiting for its turn
        self._turns: dict[int, asyncio.Lock] = {}  # chat -> its messages' queue
        self._slots = 0

    # --- state --------------------------------------------------------------------------

    def share(self, replicas: int) -> None:
        """Take this replica's part of the bot's budget, when `replicas` send at once.

        Telegram's 30 messages/s is per bot, not per process: N replicas each keep rate/N,
        and their bursts add up to the single process's (1 + (burst - 1)/N each), so the
        sum over all of them stays what one process would send.
        """
        parts = max(1, replicas)
        self.rate = self._full_rate / parts
        self.burst = 1.0 + (self._full_burst - 1.0) / parts
        self._interval = 1.0 / self.rate
        self._tolerance = (self.burst - 1.0) / self.rate

    @property
    def shared_by(self) -> int:
        return round(self._full_rate / self.rate)

    def pause(self, seconds: float) -> None:
        """Hold every message for `seconds` (a flood 429 covering the whole bot)."""
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    def paused_for(self) -> float:
        return max(0.0, self._paused_until - self._clock())

    def hold_chat(self, chat_id: int, seconds: float) -> None:
        """Nothing to this chat for `seconds` (its own 429)."""
        until = self._clock() + seconds
        self._ready_at[chat_id] = max(self._ready_at.get(chat_id, until), until)

    def expected_wait(self, chat_id: int) -> float:
        """Seconds a message to `chat_id` would wait now, as far as this limiter knows: the
        chat's gap, the messages queued for it before this one, and the replies queued ahead
        for the bot's overall rate."""
        now = self._clock()
        chat = max(0.0, self._ready_at.get(chat_id, -math.inf) - now)
        chat += (self._queued.get(chat_id, 0) + (chat_id in self._in_flight)) * (
            self.per_chat_interval
        )
        overall = max(self._wait(), 0.0) + len(self._waiting[True]) / self.rate
        return max(chat, overall)

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
        # One message to a chat at a time, in the order they came (asyncio.Lock is fair): a
        # person's answers arrive in the order of their messages.
        turn = self._turns.setdefault(chat_id, asyncio.Lock())
        self._queued[chat_id] = self._queued.get(chat_id, 0) + 1
        queued = True
        try:
            async with turn:
                self._leave_queue(chat_id)
                queued = False
                await self._wait_for_chat(chat_id)
                self._in_flight.add(chat_id)
                try:
                    await self._take(urgent)
                    yield
                finally:
                    self._in_flight.discard(chat_id)
                    self._ready_at[chat_id] = max(
                        self._ready_at.get(chat_id, -math.inf),
                        self._clock() + self.per_chat_interval,
                    )
        finally:
            if queued:  # cancelled before its turn came
                self._leave_queue(chat_id)
            if chat_id not in self._queued and not turn.locked():
                self._turns.pop(chat_id, None)  # nobody holds or waits for it
            self._maybe_prune()

    def _leave_queue(self, chat_id: int) -> None:
        left = self._queued[chat_id] - 1
        if left:
            self._queued[chat_id] = left
        else:
            del self._queued[chat_id]

    async def _wait_for_chat(self, chat_id: int) -> None:
        while True:
            if chat_id in self._in_flight:  # another replica's claim, or a hold being set
                await self._sleep(_IN_FLIGHT_POLL_S)
                continue
            wait = self._ready_at.get(chat_id, -math.inf) - self._clock()
            if wait <= 0:
                return
            await self._sleep(wait)

    async def _take(self, urgent: bool) -> None:
        """The next free overall slot: urgent ones first, each kind in arrival order.

        Waiters queue on futures that one pump task resolves slot by slot, so a thousand
        waiting replies cost one timer, not a thousand wake-ups per slot.
        """
        if self._next_queue() is None and self._wait() <= 0:
            self._grant()
            return
        ticket: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[urgent].append(ticket)
        if self._pump_task is None:
            self._pump_task = asyncio.ensure_future(self._pump())
        try:
            await ticket
        except asyncio.CancelledError:
            ticket.cancel()  # the pump skips it (if it was granted, that slot goes unused)
            if self._next_queue() is None and self._pump_task is not None:
                # Nobody waits: stop a pump that may be sleeping out a long pause.
                self._pump_task.cancel()
                self._pump_task = None
            raise

    async def _pump(self) -> None:
        me = asyncio.current_task()
        try:
            while (queue := self._next_queue()) is not None:
                wait = self._wait()
                if wait > 0:
                    await self._sleep(wait)  # a pause or a reply may come meanwhile
                    continue
                self._grant()
                queue.popleft().set_result(None)
        finally:
            if self._pump_task is me:
                self._pump_task = None

    def _next_queue(self) -> deque[asyncio.Future[None]] | None:
        """The queue whose first waiter goes next (urgent ones first), or None."""
        for queue in (self._waiting[True], self._waiting[False]):
            while queue and queue[0].done():  # cancelled while waiting
                queue.popleft()
            if queue:
                return queue
        return None

    def _wait(self) -> float:
        now = self._clock()
        return max(self._next - self._tolerance - now, self._paused_until - now)

    def _grant(self) -> None:
        self._next = max(self._next, self._clock()) + self._interval

    def _maybe_prune(self) -> None:
        self._slots += 1
        if self._slots % _PRUNE_EVERY:
            return
        now = self._clock()
        for chat in [chat for chat, at in self._ready_at.items() if at <= now]:
            del self._ready_at[chat]
