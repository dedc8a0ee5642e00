"""One refresh through the pipeline: a good scrape replaces the snapshot, a failed one never
touches it."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest

from monitor.cards import card_of
from monitor.matcher import LiveMatcher
from monitor.offers import StockState
from monitor.pipeline import refresh
from monitor.plan import RefreshState
from monitor.scrape import HttpStatusError, LayoutError, ScrapeError, ScrapeResult
from storage import Store
from tests.factories import FixedSource, make_offer
from tests.store_helpers import current_offers, outbox_rows

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


offer = make_offer


class ScriptedSource:
    name = "acme"

    def __init__(self) -> None:
        self.next: ScrapeResult | Exception = ScrapeResult("acme", (), T0)

    async def fetch(self) -> ScrapeResult:
        if isinstance(self.next, Exception):
            raise self.next
        return self.next


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(tmp_path / "r.sqlite3")
    yield opened
    await opened.close()


async def test_good_scrape_replaces_snapshot_and_marks_healthy(store: Store):
    source = ScriptedSource()
    source.next = ScrapeResult("acme", (offer("a", 80.0), offer("b", 95.5)), T0)
    outcome = await refresh(source, store, LiveMatcher(store), now=lambda: T0)
    assert outcome.ok
    assert outcome.offers == 2
    assert {o.sku for o in await current_offers(store)} == {"a", "b"}
    source.next = ScrapeResult("acme", (offer("b", 90.0, StockState.OUT_OF_STOCK),), T0)
    await refresh(source, store, LiveMatcher(store), now=lambda: T0)
    stored = await current_offers(store)
    assert [(o.sku, o.price.rub_per_hour, o.stock) for o in stored] == [
        ("b", 90.0, StockState.OUT_OF_STOCK)
    ]
    (health,) = await store.provider_health()
    assert (health.consecutive_failures, health.offer_count, health.last_success_at) == (0, 1, T0)


@pytest.mark.parametrize(
    "failure",
    [HttpStatusError("acme", "HTTP 500", 500), LayoutError("acme", "no GPU rows"), KeyError("x")],
)
async def test_failed_scrape_keeps_the_last_good_snapshot(
    store: Store, failure: Exception, caplog: pytest.LogCaptureFixture
):
    source = ScriptedSource()
    source.next = ScrapeResult("acme", (offer("a", 80.0),), T0)
    await refresh(source, store, LiveMatcher(store), now=lambda: T0)
    source.next = failure
    later = datetime(2026, 11, 29, 12, 10, tzinfo=UTC)
    caplog.set_level(logging.WARNING, logger="monitor")
    first = await refresh(source, store, LiveMatcher(store), now=lambda: later)
    # Logged once; a crash with its traceback.
    (logged,) = [r for r in caplog.records if r.name.startswith("monitor")]
    assert logged.getMessage().startswith("acme: scrape failed: ")
    assert (logged.exc_info is not None) == isinstance(failure, KeyError)
    second = await refresh(source, store, LiveMatcher(store), now=lambda: later)
    assert not first.ok
    assert isinstance(first.error, ScrapeError)
    assert [o.sku for o in await current_offers(store)] == ["a"]
    (health,) = await store.provider_health()
    assert health.consecutive_failures == 2
    assert health.last_success_at == T0
    assert health.last_error_at == later
    expected = "LayoutError" if isinstance(failure, KeyError) else type(failure).__name__
    assert health.last_error_class == expected
    assert second.error is not None
    assert health.failing


async def test_offers_can_be_filtered_by_gpu(store: Store):
    source = ScriptedSource()
    other = replace(offer("t", 30.0), gpu="T4", sku="t4", card=card_of("T4", None))
    source.next = ScrapeResult("acme", (offer("a", 80.0), other), T0)
    await refresh(source, store, LiveMatcher(store))
    assert [o.sku for o in await current_offers(store, {"T4"})] == ["t4"]
    assert await current_offers(store, set()) == []


async def test_a_providers_first_snapshot_is_a_baseline_not_news(store: Store):
    """Every offer of a first snapshot is "new"; none of it may reach a subscriber."""
    from monitor.watch_words import parse_watch

    await store.ensure_user(7, language="ru", timezone="UTC")
    await store.add_subscription(7, parse_watch("4090"), cooldown_s=0)
    source = ScriptedSource()
    source.next = ScrapeResult("acme", (offer("a", 80.0), offer("b", 90.0, StockState.UNKNOWN)), T0)
    first = await refresh(source, store, LiveMatcher(store), now=lambda: T0)
    assert (first.events, first.alerts) == (0, 0)
    later = datetime(2026, 11, 29, 12, 10, tzinfo=UTC)
    source.next = ScrapeResult(
        "acme", (offer("a", 80.0), offer("b", 90.0, StockState.UNKNOWN), offer("c", 70.0)), later
    )
    second = await refresh(source, store, LiveMatcher(store), now=lambda: later)
    assert (second.events, second.alerts) == (1, 1)  # "c" appeared: real news


async def test_a_subscription_hears_of_a_restock_once_per_cooldown(store: Store):
    """The stock of one offer flips back and forth; the cooldown spans refreshes."""
    from monitor.watch_words import parse_watch

    await store.ensure_user(7, language="ru", timezone="UTC")
    await store.add_subscription(7, parse_watch("4090"), cooldown_s=3600)
    source, matcher = ScriptedSource(), LiveMatcher(store)
    alerts = []
    for minutes in (0, 10, 20, 30, 40, 50, 60, 70, 80):
        at = T0 + timedelta(minutes=minutes)
        stock = StockState.OUT_OF_STOCK if minutes % 20 else StockState.IN_STOCK
        source.next = ScrapeResult("acme", (offer("a", 80.0, stock),), at)
        outcome = await refresh(source, store, matcher, now=partial(clock, at))
        alerts.append(outcome.alerts)
    # In stock again at 20, 40, 60 and 80 minutes: told at 20, then not before 80.
    assert alerts == [0, 0, 1, 0, 0, 0, 0, 0, 1]


def clock(at: datetime) -> datetime:
    return at


class RacedStore(Store):
    """Another replica's refresh of the same provider commits while this one decides."""

    rival: ScrapeResult | None = None

    async def load(self, provider: str, now: datetime) -> RefreshState:
        state = await super().load(provider, now)
        if self.rival is not None:
            rival, self.rival = self.rival, None
            outcome = await refresh(FixedSource(rival), self, LiveMatcher(self), now=lambda: now)
            assert outcome.ok
            assert not outcome.superseded
        return state


