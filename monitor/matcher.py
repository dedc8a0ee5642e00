"""LiveMatcher: the refresh's matcher (monitor.pipeline.Matcher), a MatchIndex of the active
subscriptions held in memory and kept current from the subscription change log.

Every writer of subscriptions (commands, alert buttons, a 403 pausing a blocked user) goes
through the database, whose triggers log each changed subscription's id; before each refresh
the index replays the log since the last change it applied, re-reading only those
subscriptions. A rebuild happens at the first refresh and when the reader fell behind the
log's pruning. Matching itself stays indexed.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Protocol

from monitor.alerts import Alert
from monitor.events import Event
from monitor.match_index import MatchIndex
from monitor.subscriptions import Subscription


class SubscriptionSource(Protocol):
    async def subscription_changes(self, after: int | None) -> tuple[int, set[int] | None]: ...

    async def active_subscriptions(self) -> list[Subscription]: ...

    async def active_subscriptions_among(self, ids: Collection[int]) -> list[Subscription]: ...


class LiveMatcher:
    def __init__(self, source: SubscriptionSource) -> None:
        self._source = source
        self._index = MatchIndex()
        self._applied: int | None = None  # the last change in the index

    async def prepare(self) -> None:
        """Bring the index up to date; called before the refresh's transaction opens."""
        latest, changed = await self._source.subscription_changes(self._applied)
        if changed is None:
            subs = await self._source.active_subscriptions()
            # Seconds of CPU at 100k subscriptions (once, at start): in a thread, the event
            # loop still gets its turns.
            self._index = await asyncio.to_thread(_build, subs)
        elif changed:
            active = await self._source.active_subscriptions_among(changed)
            for sub_id in changed - {sub.id for sub in active}:
                self._index.remove(sub_id)  # deleted, paused, or its user blocked the bot
            for sub in active:
                self._index.add(sub)  # new or edited: add() replaces the old one
        self._applied = latest

    def match(self, events: Sequence[Event], now: datetime) -> list[Alert]:
        return self._index.match(events, now) if events else []


# From this many subscriptions a new index is collected at once (below). 100k subscriptions
# make hundreds of thousands of objects, whose full collection would otherwise come inside
# the first refresh's write transaction: 50 ms at 100k (bench/match.py, when the collection
# was added). A tenth of that is a few milliseconds; below it, the collection costs more than
# it saves: it walks the whole heap, not just the index, for every small index built (a new
# bot's, or each of the test suite's hundreds).
COLLECT_FROM_SUBS = 10_000


def _build(subs: list[Subscription]) -> MatchIndex:
    index = MatchIndex(subs)
    if len(subs) >= COLLECT_FROM_SUBS:
        # Collect now: else the first refresh's allocations trigger a full collection of
        # these new objects, inside its write transaction.
        gc.collect()
    return index
