"""The refresh's two calls (monitor.pipeline.PipelineStore): one read, one write transaction.

`load` reads what a refresh of one provider decides on; `commit` writes what it decided, all
of it or none. Nothing is worked out here beyond which rows to read: the rules are monitor's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from monitor.plan import Healthy, RefreshPlan, RefreshState
from monitor.queueing import Hold
from monitor.users import QuietHours
from storage.history import read_tracked, record_change_points, write_tracked
from storage.offers import mark_healthy, read_provider_health, record_failure
from storage.outbox_insert import insert_alerts, prepare_alerts
from storage.parts import read_part_runs, write_part_statuses
from storage.sql import Connection, Database, moment_of, moment_value, scalar

# The term this replica leads in, or None when it does not (storage.leader.LeaderLease.fence).
Fence = Callable[[], int | None]


class RefreshQueries:
    _db: Database
    # Set on replicas sharing PostgreSQL (fence_refreshes): each commit carries the leader's
    # term. None on SQLite, whose one process always leads.
    _fence: Fence | None = None

    def fence_refreshes(self, fence: Fence) -> None:
        """Refuse every refresh commit, good or failed, not made under the lease's term."""
        self._fence = fence

    async def load(self, provider: str, now: datetime) -> RefreshState:
        """The provider's snapshot, part runs, health and live cooldowns, and every held
        chat."""
        moment = moment_value(self._db.dialect, now, "microseconds")
        async with self._db.access() as connection:
            # The revision first: a refresh that commits while these reads run leaves this
            # state's revision behind, so its commit is refused instead of applied on top.
            revision = await _revision(connection, provider)
            tracked = await read_tracked(connection, provider)
            runs = await read_part_runs(connection, provider)
            health = await read_provider_health(connection, provider)
            cooling = await _cooling(connection, provider, moment)
            holds = await _holds(connection, moment)
        # Turned into values once the connection is free: 20k cooling rows after a big refresh.
        last_alerts = {
            (sub, provider, sku, location, kind): moment_of(at)
            for sub, sku, location, kind, at in cooling
        }
        return RefreshState(revision, tracked, runs, last_alerts, holds, health)

    async def commit(self, provider: str, plan: RefreshPlan) -> int | None:
        """Write the plan in one transaction; the new outbox rows, or None if superseded: by
        another commit (the revision moved), or by another leader (the term moved)."""
        term = None
        if self._fence is not None:
            term = self._fence()
            if term is None:  # this replica's lease ran out: not the leader's to write
                return None
        # Rows are made ready first: the write transaction holds every writer off.
        alerts = None
        if plan.queued and plan.queued_at is not None:
            alerts = prepare_alerts(plan.queued, plan.queued_at)
        async with self._db.transaction() as connection:
            if term is not None and not await _still_leading(connection, term):
                return None
            if plan.revision is not None and not await _advance(
                connection, provider, plan.revision
            ):
                return None
            if plan.fetched_at is not None:
                await write_part_statuses(connection, provider, plan.parts, plan.fetched_at)
                if plan.tracked is not None:
                    await write_tracked(connection, provider, plan.tracked, plan.fetched_at)
                    await record_change_points(connection, plan.offers, plan.fetched_at)
            queued = 0 if alerts is None else await insert_alerts(connection, alerts)
            health = plan.health
            if isinstance(health, Healthy):
                await mark_healthy(
                    connection, provider, health.offers, health.duration_s, health.at
                )
            else:
                await record_failure(
                    connection, provider, health.error, health.at, health.duration_s
                )
        return queued


# How long a fenced commit may sit between two statements before the server ends its session
# (a healthy commit's statements follow each other within milliseconds; a frozen one's never).
FROZEN_COMMIT_S = 2.0


async def _still_leading(connection: Connection, term: int) -> bool:
    """The lease is still at `term` and running, on the database's clock.

    FOR SHARE holds the row until this transaction ends: a takeover (an UPDATE of the row)
    waits for the commit, so no commit of an old term lands after a new term began.

    A leader frozen inside the commit (SIGSTOP, a GC pause) would hold that lock, and hold
    every takeover off, for as long as it stayed frozen: the server sees a session idle in
    its transaction. So this transaction may idle at most FROZEN_COMMIT_S between its
    statements; past it the server ends the session, the commit rolls back (it was a stale
    leader's), and the lock frees well within the lease.
    """
    await connection.execute(
        f"SET LOCAL idle_in_transaction_session_timeout = {int(FROZEN_COMMIT_S * 1000)}"
    )
    found = await scalar(
        connection,
        "SELECT term FROM leader_lease WHERE term = ? AND expires_at > now() FOR SHARE",
        (term,),
    )
    return found is not None


async def _revision(connection: Connection, provider: str) -> int:
    found = await scalar(
        connection, "SELECT revision FROM refresh_revisions WHERE provider = ?", (provider,)
    )
    return 0 if found is None else int(found)


async def _advance(connection: Connection, provider: str, seen: int) -> bool:
    """Move the provider's revision from `seen` to the next; False if it is no longer `seen`.

    One statement, so on PostgreSQL two commits racing serialise on the row and the second
    finds the revision moved.
    """
    changed = await connection.execute(
        "INSERT INTO refresh_revisions (provider, revision) VALUES (?, ?)"
        " ON CONFLICT (provider) DO UPDATE SET revision = excluded.revision"
        " WHERE refresh_revisions.revision = ?",
        (provider, seen + 1, seen),
    )
    return changed == 1


async def _cooling(
    connection: Connection, provider: str, moment: object
) -> list[tuple[int, str, str, str, object]]:
    """(subscription, sku, location, kind, last alert) of each key of this provider whose
    cooldown runs past `moment`.

    Bounded by the cooldowns still running (an index range), not by the outbox's history:
    every status counts, a dropped row (the chat blocked us) was still an alert made.
    """
    rows = await connection.fetchall(
        "SELECT subscription_id, sku, location, kind, max(created_at) FROM outbox"
        " WHERE provider = ? AND cooling_until > ?"
        " GROUP BY subscription_id, sku, location, kind",
        (provider, moment),
    )
    return [(row[0], row[1], row[2], row[3], row[4]) for row in rows]


async def _holds(connection: Connection, moment: object) -> dict[int, Hold]:
    """Every chat whose alerts may not go at once: blocked, with quiet hours, or snoozed.

    Only those: most users set no quiet hours, and their alerts need no look-up at all.
    """
    rows = await connection.fetchall(
        "SELECT chat_id, timezone, quiet_start, quiet_end, blocked FROM users"
        " WHERE blocked = 1 OR quiet_start IS NOT NULL"
    )
    holds = {}
    for chat_id, timezone, start, end, blocked in rows:
        quiet = None if start is None or end is None else QuietHours(start, end)
        holds[chat_id] = Hold(timezone, quiet, bool(blocked))
    # Live snoozes only; the table holds one row per chat that ever snoozed, so it stays small.
    rows = await connection.fetchall(
        "SELECT chat_id, until FROM chat_snooze WHERE until > ?", (moment,)
    )
    for chat_id, until in rows:
        hold = holds.get(chat_id, Hold())
        holds[chat_id] = Hold(hold.timezone, hold.quiet_hours, hold.blocked, moment_of(until))
    return holds
