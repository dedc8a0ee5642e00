"""Waiting for a condition that has no event to await (a database row, a server counter)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

POLL_S = 0.01


async def eventually(
    check: Callable[[], Awaitable[bool] | bool], within: float = 10.0, *, every: float = POLL_S
) -> None:
    """Re-check `check` every `every` seconds until it holds; TimeoutError after `within`."""
    async with asyncio.timeout(within):
        while True:
            result = check()
            if await result if isinstance(result, Awaitable) else result:
                return
            await asyncio.sleep(every)
