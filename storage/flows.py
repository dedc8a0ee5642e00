"""Users' flood state in the database, for replicas that answer updates side by side.

One transaction per update: the user's row is locked (FOR UPDATE on PostgreSQL; SQLite's
single writer serialises anyway), judged by monitor.flood and written back, so two replicas
judging two updates of one user at once see each other's.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from monitor.flood import FORGET_AFTER_S, Flow, FlowKey, Verdict, judge
from storage.sql import Database

_READ = (
    "SELECT last_arrival, tokens, dropped, warned FROM user_flows WHERE kind = ? AND chat_id = ?"
)
_READ_LOCKED = _READ + " FOR UPDATE"


class SharedFlows:
    def __init__(self, database: Database, clock: Callable[[], float] = time.time) -> None:
        self._db = database
        self._clock = clock  # wall time: the replicas' clocks must agree, monotonic ones don't

    async def judge_flow(self, key: FlowKey, sent_at: float | None, interval: float) -> Verdict:
        kind, chat_id = key
        async with self._db.transaction() as connection:
            # A row to lock even on a user's first update: two replicas racing on it would
            # both find nothing and both answer. A flow last seen at 0 (1970) is judged as
            # no flow at all.
            await connection.execute(
                "INSERT INTO user_flows"
                " (kind, chat_id, last_arrival, tokens, dropped, warned)"
                " VALUES (?, ?, 0, 0, 0, 0) ON CONFLICT (kind, chat_id) DO NOTHING",
                (kind, chat_id),
            )
            row = await connection.fetchone(
                _READ_LOCKED if connection.dialect == "postgresql" else _READ, (kind, chat_id)
            )
            assert row is not None  # inserted above, and only forget_quiet deletes
            flow = Flow(float(str(row[0])), float(str(row[1])), int(str(row[2])), bool(row[3]))
            at = self._clock() if sent_at is None else sent_at
            verdict, after = judge(flow, at, interval)
            await connection.execute(
                "UPDATE user_flows SET last_arrival = ?, tokens = ?, dropped = ?, warned = ?"
                " WHERE kind = ? AND chat_id = ?",
                (
                    after.last_arrival,
                    after.tokens,
                    after.dropped,
                    int(after.warned),
                    kind,
                    chat_id,
                ),
            )
        return verdict

    async def forget_quiet(self) -> int:
        """Drop the flows of users quiet for FORGET_AFTER_S (housekeeping)."""
        async with self._db.transaction() as connection:
            return await connection.execute(
                "DELETE FROM user_flows WHERE last_arrival < ?",
                (self._clock() - FORGET_AFTER_S,),
            )
