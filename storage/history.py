"""Tracked offers (the snapshot plus offers missing for a while) and the price/stock history.

History rows are change points: `record_change_points` writes a row only for the offers that
monitor.history.changed_offers names (what a point records differs from the latest row), so
the table grows with changes, not with scrapes. Because of that, "the points since T" alone
would miss an offer whose price has not changed since before T; the queries here also count,
for each offer still tracked, the point that was in effect at T (see `_POINTS_SINCE`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Final

from monitor.cards import VRAM_SLACK_GB, Card, CardFilter
from monitor.diff import OfferKey, Tracked
from monitor.history import HistoryPoint, PointState, changed_offers
from monitor.offers import Offer, StockState
from storage.history_points import (
    KEPT,
    POINT_COLUMNS,
    RENTABLE_VALUES,
    STORED_COLUMNS,
    STORED_COUNT,
    rank_columns,
)
from storage.history_tiers import (
    DAY,
    GRAINS,
    add_to_tiers,
    compact_history,
    span_after,
    span_start,
)

# One stored row layout for offers lives in storage.offers; reusing it keeps the two writers
# of the offers table from drifting apart.
from storage.offers import _COLUMNS, COLUMN_COUNT, _offer, _row, card_values
from storage.sql import Connection, Database, Dialect, Row, moment_of, moment_value

# Readers that show offers to users as on sale now must add this condition: the offers table
# also keeps offers that are missing from the latest snapshot until diff removes them.
LISTED_OFFERS_FILTER: Final = "missing_runs = 0"

# Keys per latest-points query: 3 bound values each stays far below SQLite's variable limit
# (32766 since 3.32) and PostgreSQL's (65535).
_KEYS_PER_QUERY = 300

# A series answers with at most this many buckets in all, shared among its offers (each
# offer at least one), each bucket keeping up to three points, and each offer the point
# carried in: about 1 000 points, some 200 KB of /api/v1/history's JSON at about 200 bytes a
# point, however many offers a card has and however busy its market. A year of one offer
# changing every 10 minutes was 52 000 points, more than any screen can draw.
HISTORY_BUCKETS = 300

# The point that was in effect at :since for each offer still tracked (in the offers table
# with the same card): a price that has not changed for 40 days is still a price "in the last
# 30 days". Offers no longer tracked are not carried in, because history does not record
# when they went away. One look-up per tracked offer on offer_history_by_offer; the
# retention keeps each offer's newest point before its cutoff (storage.history_tiers), so
# the point is there for any range within the full detail.
_CARRIED = """
WITH carried AS (
    SELECT (
        SELECT x.id FROM offer_history AS x
        WHERE x.provider = o.provider AND x.sku = o.sku AND x.location = o.location
          AND x.gpu = o.gpu AND x.at < :since
        ORDER BY x.at DESC, x.id DESC LIMIT 1
    ) AS id
    FROM offers AS o WHERE {offer_cards}
),
"""

# The series in buckets, in the database: the range since :since cut into :last + 1 buckets
# of :width seconds, and in each bucket of each offer only the points storage.history_points
# ORDERS keeps (its cheapest, rentable ones first, so the low a caption or `low` quotes is
# kept exactly; its dearest; its last, where the line goes on from). The point carried in is
# a bucket of its own. {bucket}: a point's bucket number (per dialect).
_BUCKETED = f"""
, bucketed AS (
    SELECT {POINT_COLUMNS}, CASE WHEN at < :since THEN -1 ELSE {{bucket}} END AS bucket
    FROM points
),
ranked AS (
    SELECT {POINT_COLUMNS},
    {rank_columns("provider, sku, location, bucket")}
    FROM bucketed
)
SELECT {POINT_COLUMNS} FROM ranked WHERE {KEPT}
ORDER BY at, provider, sku, location, price_hour
"""  # noqa: S608 - fixed columns and enum values

_BUCKET_TERMS: Final[Mapping[Dialect, str]] = {
    "sqlite": "min(CAST((julianday(at) - julianday(:since)) * 86400.0 / :width AS INTEGER), :last)",
    "postgresql": "least(floor(CAST(extract(epoch FROM at - CAST(:since AS timestamptz))"
    " AS double precision) / :width), :last)",
}

# How many offers have points in a range, and the newest point: from the daily summaries of
# the days the range touches (a few rows per offer and day), before the series is read.
_OFFERS_IN_RANGE = """
SELECT count(*), max(newest) FROM (
    SELECT max(at) AS newest FROM offer_history_tiers
    WHERE grain = :grain AND {cards} AND start >= :day
    GROUP BY provider, sku, location
) AS offers
"""


class HistoryQueries:
    _db: Database

    async def compact_history(
        self, now: datetime, keep_going: Callable[[], bool] = lambda: True
    ) -> tuple[int, int]:
        """The history's retention (storage.history_tiers.compact_history)."""
        return await compact_history(self._db, now, keep_going=keep_going)

    async def lowest_price(self, cards: CardFilter, since: datetime) -> HistoryPoint | None:
        """The cheapest ₽ per GPU-hour offered for these cards since `since` (within the full
        detail: storage.history_tiers.FULL_DETAIL).

        Only points that were rentable count (in stock, or priced with unknown stock). Ties go
        to the most recent point. Read from the daily summaries, which keep each day's low.
        """
        query, params = _points_since(self._db.dialect, cards, since, DAY)
        query += (
            f"SELECT {POINT_COLUMNS} FROM points"  # noqa: S608 - fixed columns
            f" WHERE stock IN ({RENTABLE_VALUES})"
            " ORDER BY price_hour / gpu_count, at DESC, provider, sku, location LIMIT 1"
        )
        async with self._db.access() as connection:
            row = await connection.fetchone(query, params)
        return None if row is None else _point(row)

    async def price_series(self, cards: CardFilter, since: datetime) -> list[HistoryPoint]:
        """The change points of these cards since `since` (within the full detail) in
        buckets, oldest first, for a chart and the open-data history: HISTORY_BUCKETS shared
        among the offers, up to three points each (`_BUCKETED`), the range's lowest rentable
        price among them exactly.

        A bucket spanning 4 hours or more is read from the summaries of that grain
        (storage.history_tiers), which keep every span's low, high and last: the parts of
        the range before the first whole span come from the finer grains and the change
        points, so every point the range holds is either read or stood for by a cheaper,
        dearer or later point of the same range.

        Each tracked offer's series starts with the point in effect at `since` (which may be
        older), so a line can be drawn from the left edge of the chart.
        """
        dialect = self._db.dialect
        async with self._db.access() as connection:
            offers, newest = await _offers_in_range(connection, cards, since)
            buckets = max(1, HISTORY_BUCKETS // max(1, offers))
            width = max(1.0, ((newest or since) - since).total_seconds() / buckets)
            grain = max((grain for grain in GRAINS if grain <= width), default=0)
            query, params = _points_since(dialect, cards, since, grain)
            # The newest point ends the range: it closes the last bucket rather than opening one.
            query += _BUCKETED.format(bucket=_BUCKET_TERMS[dialect])
            params |= {"width": width, "last": buckets - 1}
            rows = await connection.fetchall(query, params)
        return [_point(row) for row in rows]


async def read_tracked(connection: Connection, provider: str) -> dict[OfferKey, Tracked]:
    """`HistoryQueries.load_tracked` on a connection the caller holds (e.g. in its transaction)."""
    rows = await connection.fetchall(
        f"SELECT {_COLUMNS}, missing_runs, part FROM offers WHERE provider = ?"  # noqa: S608
        " ORDER BY sku, location",
        (provider,),
    )
    tracked = (
        Tracked(_offer(row), row["missing_runs"], row["part"], moment_of(row["fetched_at"]))
        for row in rows
    )
    return {entry.offer.key: entry for entry in tracked}


async def write_tracked(
    connection: Connection,
    provider: str,
    tracked: Mapping[OfferKey, Tracked],
    fetched_at: datetime,
) -> None:
    """Replace the provider's offers rows with `tracked`, inside the caller's transaction.

    The `fetched_at` column is each offer's `observed_at`: when a good scrape of its part last
    saw it (`Tracked.seen_at`, which monitor.diff stamps; `fetched_at`, the snapshot's time,
    for an entry not stamped yet). A held part's offers keep their older time, so a failing
    part's rows never look as fresh as the scrape that could not read them.
    """
    for key, entry in tracked.items():
        if key != entry.offer.key or key[0] != provider:
            raise ValueError(f"tracked entry {key} does not belong to {provider}")
    dialect = connection.dialect
    await connection.execute("DELETE FROM offers WHERE provider = ?", (provider,))
    await connection.executemany(
        f"INSERT INTO offers ({_COLUMNS}, missing_runs, part)"  # noqa: S608 - fixed columns
        f" VALUES ({', '.join('?' * (COLUMN_COUNT + 2))})",
        [
            (
                *_row(entry.offer, moment_value(dialect, entry.seen_at or fetched_at)),
                entry.missing_runs,
                entry.part,
            )
            for entry in tracked.values()
        ],
    )


async def record_change_points(
    connection: Connection, offers: Iterable[Offer], at: datetime
) -> int:
    """Write a history row for each offer that changed since its latest row (or has none).

    Returns the number of rows written. Meant for the offers of a new good snapshot, inside the
    same transaction that stores it.
    """
    by_key = {offer.key: offer for offer in offers}
    latest = await _latest_states(connection, list(by_key))
    changed = changed_offers(by_key.values(), latest)
    await write_points(connection, [(_change_point(offer, at), offer.card) for offer in changed])
    return len(changed)


async def write_points(connection: Connection, points: Sequence[tuple[HistoryPoint, Card]]) -> None:
    """Store change points with their offers' cards, and fold them into the summaries
    (storage.history_tiers), inside the caller's transaction: the one way points are written."""
    dialect = connection.dialect
    rows = [(point.at, _stored_row(dialect, point, card)) for point, card in points]
    await connection.executemany(
        f"INSERT INTO offer_history ({STORED_COLUMNS})"  # noqa: S608 - fixed columns
        f" VALUES ({', '.join('?' * STORED_COUNT)})",
        [values for _, values in rows],
    )
    await add_to_tiers(connection, rows)


async def _latest_states(
    connection: Connection, keys: Sequence[OfferKey]
) -> dict[OfferKey, PointState]:
    """The latest history state of each key: one indexed look-up per key, in few queries."""
    found: dict[OfferKey, PointState] = {}
    for start in range(0, len(keys), _KEYS_PER_QUERY):
        chunk = keys[start : start + _KEYS_PER_QUERY]
        values = ", ".join(["(?, ?, ?)"] * len(chunk))
        rows = await connection.fetchall(
            f"WITH wanted (provider, sku, location) AS (VALUES {values})"  # noqa: S608
            " SELECT h.provider, h.sku, h.location, h.gpu, h.gpu_count, h.price_hour, h.stock,"
            " h.stock_count FROM wanted AS w JOIN offer_history AS h ON h.id = ("
            "  SELECT x.id FROM offer_history AS x WHERE x.provider = w.provider"
            "  AND x.sku = w.sku AND x.location = w.location"
            "  ORDER BY x.at DESC, x.id DESC LIMIT 1)",
            [part for key in chunk for part in key],
        )
        for row in rows:
            found[(row[0], row[1], row[2])] = (row[3], row[4], row[5], row[6], row[7])
    return found


def _change_point(offer: Offer, at: datetime) -> HistoryPoint:
    return HistoryPoint(
        provider=offer.provider,
        sku=offer.sku,
        location=offer.location,
        gpu=offer.gpu,
        gpu_count=offer.gpu_count,
        at=at,
        price_hour=offer.price.rub_per_hour,
        stock=offer.stock,
        stock_count=offer.stock_count,
    )


def _stored_row(dialect: Dialect, point: HistoryPoint, card: Card) -> tuple[object, ...]:
    return (
        point.provider,
        point.sku,
        point.location,
        point.gpu,
        point.gpu_count,
        moment_value(dialect, point.at),
        point.price_hour,
        point.stock.value,
        point.stock_count,
        *card_values(card),
    )


def _card_condition(cards: CardFilter, table: str = "") -> tuple[str, dict[str, object]]:
    """CardFilter.accepts (monitor.cards.card_meets) as SQL on a row's stored card: the same
    three conditions, the memory floor written the same way (floor ≤ memory + slack; a NULL
    memory fails it, as unknown memory fails it there). `table`: the alias to qualify with."""
    terms: list[str] = []
    params: dict[str, object] = {}
    if cards.gpu is not None:
        terms.append(f"{table}card_id = :card_id")
        params["card_id"] = cards.gpu
    if cards.family is not None:
        terms.append(f"{table}card_family = :card_family")
        params["card_family"] = cards.family
    if cards.min_vram_gb is not None:
        terms.append(f":card_vram_gb <= {table}card_vram_gb + :vram_slack")
        params |= {"card_vram_gb": cards.min_vram_gb, "vram_slack": VRAM_SLACK_GB}
    return " AND ".join(terms) or "TRUE", params


def _points_since(
    dialect: Dialect, cards: CardFilter, since: datetime, grain: int
) -> tuple[str, dict[str, object]]:
    """`WITH carried AS (...), points AS (...)`: the points of these cards since `since` read
    at `grain` (0: the change points themselves), and each tracked offer's point carried in.

    Each grain up to `grain` reads the part of the range from where the finer one stops to
    its own first span start (the change points from `since`): a span of a grain is read
    only when the range holds all of it, so every point of the range is read or stood for.
    """
    condition, params = _card_condition(cards)
    offer_condition, _ = _card_condition(cards, "o.")
    params["since"] = moment_value(dialect, since)
    grains = [0, *(each for each in GRAINS if each <= grain)]
    # Where each grain's part starts: `since`, then each coarser grain's first span start.
    starts = [since, *(span_after(since, each) for each in grains[1:])]
    parts: list[str] = []
    for number, each in enumerate(grains):
        params[f"from{number}"] = moment_value(dialect, starts[number])
        if each == 0:
            where = f"offer_history WHERE {condition} AND at >= :from{number}"
        else:
            where = (
                f"offer_history_tiers WHERE grain = {each} AND {condition}"
                f" AND start >= :from{number}"
            )
        if number + 1 < len(grains):
            if starts[number + 1] <= starts[number]:
                continue  # `since` is a span start: nothing before it to read finer
            params[f"to{number}"] = moment_value(dialect, starts[number + 1])
            where += f" AND {'at' if each == 0 else 'start'} < :to{number}"
        parts.append(f"SELECT {POINT_COLUMNS} FROM {where}")  # noqa: S608 - fixed parts
    parts.append(
        f"SELECT {POINT_COLUMNS} FROM offer_history"  # noqa: S608 - fixed columns
        " WHERE id IN (SELECT id FROM carried)"
    )
    union = "\n    UNION\n    ".join(parts)
    query = _CARRIED.format(offer_cards=offer_condition)
    return f"{query}points AS MATERIALIZED (\n    {union}\n)\n", params


async def _offers_in_range(
    connection: Connection, cards: CardFilter, since: datetime
) -> tuple[int, datetime | None]:
    """How many offers have points in the days `since` reaches into, and the newest point."""
    condition, params = _card_condition(cards)
    params |= {"grain": DAY, "day": moment_value(connection.dialect, span_start(since, DAY))}
    row = await connection.fetchone(_OFFERS_IN_RANGE.format(cards=condition), params)
    if row is None or row[1] is None:
        return 0, None
    return int(row[0]), moment_of(row[1])


def _point(row: Row) -> HistoryPoint:
    return HistoryPoint(
        provider=row["provider"],
        sku=row["sku"],
        location=row["location"],
        gpu=row["gpu"],
        gpu_count=row["gpu_count"],
        at=moment_of(row["at"]),
        price_hour=row["price_hour"],
        stock=StockState(row["stock"]),
        stock_count=row["stock_count"],
    )
