"""The update queue behind getUpdates: offsets, long polling, and who confirmed what."""

from __future__ import annotations

import asyncio
import contextlib
import copy
from typing import Any

from .models import ApiError
from .sync import ChangeSignal

__all__ = ["CONFLICT", "UpdateQueue"]

CONFLICT = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)


def update_type(update: dict[str, Any]) -> str:
    """The payload key of an update ("message", "callback_query", ...)."""
    return next((key for key in update if key != "update_id"), "")


class UpdateQueue:
    """Pending updates as Telegram keeps them: delivered again until an offset confirms them."""

    def __init__(self, signal: ChangeSignal) -> None:
        self._signal = signal
        self._pending: list[dict[str, Any]] = []
        self._next_id = 1
        self._generation = 0  # bumped by every getUpdates; a stale long poll answers 409
        self._allowed: frozenset[str] | None = None  # like Telegram, the last setting persists
        self.confirmed_offset = 0  # every update_id below this was confirmed by the client
        self.history: list[dict[str, Any]] = []  # every update ever pushed, for debugging
        self.closing = False
        self.waiting = 0  # getUpdates requests currently held open (tests wait for this)

    @property
    def pending(self) -> list[dict[str, Any]]:
        return list(self._pending)

    def push(self, raw: dict[str, Any]) -> int:
        update = copy.deepcopy(raw)
        update_id = update.setdefault("update_id", self._next_id)
        if not isinstance(update_id, int):
            raise TypeError(f"update_id must be an int, got {update_id!r}")
        self._next_id = max(self._next_id, update_id + 1)
        self._pending.append(update)
        self.history.append(update)
        self._signal.notify()
        return update_id

    def confirm(self, offset: int) -> None:
        """Forget updates below ``offset``; a negative offset keeps only the last ``-offset``."""
        if offset < 0:
            kept = self._pending[offset:]
            offset = kept[0]["update_id"] if kept else self._next_id
        self._pending = [u for u in self._pending if u["update_id"] >= offset]
        if offset > self.confirmed_offset:
            self.confirmed_offset = offset
            self._signal.notify()

    def drop_pending(self) -> None:
        """deleteWebhook(drop_pending_updates=True): discarded, not confirmed."""
        self._pending.clear()

    def is_confirmed(self, update_id: int) -> bool:
        return self.confirmed_offset > update_id

    async def poll(
        self, *, limit: int, wait: float, allowed: list[str] | None
    ) -> list[dict[str, Any]]:
        """Answer one getUpdates: return at once if something is pending, else long-poll.

        ``wait`` is already capped by the server, so a pending poll never holds up shutdown
        for long, and ``close()`` wakes it immediately anyway.
        """
        if allowed is not None:
            self._allowed = frozenset(allowed) or None  # [] means "all types" again
        self._generation += 1
        generation = self._generation

        def ready() -> bool | None:
            done = self.closing or generation != self._generation or bool(self._deliverable())
            return True if done else None

        self.waiting += 1
        self._signal.notify()
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(wait, 0.0)):
                    await self._signal.wait_for(ready)
        finally:
            self.waiting -= 1
        if generation != self._generation and not self.closing:
            raise ApiError(409, CONFLICT)
        return copy.deepcopy(self._deliverable()[:limit])

    def close(self) -> None:
        self.closing = True
        self._signal.notify()

    def _deliverable(self) -> list[dict[str, Any]]:
        allowed = self._allowed
        return [u for u in self._pending if allowed is None or update_type(u) in allowed]
