"""History summaries and retention: the `offer_history_tiers` rows (storage/schema/0023).

For each offer and each span of a grain (4 hours, a day: counted from the Unix epoch, so from
UTC midnight) the summaries keep the span's cheapest point, its dearest and its last, chosen by
storage.history_points.ORDERS, each a whole point. Every change point written goes into the
summaries of its spans at once (`add_to_tiers`, in the writer's transaction), so they are
never behind the change points.

A long range is read from them (storage.history: a range of 90 days is a few rows per offer
and day, where a market changing every 10 minutes has 144 change points per offer and day),
and they are what the retention keeps: `compact_history` deletes, in short batches, the change
points and the finer summaries older than FULL_DETAIL, and the daily summaries stay for good.
A day's low and last price therefore outlive its change points.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Final

from storage.history_points import (
    KEPT,
    ORDERS,
    STORED_COLUMNS,
    STORED_COUNT,
    rank_columns,
    replaces,
)
from storage.sql import Connection, Database, Dialect, moment_value, scalar

FOUR_HOURS: Final = 4 * 3600
DAY: Final = 24 * 3600
# The summaries' grains in seconds, finest first; each divides the next, so a coarser span is
# a whole number of finer ones (storage.history reads a range from several grains at once).
# Four hours: the range a bucket of a year-long market answer holds is days, of a
# one-offer 30-day chart hours; with a 4-hour grain neither reads more than about 4 000
# summary rows (bench.scale measures it), and the 4-hour rows cost three rows per offer and
# 4 hours where a busy offer has 24 change points.
GRAINS: Final = (FOUR_HOURS, DAY)

# Every change point, and the summaries finer than a day, are kept this long; after it only
# the daily summaries remain. /api/v1/history answers at most 90 days (bot.ops.open_data
# MAX_DAYS), the chart 30: every range they ask is within the full detail.
FULL_DETAIL: Final = timedelta(days=90)
# Rows one retention transaction deletes: 1 000 change points with their five indexes held
# the writer 16 ms (median; 56 at most) on SQLite and 31 (54) on PostgreSQL on a 2-core
# machine (86 000 old points of a busy market), so a command's write never waits long
# behind the retention.
COMPACT_BATCH: Final = 1000

_ASSIGNMENTS = ", ".join(
    f"{column} = excluded.{column}"
    for column in STORED_COLUMNS.replace(" ", "").split(",")
    if column not in ("provider", "sku", "location")
)
_REPLACES = " ".join(
    f"WHEN '{role}' THEN {replaces(role, 'excluded.', 'offer_history_tiers.')}" for role in ORDERS
)
_UPSERT: Final = f"""
INSERT INTO offer_history_tiers (grain, start, role, {STORED_COLUMNS})
VALUES ({", ".join("?" * (3 + STORED_COUNT))})
ON CONFLICT (grain, start, provider, sku, location, role) DO UPDATE SET {_ASSIGNMENTS}
WHERE CASE excluded.role {_REPLACES} END
"""  # noqa: S608 - fixed columns and roles

# A point's span start for :grain seconds, as the dialect writes a time column.
_SPAN_START: Final[dict[Dialect, str]] = {
    "sqlite": "strftime('%Y-%m-%dT%H:%M:%S+00:00',"
    " CAST(strftime('%s', at) AS INTEGER) / :grain * :grain, 'unixepoch')",
    "postgresql": "to_timestamp(floor(CAST(extract(epoch FROM at) AS double precision)"
    " / :grain) * :grain)",
}
_ROLES = " UNION ALL ".join(f"SELECT '{role}' AS role" for role in ORDERS)
_KEPT_IN_ROLE = " OR ".join(f"(roles.role = '{role}' AND {role}_rank = 1)" for role in ORDERS)
_REBUILD: Final = f"""
INSERT INTO offer_history_tiers (grain, start, role, {STORED_COLUMNS})
SELECT :grain, start, roles.role, {STORED_COLUMNS} FROM (
    SELECT {STORED_COLUMNS}, start,
    {rank_columns("provider, sku, location, start")}
    FROM (SELECT {STORED_COLUMNS}, {{span_start}} AS start FROM offer_history) AS spanned
) AS ranked CROSS JOIN ({_ROLES}) AS roles
WHERE ({KEPT}) AND ({_KEPT_IN_ROLE})
"""  # noqa: S608 - fixed columns and roles

# The change points before :cutoff but each offer's newest of them, oldest first: the point
# in effect at the cutoff stays, so a range that starts after it still has the point its
# offer's line starts from (storage.history carries it in) and the next scrape is compared
# with it (a price unchanged since is not written again).
_OLD_POINTS: Final = """
DELETE FROM offer_history WHERE id IN (
    SELECT h.id FROM offer_history AS h
    WHERE h.at < :cutoff AND h.id <> (
        SELECT n.id FROM offer_history AS n
        WHERE n.provider = h.provider AND n.sku = h.sku AND n.location = h.location
          AND n.at < :cutoff
        ORDER BY n.at DESC, n.id DESC LIMIT 1
    )
    ORDER BY h.at LIMIT :batch
)
"""
# (A look-up per row, on offer_history_by_offer, as _latest_states makes it: written as
# EXISTS (a newer point before the cutoff), PostgreSQL joined all old rows with each other,
# 20 s a batch on 86 000 of them.)


def span_start(moment: datetime, grain: int) -> datetime:
    """The start of the span of `grain` seconds that `moment` falls in (UTC)."""
    epoch = int(moment.timestamp())
    return datetime.fromtimestamp(epoch - epoch % grain, UTC)


def span_after(moment: datetime, grain: int) -> datetime:
    """The first span start of `grain` at or after `moment`."""
    start = span_start(moment, grain)
    return start if start == moment else start + timedelta(seconds=grain)


async def add_to_tiers(
    connection: Connection, points: Sequence[tuple[datetime, Sequence[object]]]
) -> None:
    """Fold change points into the summaries of their spans, in the caller's transaction.

    `points`: each point's moment and its STORED_COLUMNS values (as written to offer_history).
    A point takes a role's row where it comes first in the role's order (or ties, being newer).
    """
    dialect = connection.dialect
    await connection.executemany(
        _UPSERT,
        [
            (grain, moment_value(dialect, span_start(at, grain)), role, *values)
            for at, values in points
            for grain in GRAINS
            for role in ORDERS
        ],
    )


async def rebuild_tiers(connection: Connection) -> None:
    """Make the summaries anew from the change points (the migration that adds them, and a
    bulk load that writes change points directly): the same rows `add_to_tiers` keeps."""
    await connection.execute("DELETE FROM offer_history_tiers")
    query = _REBUILD.format(span_start=_SPAN_START[connection.dialect])
    for grain in GRAINS:
        await connection.execute(query, {"grain": grain})


async def compact_history(
    db: Database,
    now: datetime,
    batch: int = COMPACT_BATCH,
    keep_going: Callable[[], bool] = lambda: True,
) -> tuple[int, int]:
    """The retention: delete the change points and the finer summaries older than FULL_DETAIL
    (the daily summaries stay), `batch` rows per transaction, yielding between them; it stops
    early when `keep_going` says no (a leader that lost its lease), to go on another day.

    Returns (change points deleted, summary rows deleted).
    """
    cutoff = now - FULL_DETAIL
    points = 0
    while keep_going():
        async with db.transaction() as connection:
            cut = moment_value(connection.dialect, cutoff)
            deleted = await connection.execute(_OLD_POINTS, {"cutoff": cut, "batch": batch})
        points += deleted
        await asyncio.sleep(0)  # the event loop's other work, and other writers, go first
        if deleted < batch:
            break
    summaries = 0
    for grain in GRAINS[:-1]:
        more = True
        while more and keep_going():
            async with db.transaction() as connection:
                deleted, more = await _delete_old_spans(connection, grain, cutoff, batch)
            summaries += deleted
            await asyncio.sleep(0)
    return points, summaries


async def _delete_old_spans(
    connection: Connection, grain: int, cutoff: datetime, batch: int
) -> tuple[int, bool]:
    """The oldest summary rows of `grain` that start before `cutoff`: `batch` of them and the
    rest of the last span they reach into (a range of the key, on both backends). Returns the
    rows deleted and whether older rows remain."""
    cut = moment_value(connection.dialect, cutoff)
    last = await scalar(
        connection,
        "SELECT start FROM offer_history_tiers WHERE grain = ? AND start < ?"
        " ORDER BY start LIMIT 1 OFFSET ?",
        (grain, cut, batch - 1),
    )
    if last is None:
        deleted = await connection.execute(
            "DELETE FROM offer_history_tiers WHERE grain = ? AND start < ?", (grain, cut)
        )
        return deleted, False
    deleted = await connection.execute(
        "DELETE FROM offer_history_tiers WHERE grain = ? AND start <= ?", (grain, last)
    )
    return deleted, True
