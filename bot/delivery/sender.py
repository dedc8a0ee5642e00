"""The delivery loop: due outbox rows -> one message per chat -> Telegram, under its limits.

Guarantees, and what they rest on:

* Nothing is lost: a row leaves "pending" only when Telegram accepted its message (sent), or
  refused it for good (400, 403: dropped, with the reason kept).
* Nothing is sent twice, apart from the messages in flight at a crash: each message's rows are
  marked sent right after Telegram's answer, before that worker sends anything else. That is
  at most `concurrency` messages: one with the default, which is what DESIGN.md promises; more
  workers trade that bound for throughput when Telegram is far away. (A network error after
  Telegram received a request can also repeat it: it cannot be told from a lost request.)
* Limits: a global token bucket (default 25 messages/s) and at most one message per chat per
  `per_chat_interval`; a 429 pauses every worker for its retry_after, then the same message is
  retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from aiogram import Bot
from aiogram.enums import ParseMode
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods.base import Response
from aiogram.types import Message

from bot.delivery.limiter import TokenBucket
from bot.delivery.render import AlertMessage, render_alerts
from bot.i18n import Translator
from monitor.users import Language, User
from storage.outbox import OutboxRow

logger = logging.getLogger(__name__)

# aiogram parses every answer as Response[Message]; pydantic caches parametrised generics only
# weakly, so that class was garbage-collected and rebuilt (~8 ms each time) about once every 25
# sends in the fan-out benchmark. Holding one reference keeps it cached for the process's life.
_RESPONSE_OF_SEND = Response[Message]

Sleep = Callable[[float], Awaitable[None]]
# Called with one of SEND_OUTCOMES after every send attempt (metrics); must not raise or block.
ResultHook = Callable[[str], object]
SEND_OUTCOMES = ("sent", "flood_wait", "retry", "dropped_400", "blocked_403", "api_error")


class DeliveryStore(Protocol):
    """What the sender needs: storage.outbox.OutboxQueries plus Store.set_blocked."""

    async def due_messages(self, now: datetime, limit: int) -> list[OutboxRow]: ...

    async def mark_sent(self, ids: Sequence[int], at: datetime) -> int: ...

    async def mark_dropped(self, ids: Sequence[int], reason: str) -> int: ...

    async def record_attempt(self, ids: Sequence[int], error: str) -> int: ...

    async def drop_chat(self, chat_id: int, reason: str) -> int: ...

    async def set_blocked(self, chat_id: int, blocked: bool) -> User: ...


@dataclass
class SenderStats:
    """Running totals, for logs and the fan-out benchmark."""

    sent: int = 0
    flood_waits: int = 0  # 429s received
    retries: int = 0  # 5xx and network errors retried
    dropped: int = 0  # messages refused with 400
    blocked: int = 0  # chats that answered 403


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Sender:
    def __init__(
        self,
        bot: Bot,
        store: DeliveryStore,
        translators: Mapping[Language, Translator],
        *,
        on_blocked: Callable[[int], Awaitable[object]],
        rate: float = 25.0,
        burst: float | None = None,
        per_chat_interval: float = 1.0,
        concurrency: int = 1,
        batch_size: int = 500,
        max_attempts: int = 4,
        backoff_base: float = 1.0,
        backoff_cap: float = 30.0,
        max_flood_waits: int = 20,
        idle_interval: float = 1.0,
        default_language: Language = "ru",
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = _utcnow,
        on_result: ResultHook | None = None,
    ) -> None:
        """`on_blocked(chat_id)` pauses the chat's subscriptions after a 403 (store.pause_all fits).

        `burst` defaults to a fifth of a second's worth: it absorbs timer jitter without ever
        going much over `rate` in any one second (25/s + 5 stays under Telegram's ~30/s).
        `max_attempts` bounds tries on 5xx and network errors within one pass; the rows then
        stay pending for the next pass. `sleep` and `clock` (monotonic seconds) are injected so
        tests never wait for real; `now` is the wall clock that due_at is compared with.
        `on_result(outcome)` sees every attempt's outcome, one of SEND_OUTCOMES ("retry" is
        any 5xx or network error).
        """
        if concurrency < 1 or batch_size < 1 or max_attempts < 1:
            raise ValueError("concurrency, batch_size and max_attempts must be >= 1")
        self._bot = bot
        self._store = store
        self._translators = translators
        self._on_blocked = on_blocked
        self._bucket = TokenBucket(rate, burst or max(1.0, rate / 5), clock)
        self._per_chat_interval = per_chat_interval
        self._concurrency = concurrency
        self._batch_size = batch_size
        self._max_attempts = max_attempts
        self._backoff_base = backoff_base
        self._backoff_cap = backoff_cap
        self._max_flood_waits = max_flood_waits
        self._idle_interval = idle_interval
        self._default_language = default_language
        self._sleep = sleep
        self._clock = clock
        self._now = now
        self._on_result = on_result
        self._paused_until = 0.0
        self._last_sent: dict[int, float] = {}  # chat -> clock when its last message was done
        self._stop: asyncio.Event | None = None
        self._wake = asyncio.Event()
        self._blocks: dict[Language, dict[str, str]] = {}
        self._unmarked: list[int] = []
        self._mark_lock = asyncio.Lock()
        self.stats = SenderStats()

    @property
    def burst(self) -> float:
        """How many messages may go at once after an idle spell (the bucket's depth)."""
        return self._bucket.burst

    # --- the loop ----------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Drain until `stop` is set; a message in flight is finished and marked first."""
        self._stop = stop
        while not stop.is_set():
            try:
                sent = await self.drain_once()
            except Exception:  # a database hiccup must not end delivery for good
                logger.exception("delivery pass failed")
                sent = 0
            if sent == 0:
                await self._idle(stop)

    def wake(self) -> None:
        """New rows were queued: start the next pass now rather than after the idle wait."""
        self._wake.set()

    async def drain_once(self) -> int:
        """One pass: every due chat that may be messaged now gets one message. Returns the count.

        A chat messaged less than `per_chat_interval` ago is skipped (its rows stay pending for
        a later pass), and so is the rest of a digest too long for one message.
        """
        rows = await self._store.due_messages(self._now(), self._batch_size)
        if not rows:
            return 0
        self._forget_quiet_chats()
        chats: dict[int, list[OutboxRow]] = {}
        for row in rows:
            chats.setdefault(row.chat_id, []).append(row)
        queue = [(chat, chat_rows) for chat, chat_rows in chats.items() if self._chat_ready(chat)]
        self._blocks = {}  # rendered offer blocks, per language, for this pass only
        queue.reverse()  # pop() from the end takes the oldest first
        sent = 0

        async def worker() -> None:
            nonlocal sent
            while queue and not self._stopping():
                chat_id, chat_rows = queue.pop()
                if await self._deliver(chat_id, chat_rows):
                    sent += 1

        workers = min(self._concurrency, len(queue))
        # return_exceptions: one worker's failure must not leave the others running on after
        # this pass returns, or the next pass could send their chats again.
        results = await asyncio.gather(*(worker() for _ in range(workers)), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result
        return sent

    # --- one chat ----------------------------------------------------------------------------

    async def _deliver(self, chat_id: int, rows: Sequence[OutboxRow]) -> bool:
        language = rows[0].language or self._default_language
        i18n = self._translators.get(language) or self._translators[self._default_language]
        # Only the first message of a split digest now: the rest is the next pass's, after the
        # chat's 1 s gap. Its rows stay pending until then.
        cache = self._blocks.setdefault(i18n.language, {})
        message = render_alerts(rows, i18n, cache=cache)[0]
        return await self._send(chat_id, message)

    async def _send(self, chat_id: int, message: AlertMessage) -> bool:
        ids = message.row_ids
        failures = floods = 0
        while True:
            await self._take_turn()
            try:
                await self._bot.send_message(
                    chat_id, message.text, parse_mode=ParseMode.HTML, reply_markup=message.markup
                )
            except TelegramRetryAfter as error:
                self.stats.flood_waits += 1
                self._report("flood_wait")
                floods += 1
                logger.warning("429 for chat %s: pausing %s s", chat_id, error.retry_after)
                self._pause(error.retry_after)
                if floods >= self._max_flood_waits or self._stopping():
                    await self._store.record_attempt(ids, f"429: {error.message}")
                    return False
                continue  # the same message, once the pause is over
            except TelegramForbiddenError as error:
                self._report("blocked_403")
                await self._blocked(chat_id, error.message)
                return False
            except TelegramBadRequest as error:
                logger.error("chat %s refused alert rows %s: %s", chat_id, ids, error.message)
                self.stats.dropped += 1
                self._report("dropped_400")
                await self._store.mark_dropped(ids, f"400: {error.message}")
                return False
            except (TelegramServerError, TelegramNetworkError) as error:
                failures += 1
                self._report("retry")
                await self._store.record_attempt(ids, f"{type(error).__name__}: {error.message}")
                if failures >= self._max_attempts or self._stopping():
                    logger.warning("chat %s: giving up for this pass: %s", chat_id, error)
                    return False
                self.stats.retries += 1
                await self._sleep(self._backoff(failures))
                continue
            except TelegramAPIError as error:
                # 401, 409, a migrated chat...: nothing this message can fix, and nothing that
                # proves it undeliverable. Keep it pending and say so loudly.
                logger.error("chat %s: unexpected Telegram error: %s", chat_id, error)
                self._report("api_error")
                await self._store.record_attempt(ids, f"{type(error).__name__}: {error.message}")
                return False
            # Stamped after the answer: the next message to this chat then starts at least the
            # interval after Telegram received this one, whatever the network latency was.
            self._last_sent[chat_id] = self._clock()
            await self._mark_sent(ids)
            self.stats.sent += 1
            self._report("sent")
            return True

    def _report(self, outcome: str) -> None:
        if self._on_result is not None:
            try:
                self._on_result(outcome)
            except Exception:  # metrics must never stop delivery
                logger.exception("send result hook failed")

    async def _mark_sent(self, ids: Sequence[int]) -> None:
        """Mark before the worker moves on; concurrent workers share one UPDATE (group commit).

        Whoever holds the lock marks every id queued so far, so a worker that finds the queue
        empty once it gets the lock knows its ids were committed by the previous holder. One
        trip to the database thread per message was the sender's bottleneck at high rates.
        """
        self._unmarked.extend(ids)
        async with self._mark_lock:
            batch, self._unmarked = self._unmarked, []
            if not batch:
                return
            try:
                await self._store.mark_sent(batch, self._now())
            except BaseException:
                self._unmarked[:0] = batch  # the next holder retries them; ours raises
                raise

    async def _blocked(self, chat_id: int, description: str) -> None:
        logger.info("chat %s blocked the bot (%s): pausing its subscriptions", chat_id, description)
        self.stats.blocked += 1
        with contextlib.suppress(LookupError):  # a chat without a users row: nothing to mark
            await self._store.set_blocked(chat_id, True)
        await self._on_blocked(chat_id)
        # Dropped last: if anything above fails, the rows stay pending and the 403 comes again.
        await self._store.drop_chat(chat_id, f"403: {description}")

    # --- pacing ------------------------------------------------------------------------------

    async def _take_turn(self) -> None:
        """Wait out any 429 pause, then for this send's slot in the global bucket."""
        await self._wait_pause()
        delay = self._bucket.reserve()
        if delay > 0:
            await self._sleep(delay)
        # A 429 may have arrived for another worker while this one waited for its slot.
        await self._wait_pause()

    async def _wait_pause(self) -> None:
        while (remaining := self._paused_until - self._clock()) > 0:
            await self._sleep(remaining)

    def _pause(self, seconds: float) -> None:
        self._paused_until = max(self._paused_until, self._clock() + seconds)

    def _backoff(self, failures: int) -> float:
        return float(min(self._backoff_cap, self._backoff_base * 2 ** (failures - 1)))

    def _chat_ready(self, chat_id: int) -> bool:
        last = self._last_sent.get(chat_id)
        return last is None or self._clock() - last >= self._per_chat_interval

    def _forget_quiet_chats(self) -> None:
        # Only recent sends matter for pacing; without this the map grows with every chat ever.
        now = self._clock()
        interval = self._per_chat_interval
        stale = [chat for chat, at in self._last_sent.items() if now - at >= interval]
        for chat in stale:
            del self._last_sent[chat]

    def _stopping(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    async def _idle(self, stop: asyncio.Event) -> None:
        waits = [
            asyncio.ensure_future(self._sleep(self._idle_interval)),
            asyncio.ensure_future(stop.wait()),
            asyncio.ensure_future(self._wake.wait()),
        ]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waits:
                waiter.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
        self._wake.clear()
