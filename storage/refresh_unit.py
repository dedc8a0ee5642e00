"""The writes of one refresh in one transaction: snapshot, change history, outbox, health.

Implements monitor.pipeline.RefreshUnit over the connection of an open transaction, so a
crash anywhere in a refresh leaves either all of it or none of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime

import aiosqlite

from monitor.alerts import Alert
from monitor.diff import Tracked
from monitor.offers import Offer
from monitor.parts import PartRuns, PartStatus
from monitor.scrape import ScrapeError
from monitor.users import User
from storage.database import Database
from storage.history import read_tracked, record_change_points, write_tracked
from storage.offers import mark_healthy, record_failure
from storage.outbox import cooldown_key, enqueue, last_alerts_at, users_to_hold
from storage.parts import read_part_runs, write_part_statuses

OfferKey = tuple[str, str, str]


class TransactionUnit:
    def __init__(self, connection: aiosqlite.Connection, provider: str) -> None:
        self._connection = connection
        self._provider = provider

    async def tracked(self) -> dict[OfferKey, Tracked]:
        return await read_tracked(self._connection, self._provider)

    async def write_tracked(self, tracked: Mapping[OfferKey, Tracked], at: datetime) -> None:
        await write_tracked(self._connection, self._provider, tracked, at)

    async def record_change_points(self, offers: Iterable[Offer], at: datetime) -> int:
        return await record_change_points(self._connection, offers, at)

    async def last_alerts_at(self, alerts: Sequence[Alert]) -> list[datetime | None]:
        """For each alert, when its subscription last heard of that offer and kind of change."""
        found = await last_alerts_at(self._connection, map(cooldown_key, alerts))
        return [found.get(cooldown_key(alert)) for alert in alerts]

    async def enqueue(self, alerts: Sequence[Alert], now: datetime) -> int:
        if not alerts:
            return 0
        users: Mapping[int, User] = await users_to_hold(
            self._connection, {alert.chat_id for alert in alerts}
        )
        return await enqueue(self._connection, alerts, users, now)

    async def mark_healthy(self, offers: int, duration_s: float, at: datetime) -> None:
        await mark_healthy(self._connection, self._provider, offers, duration_s, at)

    async def part_runs(self) -> dict[str, PartRuns]:
        return await read_part_runs(self._connection, self._provider)

    async def record_parts(self, statuses: Sequence[PartStatus], at: datetime) -> None:
        await write_part_statuses(self._connection, self._provider, statuses, at)

    async def record_failure(self, error: ScrapeError, duration_s: float, at: datetime) -> None:
        await record_failure(self._connection, self._provider, error, at, duration_s)


class RefreshUnits:
    _db: Database

    @asynccontextmanager
    async def refresh_unit(self, provider: str) -> AsyncIterator[TransactionUnit]:
        async with self._db.transaction() as connection:
            yield TransactionUnit(connection, provider)
