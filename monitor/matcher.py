"""LiveMatcher: the refresh's matcher (monitor.pipeline.Matcher), a MatchIndex of the active
subscriptions held in memory and kept current from the subscription change log.

Every writer of subscriptions (commands, alert buttons, a 403 pausing a blocked user) goes
through the database, whose triggers log each changed subscription's id; before each refresh
the index replays the log since the last change it applied, re-reading only those
subscriptions. A rebuild happens at the first refresh and when the reader fell behind the
log's pruning. Matching itself stays indexed.

A rebuild reads the subscriptions a thousand per query and decodes and files them on the
event loop, then sorts them, a couple of milliseconds per turn of the loop, so the replies of a
bot that has just started go in between: at 100k subscriptions the load takes seconds, and a
refresh waits for it (one load, however many providers refresh at once), never a reply.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Protocol, TypeVar

from monitor.alerts import Alert
from monitor.events import Event
from monitor.match_index import MatchIndex
from monitor.subscriptions import Subscription

T = TypeVar("T")

# Subscriptions read per query while the index loads, decoded only as they are filed: at 100
# a page, 100k subscriptions were a thousand round trips to the database.
LOAD_PAGE = 1000
# How long the load decodes and files (about 30-90 µs a subscription on a 2-core machine),
# then sorts the shelves (MatchIndex.sorting, a few ms for the longest), before it lets a turn
# of the event loop go. A reply needs many turns (each of its database round trips, its send)
# and may wait for one such slice in each, so the slice is what a reply waits several times
# over during start-up (bench.scale measures replies then).
TURN_S = 0.002


class SubscriptionSource(Protocol):
    async def subscription_changes(self, after: int | None) -> tuple[int, set[int] | None]: ...

    async def active_subscriptions_lazily(
        self, after: int = 0, limit: int | None = None
    ) -> Collection[Subscription]: ...

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
        """Every active subscription, read a page (LOAD_PAGE) at a time, decoded, filed and
        sorted in slices of about TURN_S between turns of the event loop."""
        index = MatchIndex()
        after = 0
        while True:
            page = await self._source.active_subscriptions_lazily(after, LOAD_PAGE)
            last = await _in_turns(_filed(index, page))
            # The filed subscriptions live as long as the index: frozen, the collector no
            # longer walks them, so neither the load's own allocations nor the first
            # refresh's (inside its write transaction: 50 ms at 100k) set off a full
            # collection of hundreds of thousands of objects.
            gc.freeze()
            if last is None or len(page) < LOAD_PAGE:
                break
            after = last
        await _in_turns(index.sorting())
        return index


def _filed(index: MatchIndex, page: Iterable[Subscription]) -> Iterator[int]:
    """File each subscription (decoded as it comes), one step each; yields its id."""
    for sub in page:
        index.add(sub)
        yield sub.id


async def _in_turns(steps: Iterator[T]) -> T | None:
    """Run `steps`, letting a turn of the event loop go (the replies waiting) every TURN_S;
    returns the last step's value."""
    last = None
    started = time.perf_counter()
    for step in steps:
        last = step
        if time.perf_counter() - started >= TURN_S:
            await asyncio.sleep(0)
            started = time.perf_counter()
    return last
