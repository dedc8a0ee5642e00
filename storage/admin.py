"""Read-only counts for the operator's /admin view."""

from __future__ import annotations

from monitor.subscriptions import SubscriptionCounts
from storage.sql import Database, scalar


class AdminQueries:
    _db: Database

    async def subscription_counts(self) -> SubscriptionCounts:
        """Subscriptions by state; a muted one is still active (its mute ends by itself)."""
        async with self._db.access() as connection:
            row = await connection.fetchone(
                "SELECT count(*) FILTER (WHERE paused = 0), count(*) FILTER (WHERE paused = 1)"
                " FROM subscriptions"
            )
        return SubscriptionCounts(0, 0) if row is None else SubscriptionCounts(row[0], row[1])

    async def offer_count(self) -> int:
        """Offers in the providers' last good snapshots (the ones /prices shows)."""
        async with self._db.access() as connection:
            found = await scalar(connection, "SELECT count(*) FROM offers WHERE missing_runs = 0")
        return int(found)

    async def blocked_user_count(self) -> int:
        """Users who blocked the bot (403 on delivery)."""
        async with self._db.access() as connection:
            found = await scalar(connection, "SELECT count(*) FROM users WHERE blocked = 1")
        return int(found)
