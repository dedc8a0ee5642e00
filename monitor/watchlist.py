"""The live match index: subscriptions held in memory, rebuilt only when they changed.

Every writer of subscriptions (commands, alert buttons, a 403 pausing a blocked user) goes
through the database, whose triggers bump a revision counter; before each refresh the index
compares that one number and reloads only if it moved. Matching itself stays indexed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from monitor.alerts import Alert
from monitor.events import Event
from monitor.subscriptions import MatchIndex, Subscription

DEFAULT_COOLDOWN = timedelta(hours=6)


class SubscriptionSource(Protocol):
    async def subscription_revision(self) -> int: ...

    async def active_subscriptions(self) -> list[Subscription]: ...


class Watchlist:
    def __init__(self, source: SubscriptionSource) -> None:
        self._source = source
        self._index = MatchIndex()
        self._revision: int | None = None

    async def prepare(self) -> None:
        """Bring the index up to date; called before the refresh's transaction opens."""
        revision = await self._source.subscription_revision()
        if revision != self._revision:
            self._index = MatchIndex(await self._source.active_subscriptions())
            self._revision = revision

    def match(self, events: Sequence[Event], now: datetime) -> list[Alert]:
        return self._index.match(events, now) if events else []

    def cooldown_of(self, subscription_id: int) -> timedelta:
        sub = self._index.get(subscription_id)
        return timedelta(seconds=sub.cooldown_s) if sub is not None else DEFAULT_COOLDOWN
