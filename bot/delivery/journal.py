"""The sender's journal: every delivery result written to the outbox, or held in memory while
the database does not take writes.

Marks come first: a message Telegram accepted is marked sent before its chat gets another,
and concurrent marks share one UPDATE (group commit). If a write fails (read-only or full
disk), the ids or the write are held, in order, and retried before anything new is claimed;
`error` says why meanwhile (/healthz reports it). Held writes the database never took are lost
with the process: after a restart those messages may be sent again.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Protocol

logger = logging.getLogger(__name__)

# Retrying held writes while the database is unwritable: 1 s doubling to 4 s. The cap is
# what a replica adds to an outage after the server is back (a restart, 45 s stopped): it
# must resume within 10 s of the server's return, and a failed try (one refused connection
# or one failed statement every 4 s) costs the database next to nothing.
STORE_BACKOFF_S = (1.0, 4.0)

Write = Callable[[], Awaitable[object]]


class MarkStore(Protocol):
    async def mark_sent(self, ids: Sequence[int], at: datetime) -> int: ...


class Journal:
    def __init__(self, store: MarkStore, now: Callable[[], datetime]) -> None:
        self._store = store
        self._now = now
        # Writes the database did not take: marks first (they stop duplicates), then the rest.
        self._unmarked: list[int] = []
        self._mark_lock = asyncio.Lock()
        self._held: deque[Write] = deque()
        self._held_lock = asyncio.Lock()
        self._failures = 0
        self.error: str | None = None  # set while writes fail

    @property
    def held(self) -> int:
        """Results the database has not taken yet (marks and the rest)."""
        return len(self._unmarked) + len(self._held)

    async def record_sent(self, ids: Sequence[int]) -> None:
        """Mark before the chat gets more; concurrent workers share one UPDATE.

        Whoever holds the lock marks every id queued so far, so a worker that finds the queue
        empty once it gets the lock knows its ids were committed by the previous holder. If
        the write fails the ids stay queued (held): nothing is claimed until they are marked.
        """
        self._unmarked.extend(ids)
        async with self._mark_lock:
            batch = list(self._unmarked)
            if not batch:
                return
            try:
                await self._store.mark_sent(batch, self._now())
            except Exception as error:
                self.failed(error)
                return
            del self._unmarked[: len(batch)]
            self.succeeded()

    async def write(self, write: Write) -> None:
        """Write now, or hold the write (in order behind the held ones) if the database fails.

        `flush` retries what is held before anything new is claimed.
        """
        self._held.append(write)
        await self.flush()

    async def flush(self) -> bool:
        """Write what is held, marks first; False (and the error kept) if the database fails."""
        if self._unmarked:
            await self.record_sent(())
            if self._unmarked:
                return False
        wrote = False
        async with self._held_lock:  # one runner: each held write runs once, in order
            while self._held:
                try:
                    await self._held[0]()
                except Exception as error:
                    self.failed(error)
                    return False
                self._held.popleft()
                wrote = True
        if wrote:
            self.succeeded()
        return True

    def failed(self, error: Exception) -> None:
        """A write (or a claim) failed: delivery pauses until one succeeds."""
        if self.error is None:
            logger.error(
                "delivery paused: the database does not take writes (%s); %s results held",
                error,
                self.held,
            )
        self.error = f"{type(error).__name__}: {error}"
        self._failures += 1

    def succeeded(self) -> None:
        """A write went through: delivery resumes once nothing is held."""
        if self.error is not None and not self.held:
            logger.info("delivery resumed: the database takes writes again")
            self.error = None
            self._failures = 0

    def backoff(self) -> float:
        """How long the sender waits before trying the database again."""
        low, high = STORE_BACKOFF_S
        return min(high, low * 2.0 ** min(10, max(0, self._failures - 1)))
