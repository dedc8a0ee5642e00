"""History retention (storage.history_tiers.compact_history): full detail for FULL_DETAIL, then
each offer's daily low, high and last; in short batches; nothing a range within the full
detail answers changes."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.cards import CardFilter, card_of
from monitor.diff import Tracked
from monitor.history import HistoryPoint
from monitor.offers import RENTABLE_STOCK, StockState
from storage import Store
from storage.history import record_change_points, write_points, write_tracked
from storage.history_tiers import DAY, FOUR_HOURS, FULL_DETAIL, compact_history, span_start
from storage.sql import moment_of
from tests.factories import make_offer

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
CUTOFF = NOW - FULL_DETAIL
GPU = "RTX 4090"
CARD = CardFilter(gpu=GPU)

# (minutes before NOW, ₽ per hour, stock) of one offer's change points.
Points = list[tuple[int, int, StockState]]


async def insert(store: Store, sku: str, points: Points) -> None:
    card = card_of(GPU, None)
    async with store._db.transaction() as connection:
        await write_points(
            connection,
            [
                (
                    HistoryPoint(
                        "acme", sku, "MSK-1", GPU, 1, NOW - timedelta(minutes=ago), price, stock, 1
                    ),
                    card,
                )
                for ago, price, stock in sorted(points, key=lambda point: -point[0])
            ],
        )


async def track(store: Store, sku: str) -> None:
    offer = make_offer(sku, 70)
    async with store._db.transaction() as connection:
        await write_tracked(connection, "acme", {offer.key: Tracked(offer)}, NOW)


async def change_points(store: Store) -> list[tuple[str, datetime]]:
    async with store._db.access() as connection:
        rows = await connection.fetchall("SELECT sku, at FROM offer_history ORDER BY sku, at")
    return [(row[0], moment_of(row[1])) for row in rows]


# (span start, sku, role, the point's moment, ₽ per hour, stock) of a summary row.
Summary = tuple[datetime, str, str, datetime, float, str]


async def summaries(store: Store, grain: int) -> list[Summary]:
    async with store._db.access() as connection:
        rows = await connection.fetchall(
            "SELECT start, sku, role, at, price_hour, stock FROM offer_history_tiers"
            " WHERE grain = ? ORDER BY start, sku, role",
            (grain,),
        )
    return [(moment_of(row[0]), row[1], row[2], moment_of(row[3]), row[4], row[5]) for row in rows]


async def test_old_detail_goes_in_batches_and_the_daily_summaries_stay(store: Store):
    # Every 6 hours for 100 days; offer "b" stopped changing 95 days ago.
    await insert(
        store,
        "a",
        [(ago, 100 + ago % 13, StockState.IN_STOCK) for ago in range(0, 100 * 1440, 360)],
    )
    await insert(store, "b", [(ago, 70, StockState.IN_STOCK) for ago in (99 * 1440, 95 * 1440)])
    offer = replace(make_offer("b", 70), stock_count=1)  # as its last point says
    await track(store, "b")
    daily = await summaries(store, DAY)
    since = NOW - timedelta(days=90)
    series = await store.price_series(CARD, since)
    lowest = await store.lowest_price(CARD, since)

    deleted, dropped = await compact_history(store.database, NOW, batch=7)

    left = await change_points(store)
    # Each offer keeps its newest point before the cutoff, and everything after it.
    assert [at for sku, at in left if sku == "b"] == [NOW - timedelta(days=95)]
    kept_a = [at for sku, at in left if sku == "a"]
    assert min(kept_a) == max(at for at in kept_a if at < CUTOFF)
    assert len([at for at in kept_a if at < CUTOFF]) == 1
    assert deleted == (400 - len(kept_a)) + 1
    fine = await summaries(store, FOUR_HOURS)
    assert fine
    assert min(row[0] for row in fine) >= span_start(CUTOFF, FOUR_HOURS)
    assert dropped > 0
    assert await summaries(store, DAY) == daily
    # A range within the full detail answers as before, the old point carried in included.
    assert await store.price_series(CARD, since) == series
    assert await store.lowest_price(CARD, since) == lowest
    # The newest point is still what the next scrape compares with: no new change point.
    async with store._db.transaction() as connection:
        assert await record_change_points(connection, [offer], NOW) == 0
    assert await compact_history(store.database, NOW, batch=7) == (0, 0)


def true_days(points: Points) -> dict[datetime, tuple[float | None, float]]:
    """Each day's cheapest rentable price and last price, from every change point."""
    days: dict[datetime, list[tuple[int, int, StockState]]] = {}
    for point in points:
        days.setdefault(span_start(NOW - timedelta(minutes=point[0]), DAY), []).append(point)
    truth: dict[datetime, tuple[float | None, float]] = {}
    for day, inside in days.items():
        rentable = [price for _, price, stock in inside if stock in RENTABLE_STOCK]
        last = min(inside)[1]  # the fewest minutes ago
        truth[day] = (float(min(rentable)) if rentable else None, float(last))
    return truth


async def kept_days(store: Store) -> dict[datetime, tuple[float | None, float]]:
    rows = await summaries(store, DAY)
    kept: dict[datetime, tuple[float | None, float]] = {}
    for start, _, role, _, price, stock in rows:
        low, last = kept.get(start, (None, 0.0))
        if role == "low" and stock in {state.value for state in RENTABLE_STOCK}:
            low = price
        if role == "last":
            last = price
        kept[start] = (low, last)
    return kept


DETAIL_MINUTES = int(FULL_DETAIL.total_seconds() // 60)

point_lists = st.lists(
    st.tuples(
        # Around the cutoff: some points kept in full, some only in their day's summary.
        st.integers(DETAIL_MINUTES - 3 * 1440, DETAIL_MINUTES + 3 * 1440),
        st.integers(1, 50),
        st.sampled_from(list(StockState)),
    ),
    max_size=40,
    unique_by=lambda point: point[0],
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Ranges that start just after the cutoff: their line starts from a point before it.
@given(
    points=point_lists,
    batch=st.integers(1, 10),
    since_ago=st.integers(DETAIL_MINUTES - 4 * 1440, DETAIL_MINUTES),
)
def test_compaction_keeps_each_days_low_and_last_and_every_recent_ranges_low(
    points: Points, batch: int, since_ago: int
) -> None:
    async def check() -> None:
        with tempfile.TemporaryDirectory() as folder:
            store = await Store.open(Path(folder) / "history.sqlite3")
            try:
                await track(store, "a")  # its point before a range is carried in
                await insert(store, "a", points)
                since = NOW - timedelta(minutes=since_ago)
                before = (
                    await store.price_series(CARD, since),
                    await store.lowest_price(CARD, since),
                )
                await compact_history(store.database, NOW, batch=batch)
                assert await kept_days(store) == true_days(points)
                after = (
                    await store.price_series(CARD, since),
                    await store.lowest_price(CARD, since),
                )
                assert after == before
            finally:
                await store.close()

    asyncio.run(check())
