"""storage.history: tracked offers with missing_runs, and change-point price/stock history."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from monitor.cards import CardFilter
from monitor.diff import OfferKey, Tracked
from monitor.history import HistoryPoint
from monitor.offers import Offer, StockState
from storage import Store
from storage.history import LISTED_OFFERS_FILTER, record_change_points, write_tracked
from storage.sql import moment_of
from tests.factories import make_offer
from tests.store_helpers import load_tracked

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
MONTH_AGO = NOW - timedelta(days=30)
IN, OUT, PRE, UNK = (
    StockState.IN_STOCK,
    StockState.OUT_OF_STOCK,
    StockState.PREORDER,
    StockState.UNKNOWN,
)


async def record(store: Store, offers: Iterable[Offer], at: datetime) -> int:
    async with store._db.transaction() as connection:
        return await record_change_points(connection, offers, at)


async def track(
    store: Store, provider: str, tracked: Mapping[OfferKey, Tracked], at: datetime = NOW
) -> None:
    async with store._db.transaction() as connection:
        await write_tracked(connection, provider, tracked, at)


async def history_rows(store: Store) -> list[tuple[object, ...]]:
    async with store._db.access() as connection:
        rows = await connection.fetchall(
            "SELECT sku, at, price_hour, stock, stock_count FROM offer_history ORDER BY id"
        )
    return [(row[0], moment_of(row[1]), row[2], row[3], row[4]) for row in rows]


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


# -- change points ----------------------------------------------------------------------


async def test_the_same_offers_scraped_ten_times_give_one_row_each(store: Store):
    offers = [make_offer("a", 100), make_offer("b", 200, OUT)]
    written = [await record(store, offers, NOW + timedelta(minutes=i)) for i in range(10)]
    assert written == [2] + [0] * 9
    assert [row[0] for row in await history_rows(store)] == ["a", "b"]


async def test_a_price_change_writes_a_new_row(store: Store):
    await record(store, [make_offer("a", 100), make_offer("b", 200)], days_ago(2))
    assert await record(store, [make_offer("a", 90), make_offer("b", 200)], days_ago(1)) == 1
    assert await record(store, [make_offer("a", 90), make_offer("b", 200)], NOW) == 0
    rows = await history_rows(store)
    assert [(sku, price) for sku, _, price, _, _ in rows] == [("a", 100), ("b", 200), ("a", 90)]
    assert rows[2][1] == days_ago(1)


async def test_stock_and_stock_count_changes_write_rows(store: Store):
    offer = make_offer("a", 100)
    await record(store, [offer], days_ago(3))
    assert await record(store, [replace(offer, stock_count=1)], days_ago(2)) == 1
    assert await record(store, [replace(offer, stock=OUT, stock_count=None)], days_ago(1)) == 1
    assert await record(store, [replace(offer, stock=OUT, stock_count=None)], NOW) == 0
    assert [(row[3], row[4]) for row in await history_rows(store)] == [
        ("in_stock", 2),
        ("in_stock", 1),
        ("out_of_stock", None),
    ]


async def test_a_change_back_is_compared_with_the_latest_row(store: Store):
    for price, day in [(100, 3), (90, 2), (100, 1)]:
        assert await record(store, [make_offer("a", price)], days_ago(day)) == 1


async def test_a_gpu_count_change_writes_a_row_so_per_gpu_prices_stay_right(store: Store):
    await record(store, [make_offer("a", 800, gpu_count=8)], days_ago(2))
    assert await record(store, [make_offer("a", 800, gpu_count=4)], days_ago(1)) == 1


async def test_equal_timestamps_take_the_later_row_as_latest(store: Store):
    # Two scrapes within one second store the same `at`; insertion order decides.
    await record(store, [make_offer("a", 100)], NOW)
    await record(store, [make_offer("a", 90)], NOW)
    assert await record(store, [make_offer("a", 90)], NOW) == 0


async def test_many_offers_are_handled_in_chunks(store: Store):
    offers = [make_offer(f"sku-{i:04d}", 100 + i) for i in range(700)]
    assert await record(store, offers, days_ago(1)) == 700
    changed = [replace(o, stock=OUT) if i % 100 == 0 else o for i, o in enumerate(offers)]
    assert await record(store, changed, NOW) == 7


@pytest.mark.sqlite_only
async def test_latest_point_look_up_uses_the_offer_index(store: Store):
    async with store._db.access() as connection:
        rows = await connection.fetchall(
            "EXPLAIN QUERY PLAN SELECT id FROM offer_history WHERE provider = ? AND sku = ?"
            " AND location = ? ORDER BY at DESC, id DESC LIMIT 1",
            ("acme", "a", "MSK-1"),
        )
        plan = " ".join(str(row[3]) for row in rows)
    assert "offer_history_by_offer" in plan
    assert "TEMP B-TREE" not in plan


RTX_4090 = CardFilter(gpu="RTX 4090")


# -- lowest price -----------------------------------------------------------------------


async def test_lowest_price_in_30_days_per_gpu_hour(store: Store):
    await record(store, [make_offer("one", 120)], days_ago(10))
    await record(store, [make_offer("eight", 800, gpu_count=8)], days_ago(5))  # 100 per GPU
    await record(store, [make_offer("h100", 50, gpu="H100")], days_ago(5))  # another GPU
    lowest = await store.lowest_price(RTX_4090, MONTH_AGO)
    assert lowest is not None
    assert (lowest.sku, lowest.price_hour, lowest.gpu_count) == ("eight", 800, 8)
    assert lowest.price_per_gpu_hour == 100
    assert lowest.at == days_ago(5)


async def test_lowest_price_counts_only_rentable_points(store: Store):
    await record(store, [make_offer("a", 150, IN)], days_ago(20))
    await record(store, [make_offer("b", 130, UNK)], days_ago(20))
    await record(store, [make_offer("c", 50, OUT)], days_ago(20))
    await record(store, [make_offer("d", 60, PRE)], days_ago(20))
    lowest = await store.lowest_price(RTX_4090, MONTH_AGO)
    assert lowest is not None
    assert (lowest.sku, lowest.stock) == ("b", UNK)


async def test_lowest_price_includes_superseded_points_in_the_window(store: Store):
    await record(store, [make_offer("a", 80)], days_ago(20))  # the low, since raised
    await record(store, [make_offer("a", 140)], days_ago(2))
    lowest = await store.lowest_price(RTX_4090, MONTH_AGO)
    assert lowest is not None
    assert (lowest.price_hour, lowest.at) == (80, days_ago(20))


async def test_lowest_price_ignores_points_before_the_window_once_changed(store: Store):
    await track(store, "acme", {("acme", "a", "MSK-1"): Tracked(make_offer("a", 140))})
    await record(store, [make_offer("a", 60)], days_ago(45))
    await record(store, [make_offer("a", 140)], days_ago(31))
    lowest = await store.lowest_price(RTX_4090, MONTH_AGO)
    assert lowest is not None
    assert lowest.price_hour == 140  # in effect at the start of the window


async def test_an_unchanged_price_of_a_tracked_offer_still_counts(store: Store):
    # The only point is 40 days old, but the offer is still tracked at that price.
    offer = make_offer("a", 95)
    await track(store, "acme", {offer.key: Tracked(offer)})
    await record(store, [offer], days_ago(40))
    lowest = await store.lowest_price(RTX_4090, MONTH_AGO)
    assert lowest is not None
    assert (lowest.price_hour, lowest.at) == (95, days_ago(40))


async def test_an_old_point_of_an_offer_no_longer_tracked_does_not_count(store: Store):
    await record(store, [make_offer("gone", 10)], days_ago(40))
    assert await store.lowest_price(RTX_4090, MONTH_AGO) is None


async def test_lowest_price_without_data(store: Store):
    assert await store.lowest_price(RTX_4090, MONTH_AGO) is None


# -- price series -----------------------------------------------------------------------


async def test_price_series_is_every_change_point_in_time_order(store: Store):
    b = make_offer("b", 200, gpu="A100 80GB")
    await track(store, "acme", {b.key: Tracked(b)})
    await record(store, [b], days_ago(60))  # carried in: in effect at the window's start
    await record(store, [make_offer("a", 100)], days_ago(9))
    await record(store, [make_offer("a", 90), replace(b, stock=OUT)], days_ago(3))
    await record(store, [make_offer("a", 95)], days_ago(1))
    await record(store, [make_offer("h", 50, gpu="H100")], days_ago(2))  # another GPU
    a100s = await store.price_series(CardFilter(family="A100"), MONTH_AGO)
    assert [p.sku for p in a100s] == ["b", "b"]  # a name no catalogue row is: still an A100
    series = [
        point for point in await store.price_series(CardFilter(), MONTH_AGO) if point.gpu != "H100"
    ]
    assert [(p.sku, p.price_hour, p.stock, p.at) for p in series] == [
        ("b", 200, IN, days_ago(60)),
        ("a", 100, IN, days_ago(9)),
        ("a", 90, IN, days_ago(3)),
        ("b", 200, OUT, days_ago(3)),
        ("a", 95, IN, days_ago(1)),
    ]
    assert all(isinstance(point, HistoryPoint) for point in series)


# -- tracked offers ---------------------------------------------------------------------


async def test_write_and_load_tracked_round_trip_with_missing_runs(store: Store):
    here = make_offer("a", 100)
    missing = replace(make_offer("b", 200, OUT, monthly=True), vcpu=16, ram_gb=64.0, title="b")
    earlier = NOW - timedelta(hours=1)
    tracked = {here.key: Tracked(here), missing.key: Tracked(missing, 1, seen_at=earlier)}
    await track(store, "acme", tracked)
    # Each row keeps when it was last seen; one not stamped yet is the snapshot's own.
    assert await load_tracked(store, "acme") == {
        here.key: Tracked(here, seen_at=NOW),
        missing.key: Tracked(missing, 1, seen_at=earlier),
    }
    assert await load_tracked(store, "other") == {}


async def test_a_held_parts_offers_keep_when_their_part_last_answered(store: Store):
    """A later snapshot in which the cloud part failed carries its offers as they were: they
    are listed with the time their part last succeeded, not the new scrape's."""
    server, cloud = make_offer("server", 100), make_offer("cloud", 50)
    first = {
        server.key: Tracked(server, part="server", seen_at=NOW),
        cloud.key: Tracked(cloud, part="cloud", seen_at=NOW),
    }
    await track(store, "acme", first)
    later = NOW + timedelta(minutes=10)
    kept = await load_tracked(store, "acme")
    second = {**kept, server.key: Tracked(server, part="server", seen_at=later)}
    await track(store, "acme", second, later)
    observed = {item.offer.sku: item.observed_at for item in await store.observed_offers()}
    assert observed == {"server": later, "cloud": NOW}


async def test_write_tracked_replaces_only_that_provider(store: Store):
    ours, theirs = make_offer("a", 100), make_offer("x", 100, provider="other")
    await track(store, "other", {theirs.key: Tracked(theirs)})
    await track(store, "acme", {ours.key: Tracked(ours, 1)})
    await track(store, "acme", {})
    assert await load_tracked(store, "acme") == {}
    assert await load_tracked(store, "other") == {theirs.key: Tracked(theirs, seen_at=NOW)}


async def test_write_tracked_rejects_entries_of_another_provider(store: Store):
    theirs = make_offer("x", 100, provider="other")
    with pytest.raises(ValueError, match="acme"):
        await track(store, "acme", {theirs.key: Tracked(theirs)})


async def test_listed_offers_filter_hides_missing_offers(store: Store):
    here, missing = make_offer("a", 100), make_offer("b", 100)
    await track(store, "acme", {here.key: Tracked(here), missing.key: Tracked(missing, 1)})
    async with store._db.access() as connection:
        rows = await connection.fetchall(
            f"SELECT sku FROM offers WHERE {LISTED_OFFERS_FILTER}"  # noqa: S608
        )
    assert [row[0] for row in rows] == ["a"]
