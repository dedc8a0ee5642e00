"""LiveMatcher: the refresh's matcher (monitor.pipeline.Matcher), a MatchIndex of the active
subscriptions held in memory and kept current from the subscription change log.

Every writer of subscriptions (commands, alert buttons, a 403 pausing a blocked user) goes
through the database, whose triggers log each changed subscription's id; before each refresh
the index replays the log since the last change it applied, re-reading only those
subscriptions. A rebuild happens at the first refresh and when the reader fell behind the
log's pruning. Matching itself stays indexed.

A rebuild loads the subscriptions a page at a time on the event loop, each page a few
milliseconds of decoding and filing, then sorts them a few milliseconds at a time, so the
replies of a bot that has just started go in between: at 100k subscriptions the load takes
seconds, and a refresh waits for it (one load, however many providers refresh at once),
never a reply.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Protocol

from monitor.alerts import Alert
from monitor.events import Event
from monitor.match_index import MatchIndex
from monitor.subscriptions import Subscription

# Subscriptions decoded and filed per turn of the event loop while the index loads: about
# 100 x 60-90 µs (decoding the stored filter, then filing it) on a 2-core machine. A reply
# needs many turns (each of its database round trips, its send), and in each it may wait for
# one page, so the page is what a reply waits several times over during start-up (bench.scale
# measures replies during start-up); smaller pages cost only more queries.
LOAD_PAGE = 100
# Then the shelves are sorted (MatchIndex.sorting), for at most about this long per turn.
SORT_TURN_S = 0.005


class SubscriptionSource(Protocol):
    async def subscription_changes(self, after: int | None) -> tuple[int, set[int] | None]: ...

    async def active_subscriptions(
        self, after: int = 0, limit: int | None = None
    ) -> list[Subscription]: ...

    async def active_subscriptions_among(self, ids: Collection[int]) -> list[Subscription]: ...


class LiveMatcher:
    def __init__(self, source: SubscriptionSource) -> None:
        self._source = source
        self._index = MatchIndex()
        self._applied: int | None = None  # the last change in the index
        # Providers refresh at once at start: the first loads the index, the others wait
        # for it and then replay only what changed meanwhile.
        self._preparing = asyncio.Lock()

    async def prepare(self) -> None:
        """Bring the index up to date; called before the refresh's transaction opens."""
        async with self._preparing:
            await self._prepare()

    async def _prepare(self) -> None:
        latest, changed = await self._source.subscription_changes(self._applied)
        if changed is None:
            self._index = await self._load()
        elif changed:
            active = await self._source.active_subscriptions_among(changed)
            for sub_id in changed - {sub.id for sub in active}:
                self._index.remove(sub_id)  # deleted, paused, or its user blocked the bot
            for sub in active:
                self._index.add(sub)  # new or edited: add() replaces the old one
        self._applied = latest

    def match(self, events: Sequence[Event], now: datetime) -> list[Alert]:
        return self._index.match(events, now) if events else []

    async def _load(self) -> MatchIndex:
        """Every active subscription, a page (LOAD_PAGE) per turn of the event loop."""
        index = MatchIndex()
        after = 0
        while True:
            page = await self._source.active_subscriptions(after, LOAD_PAGE)
            for sub in page:
                index.add(sub)
            # The filed subscriptions live as long as the index: frozen, the collector no
            # longer walks them, so neither the load's own allocations nor the first
            # refresh's (inside its write transaction: 50 ms at 100k) set off a full
            # collection of hundreds of thousands of objects.
            gc.freeze()
            if len(page) < LOAD_PAGE:
                break
            after = page[-1].id
        started = time.perf_counter()
        for _ in index.sorting():
            if time.perf_counter() - started >= SORT_TURN_S:
                await asyncio.sleep(0)  # a turn of the loop: the replies waiting go
                started = time.perf_counter()
        return index
