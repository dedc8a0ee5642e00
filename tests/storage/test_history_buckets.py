"""History served in buckets (storage.history.price_series): a bounded number of points per
offer, and the range's true low always among them."""

from __future__ import annotations

import asyncio
import itertools
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import storage.history
from monitor.cards import CardFilter, card_of
from monitor.diff import Tracked
from monitor.history import HistoryPoint
from monitor.offers import RENTABLE_STOCK, StockState
from storage import Store
from storage.history import HISTORY_BUCKETS, write_points, write_tracked
from storage.history_tiers import rebuild_tiers
from tests.factories import make_offer

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
GPU = "RTX 4090"
CARD = CardFilter(gpu=GPU)

# (minutes before NOW, ₽ per hour, stock) of one offer's change points.
Points = list[tuple[int, int, StockState]]


def point(sku: str, ago: int, price: float, stock: StockState) -> HistoryPoint:
    return HistoryPoint(
        "acme", sku, "MSK", GPU, 1, NOW - timedelta(minutes=ago), price, stock, None
    )


async def insert(store: Store, sku: str, points: Points) -> None:
    """The points as a scrape writes them: with the summaries kept as they come, oldest first."""
    card = card_of(GPU, None)
    async with store._db.transaction() as connection:
        await write_points(
            connection,
            [(point(sku, *each), card) for each in sorted(points, key=lambda each: -each[0])],
        )


async def tracked(store: Store, sku: str) -> None:
    offer = make_offer(sku, 100, gpu=GPU, location="MSK")
    async with store._db.transaction() as connection:
        await write_tracked(connection, "acme", {offer.key: Tracked(offer)}, NOW)


