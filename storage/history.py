"""Tracked offers (the snapshot plus offers missing for a while) and the price/stock history.

History rows are change points: `record_change_points` writes a row only for the offers that
monitor.history.changed_offers names (what a point records differs from the latest row), so
the table grows with changes, not with scrapes. Because of that, "the points since T" alone
would miss an offer whose price has not changed since before T; the queries here also count,
for each offer still tracked, the point that was in effect at T (see `_POINTS_SINCE`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Final

from monitor.cards import VRAM_SLACK_GB, CardFilter
from monitor.diff import OfferKey, Tracked
from monitor.history import HistoryPoint, PointState, changed_offers
from monitor.offers import RENTABLE_STOCK, Offer, StockState

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

# monitor.offers.rentable as SQL: fixed enum values, not user input.
_RENTABLE_VALUES = ", ".join(f"'{stock.value}'" for stock in sorted(RENTABLE_STOCK))

_POINT_COLUMNS = "provider, sku, location, gpu, gpu_count, at, price_hour, stock, stock_count"
# What a history row records beside the point it is read back as: the offer's card.
_HISTORY_COLUMNS = f"{_POINT_COLUMNS}, card_id, card_family, card_sizing, card_vram_gb"

# A series answers with at most this many buckets per offer (configuration), each keeping up
# to three points (HISTORY_POINTS_PER_OFFER in all, with the point carried in): a year of an
# offer changing every 10 minutes was 52 000 points, more than any screen can draw.
HISTORY_BUCKETS = 333
HISTORY_POINTS_PER_OFFER = 3 * HISTORY_BUCKETS + 1

# Change points of some cards since a moment, plus the point that was in effect at that moment
# for each offer still tracked (in the offers table with the same GPU): a price that has not
# changed for 40 days is still a price "in the last 30 days". Offers no longer tracked are not
# carried in, because history does not record when they went away.
#
# Bounded by time: the points since come off offer_history_by_card (card_id, at) or
# offer_history_by_family (card_family, at), and the point carried in is one look-up per
# tracked offer on offer_history_by_offer, so a year of older rows is never read (ranking them
# all took 182 ms for a 30-day answer that needs 19).
# Bound values: the card condition's (`_card_condition`) and :since.
_POINTS_SINCE = """
WITH carried AS (
    SELECT (
        SELECT x.id FROM offer_history AS x
        WHERE x.provider = o.provider AND x.sku = o.sku AND x.location = o.location
          AND x.gpu = o.gpu AND x.at < :since
        ORDER BY x.at DESC, x.id DESC LIMIT 1
    ) AS id
    FROM offers AS o WHERE {offer_cards}
),
points AS MATERIALIZED (
    SELECT id, {columns} FROM offer_history WHERE {cards} AND at >= :since
    UNION ALL
    SELECT id, {columns} FROM offer_history WHERE id IN (SELECT id FROM carried)
)
"""

# The series in buckets, in the database: the range since :since (to the newest point) cut
# into HISTORY_BUCKETS equal buckets, and in each bucket of each offer only its cheapest point
# (the rentable ones first: the low a caption or `low` quotes is kept exactly), its dearest,
# and its last (where the line goes on from). The point carried in is a bucket of its own.
# {width}: the bucket's length in seconds; {bucket}: a point's bucket number (per dialect).
_BUCKETED = f"""
, span AS MATERIALIZED (SELECT {{width}} AS width FROM points),
bucketed AS (
    SELECT id, provider, sku, location, at, price_hour / gpu_count AS unit,
        CASE WHEN stock IN ({_RENTABLE_VALUES}) THEN 0 ELSE 1 END AS unrentable,
        CASE WHEN at < :since THEN -1 ELSE {{bucket}} END AS bucket
    FROM points CROSS JOIN span
),
ranked AS (
    SELECT id,
        row_number() OVER (PARTITION BY provider, sku, location, bucket
            ORDER BY unrentable, unit, at DESC, id DESC) AS low_rank,
        row_number() OVER (PARTITION BY provider, sku, location, bucket
            ORDER BY unit DESC, at DESC, id DESC) AS high_rank,
        row_number() OVER (PARTITION BY provider, sku, location, bucket
            ORDER BY at DESC, id DESC) AS last_rank
    FROM bucketed
)
SELECT {_POINT_COLUMNS} FROM points WHERE id IN (
    SELECT id FROM ranked WHERE low_rank = 1 OR high_rank = 1 OR last_rank = 1
)
ORDER BY at, provider, sku, location, id
"""  # noqa: S608 - fixed columns and enum values

_BUCKET_TERMS: Final[Mapping[Dialect, tuple[str, str]]] = {
    "sqlite": (
        "max(1.0, (julianday(max(at)) - julianday(:since)) * 86400.0 / {buckets})",
        "min(CAST((julianday(at) - julianday(:since)) * 86400.0 / width AS INTEGER), {last})",
    ),
    "postgresql": (
        "greatest(1.0, extract(epoch FROM max(at) - CAST(:since AS timestamptz)) / {buckets})",
        "least(floor(extract(epoch FROM at - CAST(:since AS timestamptz)) / width), {last})",
    ),
}


class HistoryQueries:
    _db: Database

    async def lowest_price(self, cards: CardFilter, since: datetime) -> HistoryPoint | None:
        """The cheapest ₽ per GPU-hour offered for these cards since `since`.

        Only points that were rentable count (in stock, or priced with unknown stock). Ties go
        to the most recent point.
        """
        query, params = _points_since(self._db.dialect, cards, since)
        query += (
            f"SELECT {_POINT_COLUMNS} FROM points"  # noqa: S608 - fixed columns
            f" WHERE stock IN ({_RENTABLE_VALUES})"
            " ORDER BY price_hour / gpu_count, at DESC, provider, sku, location LIMIT 1"
        )
        async with self._db.access() as connection:
            row = await connection.fetchone(query, params)
        return None if row is None else _point(row)

    async def price_series(self, cards: CardFilter, since: datetime) -> list[HistoryPoint]:
        """The change points of these cards since `since` in buckets, oldest first, for a chart
        and the open-data history: at most HISTORY_POINTS_PER_OFFER per offer, the range's
        lowest rentable price among them exactly (`_BUCKETED`).

        Each tracked offer's series starts with the point in effect at `since` (which may be
        older), so a line can be drawn from the left edge of the chart.
        """
        dialect = self._db.dialect
        query, params = _points_since(dialect, cards, since)
        width, bucket = _BUCKET_TERMS[dialect]
        # The newest point ends the range: it closes the last bucket rather than opening one.
        last = HISTORY_BUCKETS - 1
        query += _BUCKETED.format(
            width=width.format(buckets=HISTORY_BUCKETS), bucket=bucket.format(last=last)
        )
        async with self._db.access() as connection:
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
    when = moment_value(connection.dialect, at)
    await connection.executemany(
        f"INSERT INTO offer_history ({_HISTORY_COLUMNS})"  # noqa: S608 - fixed columns
        f" VALUES ({', '.join('?' * (_HISTORY_COLUMNS.count(',') + 1))})",
        [_history_row(offer, when) for offer in changed],
    )
    return len(changed)


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


def _history_row(offer: Offer, when: object) -> tuple[object, ...]:
    return (
        offer.provider,
        offer.sku,
        offer.location,
        offer.gpu,
        offer.gpu_count,
        when,
        offer.price.rub_per_hour,
        offer.stock.value,
        offer.stock_count,
        *card_values(offer.card),
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
    dialect: Dialect, cards: CardFilter, since: datetime
) -> tuple[str, dict[str, object]]:
    condition, params = _card_condition(cards)
    offer_condition, _ = _card_condition(cards, "o.")
    params["since"] = moment_value(dialect, since)
    query = _POINTS_SINCE.format(
        columns=_POINT_COLUMNS, cards=condition, offer_cards=offer_condition
    )
    return query, params


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
