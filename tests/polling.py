"""Waiting for a condition that has no event to await (a database row, a server counter)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

POLL_S = 0.01
# How long a test waits for a cold chart pool's first chart: a spawned worker imports
# matplotlib first, a second on a quiet machine and tens of seconds on a loaded one. The
# failure this guards is a chart that never comes, so the wait is generous.
COLD_CHART_S = 120.0


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
