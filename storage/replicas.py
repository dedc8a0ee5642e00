"""Heartbeats of the replicas sharing one PostgreSQL database, and how many are alive.

Telegram's 30 messages/s is per bot: every replica sends, so each takes 1/N of the budget
(bot.delivery.limiter.Limiter.share), N being the replicas whose heartbeat is fresh. A replica
that stops cleanly leaves at once; one killed -9 ages out after STALE_AFTER_S, until when the
others send a little under the ceiling, never over it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from storage.sql import Database, scalar

# Heartbeats this often (one small upsert a second per replica); a replica missing for three
# of them counts as gone, so a killed one's share of the send rate is idle for at most 3 s.
BEAT_INTERVAL_S = 1.0
STALE_AFTER_S = 3 * BEAT_INTERVAL_S


class ReplicaRegistry:
    def __init__(self, database: Database, clock: Callable[[], float] = time.time) -> None:
        self._db = database
        self._clock = clock

    async def beat(self, replica_id: str, role: str) -> int:
        """Say this replica is alive in `role`; returns how many replicas are (itself too)."""
        now = self._clock()
        async with self._db.transaction() as connection:
            await connection.execute(
                "INSERT INTO replicas (id, role, seen_at) VALUES (?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET role = excluded.role, seen_at = excluded.seen_at",
                (replica_id, role, now),
            )
            alive = await scalar(
                connection,
                "SELECT count(*) FROM replicas WHERE seen_at >= ? OR id = ?",
                (now - STALE_AFTER_S, replica_id),
            )
        return int(str(alive))

    async def leave(self, replica_id: str) -> None:
        async with self._db.transaction() as connection:
            await connection.execute("DELETE FROM replicas WHERE id = ?", (replica_id,))

    async def roles(self) -> dict[str, str]:
        """The live replicas and their roles (for /admin and tests)."""
        async with self._db.access() as connection:
            rows = await connection.fetchall(
                "SELECT id, role FROM replicas WHERE seen_at >= ? ORDER BY id",
                (self._clock() - STALE_AFTER_S,),
            )
        return {str(row[0]): str(row[1]) for row in rows}
