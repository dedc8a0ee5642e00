"""A scrape in parts through the real pipeline and SQLite: per-part health is stored, a bad
part keeps its offers, and only every part failing makes the provider fail."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from monitor.freshness import Stale
from monitor.matcher import LiveMatcher
from monitor.offers import StockState
from monitor.parts import PartState
from monitor.pipeline import refresh
from monitor.scrape import HttpStatusError, LayoutError, NetworkError, PartOutcome, ScrapeResult
from monitor.watch_words import parse_watch
from storage import Store
from tests.factories import FixedSource, make_offer
from tests.store_helpers import current_offers, outbox_rows

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
SERVERS = tuple(make_offer(f"s{i}", 100.0 + i) for i in range(4))
CLOUD = (make_offer("cloud:t4", 38.4, StockState.UNKNOWN, gpu="T4", location="ru-1a"),)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(tmp_path / "parts.sqlite3")
    await opened.ensure_user(7, language="ru", timezone="UTC")
    await opened.add_subscription(7, parse_watch("4090"), cooldown_s=0)
    yield opened
    await opened.close()


class DownSource:
    """A provider whose whole scrape fails."""

    name = "acme"

    async def fetch(self) -> ScrapeResult:
        raise NetworkError("acme", "connection refused")


async def scrape(store: Store, minutes: int, **parts: PartOutcome):
    at = T0 + timedelta(minutes=minutes)
    result = ScrapeResult.from_parts("acme", parts, at)
    return await refresh(FixedSource(result), store, LiveMatcher(store), now=lambda: at)


async def test_a_failed_part_is_named_and_keeps_its_offers(store: Store):
    await scrape(store, 0, server=SERVERS, cloud=CLOUD)
    error = LayoutError("acme", "/prices/vpc: expected a list")
    outcome = await scrape(store, 10, server=SERVERS, cloud=error)
    assert outcome.ok
    assert (outcome.events, outcome.alerts, outcome.offers) == (0, 0, 5)
    assert {o.sku for o in await current_offers(store)} == {s.sku for s in SERVERS + CLOUD}
    (health,) = await store.provider_health()
    assert not health.failing
    assert health.partly_failing
    (cloud,) = health.troubled_parts
    assert (cloud.part, cloud.state, cloud.error_class, cloud.kept) == (
        "cloud",
        PartState.FAILED,
        "LayoutError",
        1,
    )
    assert cloud.error == "/prices/vpc: expected a list"
    assert cloud.last_success_at == T0
    # Recovered: no part is troubled any more.
    await scrape(store, 20, server=SERVERS, cloud=CLOUD)
    (health,) = await store.provider_health()
    assert health.troubled_parts == ()


async def test_every_part_failing_fails_the_provider(store: Store):
    await scrape(store, 0, server=SERVERS, cloud=CLOUD)
    down = HttpStatusError("acme", "HTTP 503", 503)
    outcome = await scrape(store, 10, server=down, cloud=())
    assert not outcome.ok
    assert outcome.error is down
    (health,) = await store.provider_health()
    assert health.failing
    assert (health.last_error_class, health.consecutive_failures) == ("HttpStatusError", 1)
    assert {p.part: p.state for p in health.parts} == {
        "server": PartState.FAILED,
        "cloud": PartState.EMPTY,
    }
    assert len(await current_offers(store)) == 5


async def test_a_suspect_drop_is_held_then_exactly_one_alert_for_the_real_change(store: Store):
    await scrape(store, 0, server=SERVERS, cloud=CLOUD)
    for minutes in (10, 20):
        outcome = await scrape(store, minutes, server=SERVERS[:1], cloud=CLOUD)
        assert (outcome.events, outcome.alerts) == (0, 0)
    (health,) = await store.provider_health()
    (server,) = health.troubled_parts
    assert (server.state, server.suspect_runs) == (PartState.SUSPECT, 2)
    assert server.error == "lost 3 of 4 offers (seen 2 of 3 times)"
    assert len(await current_offers(store)) == 5
    # Recovery with one real change: one new 4090 server.
    new = make_offer("s9", 90.0)
    outcome = await scrape(store, 30, server=(*SERVERS, new), cloud=CLOUD)
    assert (outcome.events, outcome.alerts) == (1, 1)
    rows = await outbox_rows(store, 7)
    assert [(row.event.kind.value, row.event.offer.sku) for row in rows] == [("appeared", "s9")]


async def test_a_failing_parts_offers_keep_their_time_and_are_marked_stale(store: Store):
    await scrape(store, 0, server=SERVERS, cloud=CLOUD)
    await scrape(store, 10, server=SERVERS, cloud=HttpStatusError("acme", "HTTP 500", 500))
    observed = {item.offer.sku: item for item in await store.observed_offers(T0 + HOUR / 6)}
    assert observed["cloud:t4"].observed_at == T0  # its part's last success, not the scrape
    assert observed["cloud:t4"].stale == Stale(PartState.FAILED, "HttpStatusError")
    assert observed["cloud:t4"].rentable  # within stale_after: still counts
    assert {observed[s.sku].observed_at for s in SERVERS} == {T0 + HOUR / 6}
    assert all(observed[s.sku].stale is None for s in SERVERS)
    # Past stale_after it is still listed, marked, but no longer counts as rentable.
    (late,) = [i for i in await store.observed_offers(T0 + 2 * HOUR) if i.offer.sku[0] == "c"]
    assert (late.stale is not None, late.expired, late.rentable) == (True, True, False)
    # The part answers again: its offers are confirmed, and fresh.
    await scrape(store, 20, server=SERVERS, cloud=CLOUD)
    assert all(item.stale is None for item in await store.observed_offers(T0 + HOUR / 3))


async def test_a_whole_failed_scrape_marks_every_offer_stale(store: Store):
    await scrape(store, 0, server=SERVERS, cloud=CLOUD)
    await refresh(DownSource(), store, LiveMatcher(store), now=lambda: T0 + HOUR / 6)
    observed = await store.observed_offers(T0 + HOUR / 6)
    assert {item.observed_at for item in observed} == {T0}
    assert {item.stale for item in observed} == {Stale(PartState.FAILED, "NetworkError")}


@pytest.mark.parametrize(("down_for", "alerts"), [(50, 0), (70, 4)])
async def test_offers_back_after_their_data_expired_are_news_again(
    store: Store, down_for: int, alerts: int
):
    """The server part fails; the 4090 watch's servers come back unchanged. Within the hour
    that is nothing; past it they had stopped counting, so each is an arrival again."""
    await scrape(store, 0, server=SERVERS, cloud=CLOUD)
    down = HttpStatusError("acme", "HTTP 502", 502)
    for minutes in range(10, down_for, 10):
        assert (await scrape(store, minutes, server=down, cloud=CLOUD)).alerts == 0
    outcome = await scrape(store, down_for, server=SERVERS, cloud=CLOUD)
    assert outcome.alerts == alerts
    kinds = {row.event.kind.value for row in await outbox_rows(store, 7)}
    assert kinds == ({"appeared"} if alerts else set())
