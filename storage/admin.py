"""Read-only counts for the operator's /admin view."""

from __future__ import annotations

from dataclasses import dataclass

from storage.database import Database


@dataclass(frozen=True)
class SubscriptionCounts:
    active: int
    paused: int

    @property
    def total(self) -> int:
        return self.active + self.paused


class AdminQueries:
    _db: Database

    async def subscription_counts(self) -> SubscriptionCounts:
        """Subscriptions by state; a muted one is still active (its mute ends by itself)."""
        async with self._db.access() as connection:
            cursor = await connection.execute(
                "SELECT coalesce(sum(paused = 0), 0), coalesce(sum(paused = 1), 0)"
                " FROM subscriptions"
            )
            row = await cursor.fetchone()
        return SubscriptionCounts(0, 0) if row is None else SubscriptionCounts(*map(int, row))

    async def offer_count(self) -> int:
        """Offers in the providers' last good snapshots (the ones /prices shows)."""
        async with self._db.access() as connection:
            cursor = await connection.execute("SELECT count(*) FROM offers WHERE missing_runs = 0")
            row = await cursor.fetchone()
        return 0 if row is None else int(row[0])

    async def blocked_user_count(self) -> int:
        """Users who blocked the bot (403 on delivery)."""
        async with self._db.access() as connection:
            cursor = await connection.execute("SELECT count(*) FROM users WHERE blocked = 1")
            row = await cursor.fetchone()
        return 0 if row is None else int(row[0])