async def test_a_refresh_overtaken_by_another_one_writes_nothing(tmp_path: Path):
    from monitor.watch_words import parse_watch

    store = await RacedStore.open(tmp_path / "raced.sqlite3")
    assert isinstance(store, RacedStore)
    try:
        await store.ensure_user(7, language="ru", timezone="UTC")
        await store.add_subscription(7, parse_watch("4090"), cooldown_s=0)
        source = ScriptedSource()
        source.next = ScrapeResult("acme", (offer("a", 80.0, StockState.OUT_OF_STOCK),), T0)
        await refresh(source, store, LiveMatcher(store), now=lambda: T0)
        later = T0 + timedelta(minutes=10)
        # Both see "a" back in stock; each would alert the subscriber once.
        store.rival = ScrapeResult("acme", (offer("a", 80.0),), later)
        source.next = ScrapeResult("acme", (offer("a", 80.0), offer("b", 70.0)), later)
        outcome = await refresh(source, store, LiveMatcher(store), now=lambda: later)
        assert outcome.superseded
        assert outcome.alerts == 0
        assert [row.event.offer.sku for row in await outbox_rows(store)] == ["a"]
        assert [o.sku for o in await current_offers(store)] == ["a"]  # the rival's snapshot
        assert (await store.load("acme", later)).revision == 2  # ours, then the rival's
    finally:
        await store.close()
