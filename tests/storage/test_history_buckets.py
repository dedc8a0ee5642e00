"""History served in buckets (storage.history.price_series): a bounded number of points per
offer, and the range's true low always among them."""

from __future__ import annotations

import asyncio
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
from storage.history import HISTORY_POINTS_PER_OFFER, write_tracked
from storage.offers import card_values
from storage.sql import moment_value
from tests.factories import make_offer

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
GPU = "RTX 4090"
CARD = CardFilter(gpu=GPU)

# (minutes before NOW, ₽ per hour, stock) of one offer's change points.
Points = list[tuple[int, int, StockState]]


async def insert(store: Store, sku: str, points: Points) -> None:
    dialect = store.dialect
    async with store._db.transaction() as connection:
        await connection.executemany(
            "INSERT INTO offer_history (provider, sku, location, gpu, gpu_count, at,"
            " price_hour, stock, stock_count, card_id, card_family, card_sizing, card_vram_gb)"
            " VALUES ('acme', ?, 'MSK', ?, 1, ?, ?, ?, NULL, ?, ?, ?, ?)",
            [
                (
                    sku,
                    GPU,
                    moment_value(dialect, NOW - timedelta(minutes=ago)),
                    price,
                    stock.value,
                    *card_values(card_of(GPU, None)),
                )
                for ago, price, stock in points
            ],
        )


async def tracked(store: Store, sku: str) -> None:
    offer = make_offer(sku, 100, gpu=GPU, location="MSK")
    async with store._db.transaction() as connection:
        await write_tracked(connection, "acme", {offer.key: Tracked(offer)}, NOW)


def per_offer(points: list[HistoryPoint]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for point in points:
        counts[point.sku] = counts.get(point.sku, 0) + 1
    return counts


async def test_a_busy_offer_answers_in_bounded_buckets_with_its_low(store: Store):
    # Every 10 minutes for 90 days, a low in the middle of a busy stretch.
    busy = [(ago, 300 + ago % 7, StockState.IN_STOCK) for ago in range(10, 90 * 1440, 10)]
    busy.append((45 * 1440 + 3, 90, StockState.IN_STOCK))
    busy.append((45 * 1440 + 4, 50, StockState.OUT_OF_STOCK))  # cheaper, but not rentable
    await insert(store, "busy", busy)
    series = await store.price_series(CARD, NOW - timedelta(days=90))
    assert len(busy) > 10 * HISTORY_POINTS_PER_OFFER
    assert per_offer(series)["busy"] <= HISTORY_POINTS_PER_OFFER
    rentable = [point.price_hour for point in series if point.stock in RENTABLE_STOCK]
    assert min(rentable) == 90
    # The newest point is there: the line ends where the offer is now.
    assert series[-1].at == NOW - timedelta(minutes=10)
    assert [point.at for point in series] == sorted(point.at for point in series)


def true_low(points: Points, since_ago: int, carried: bool) -> float | None:
    """The cheapest rentable price in effect at some moment since `since_ago`, the slow way."""
    inside = [(price, stock) for ago, price, stock in points if ago <= since_ago]
    before = [(ago, price, stock) for ago, price, stock in points if ago > since_ago]
    if carried and before:
        _, price, stock = min(before)  # the newest before the window: in effect at its start
        inside.append((price, stock))
    prices = [price for price, stock in inside if stock in RENTABLE_STOCK]
    return float(min(prices)) if prices else None


point_lists = st.lists(
    st.tuples(
        st.integers(0, 600),
        st.integers(1, 1000),
        st.sampled_from(list(StockState)),
    ),
    max_size=40,
    unique_by=lambda point: point[0],
)


# The patched constant is the same for every example: the fixture needs no reset.
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kept=point_lists, gone=point_lists, since_ago=st.integers(0, 600))
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
    # Few buckets, so that many points share one: the low must survive the merge.
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