def per_offer(points: list[HistoryPoint]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for each in points:
        counts[each.sku] = counts.get(each.sku, 0) + 1
    return counts


async def test_a_busy_offer_answers_in_bounded_buckets_with_its_low(store: Store):
    # Every 10 minutes for 90 days, a low in the middle of a busy stretch.
    busy = [(ago, 300 + ago % 7, StockState.IN_STOCK) for ago in range(10, 90 * 1440, 10)]
    busy.append((45 * 1440 + 3, 90, StockState.IN_STOCK))
    busy.append((45 * 1440 + 4, 50, StockState.OUT_OF_STOCK))  # cheaper, but not rentable
    await insert(store, "busy", busy)
    series = await store.price_series(CARD, NOW - timedelta(days=90))
    assert len(busy) > 10 * (3 * HISTORY_BUCKETS + 1)
    assert per_offer(series)["busy"] <= 3 * HISTORY_BUCKETS + 1
    rentable = [each.price_hour for each in series if each.stock in RENTABLE_STOCK]
    assert min(rentable) == 90
    # The newest point is there: the line ends where the offer is now.
    assert series[-1].at == NOW - timedelta(minutes=10)
    assert [each.at for each in series] == sorted(each.at for each in series)


async def test_the_offers_of_a_card_share_the_buckets(
    store: Store, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(storage.history, "HISTORY_BUCKETS", 30)
    for number in range(10):  # hourly for 30 days, each with a low of its own
        points = [(ago, 500 + ago % 11, StockState.IN_STOCK) for ago in range(60, 30 * 1440, 60)]
        points.append((number * 1440 + 30, 100 + number, StockState.IN_STOCK))
        await insert(store, f"offer-{number}", points)
    series = await store.price_series(CARD, NOW - timedelta(days=30))
    counts = per_offer(series)
    assert len(counts) == 10
    assert all(count <= 3 * (30 // 10) for count in counts.values())
    lows = {each.sku: each.price_hour for each in series if each.price_hour < 500}
    assert lows == {f"offer-{number}": 100 + number for number in range(10)}


def true_low(points: Points, since_ago: int, carried: bool) -> float | None:
    """The cheapest rentable price in effect at some moment since `since_ago`, the slow way."""
    inside = [(price, stock) for ago, price, stock in points if ago <= since_ago]
    before = [(ago, price, stock) for ago, price, stock in points if ago > since_ago]
    if carried and before:
        _, price, stock = min(before)  # the newest before the window: in effect at its start
        inside.append((price, stock))
    prices = [price for price, stock in inside if stock in RENTABLE_STOCK]
    return float(min(prices)) if prices else None


# Three days: ranges long enough to be read from the 4-hour and the daily summaries.
SPAN_MINUTES = 3 * 1440


def point_lists(highest_price: int, most: int) -> st.SearchStrategy[Points]:
    """One offer's change points within SPAN_MINUTES, at most one a minute."""
    return st.lists(
        st.tuples(
            st.integers(0, SPAN_MINUTES),
            st.integers(1, highest_price),
            st.sampled_from(list(StockState)),
        ),
        max_size=most,
        unique_by=lambda point: point[0],
    )


# The patched constant is the same for every example: the fixture needs no reset.
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    kept=point_lists(1000, 40), gone=point_lists(1000, 40), since_ago=st.integers(0, SPAN_MINUTES)
)
# The newest point ends the range: it closes the last bucket, never opens a fourth.
@example(
    kept=[
        (ago, 1 if ago % 2 else 2, StockState.IN_STOCK)
        for ago in (0, 1, 2, 3, 80, 81, 82, 160, 161, 162, 163)
    ],
    gone=[],
    since_ago=162,
)
def test_the_buckets_keep_every_ranges_true_low(
    kept: Points, gone: Points, since_ago: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Few buckets, so that many points share one, and a bucket of a long range is read from
    # the summaries: the low must survive both.
    monkeypatch.setattr(storage.history, "HISTORY_BUCKETS", 3)

    async def check() -> None:
        with tempfile.TemporaryDirectory() as folder:
            store = await Store.open(Path(folder) / "history.sqlite3")
            try:
                await tracked(store, "kept")  # tracked: its point before the window counts
                await insert(store, "kept", kept)
                await insert(store, "gone", gone)  # no longer tracked: only points inside
                since = NOW - timedelta(minutes=since_ago)
                series = await store.price_series(CARD, since)
                lowest = await store.lowest_price(CARD, since)
            finally:
                await store.close()
        assert all(count <= 3 * 3 + 1 for count in per_offer(series).values())
        expected = [true_low(kept, since_ago, True), true_low(gone, since_ago, False)]
        lows = [low for low in expected if low is not None]
        want = min(lows) if lows else None
        shown = [point.price_hour for point in series if point.stock in RENTABLE_STOCK]
        assert (min(shown) if shown else None) == want
        assert (lowest.price_hour if lowest else None) == want

    asyncio.run(check())


async def tier_rows(store: Store) -> list[tuple[object, ...]]:
    async with store._db.access() as connection:
        rows = await connection.fetchall(
            "SELECT grain, start, role, sku, at, price_hour, stock FROM offer_history_tiers"
            " ORDER BY grain, start, sku, role"
        )
    return [tuple(row) for row in rows]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
# Prices from a few values, so that ties (which the newest point wins) are common.
@given(points=point_lists(4, 30), cuts=st.lists(st.integers(0, 30), max_size=4))
def test_summaries_kept_as_points_come_are_the_ones_made_from_all_of_them(
    points: Points, cuts: list[int]
) -> None:
    async def check() -> None:
        with tempfile.TemporaryDirectory() as folder:
            store = await Store.open(Path(folder) / "history.sqlite3")
            try:
                card = card_of(GPU, None)
                # Written in any order, in a few transactions, as they come.
                for start, end in itertools.pairwise([0, *sorted(cuts), len(points)]):
                    async with store._db.transaction() as connection:
                        await write_points(
                            connection, [(point("a", *each), card) for each in points[start:end]]
                        )
                kept = await tier_rows(store)
                async with store._db.transaction() as connection:
                    await rebuild_tiers(connection)
                assert await tier_rows(store) == kept
            finally:
                await store.close()

    asyncio.run(check())
