"""A change signal that plain (non-async) code can fire, for waiting without sleeps.

``asyncio.Condition.notify_all`` needs the lock, so it cannot be called from synchronous helpers
such as ``push_message``.  Here every change swaps in a fresh ``asyncio.Event`` and sets the old
one: a waiter re-checks its predicate after every change, and since it grabs the current event
with no ``await`` between the check and the wait, no change can slip past it.  Call it from the
event loop's thread only (like the rest of the fake).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

__all__ = ["ChangeSignal"]

T = TypeVar("T")


class ChangeSignal:
    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self) -> None:
        """Wake every current waiter so it re-evaluates its predicate."""
        event, self._event = self._event, asyncio.Event()
        event.set()

    async def wait_for(self, predicate: Callable[[], T | None]) -> T:
        """Return the first non-None predicate value, re-checking after every change.

        Bound it with ``asyncio.timeout()``; the predicate is evaluated before the first wait,
        so even ``asyncio.timeout(0)`` gives it one chance.
        """
        while True:
            value = predicate()
            if value is not None:
                return value
            await self._event.wait()
