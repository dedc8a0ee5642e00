"""monitor.parts: a failed, empty or suspect part keeps its last good offers and makes no
events; a big drop goes through only after it has been seen three times in a row."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest

from monitor.diff import OfferKey, Tracked
from monitor.events import EventKind
from monitor.offers import Offer, StockState
from monitor.parts import CONFIRM_AFTER, PartRuns, PartState, Settlement, settle
from monitor.scrape import WHOLE, HttpStatusError, PartOutcome, RedirectError, ScrapeResult
from tests.factories import make_offer

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
OUT = StockState.OUT_OF_STOCK


def servers(*skus: str, price: float = 100.0, stock: StockState = StockState.IN_STOCK):
    return tuple(make_offer(sku, price, stock) for sku in skus)


CLOUD = (make_offer("cloud:t4", 38.4, StockState.UNKNOWN, location="ru-1a"),)
TEN = tuple(f"s{i}" for i in range(10))


class Run:
    """Scrapes fed one after another, state carried as the pipeline carries it."""

    def __init__(self) -> None:
        self.tracked: dict[OfferKey, Tracked] = {}
        self.runs: dict[str, PartRuns] = {}
        self.count = 0

    def scrape(self, **parts: PartOutcome) -> Settlement:
        self.count += 1
        at = T0 + timedelta(minutes=10 * self.count)
        result = ScrapeResult.from_parts("acme", parts, at)
        settled = settle(self.tracked, result, self.runs)
        if not settled.failing:
            self.tracked = settled.tracked
        self.runs = {s.part: s.runs for s in settled.statuses}
        return settled


def states(settled: Settlement) -> dict[str, PartState]:
    return {status.part: status.state for status in settled.statuses}


def listed(tracked: Mapping[OfferKey, Tracked]) -> set[str]:
    return {key[1] for key, entry in tracked.items() if entry.missing_runs == 0}


def test_first_scrape_is_a_baseline_for_every_part():
    run = Run()
    first = run.scrape(server=servers("a", "b"), cloud=CLOUD)
    assert first.events == ()
    assert states(first) == {"server": PartState.OK, "cloud": PartState.OK}
    assert {entry.part for entry in first.tracked.values()} == {"server", "cloud"}


@pytest.mark.parametrize(
    "bad",
    [
        HttpStatusError("acme", "HTTP 502", 502),
        RedirectError("acme", "redirect to another host"),
        (),
    ],
)
def test_a_bad_part_keeps_its_offers_while_the_other_part_goes_on(bad: PartOutcome):
    run = Run()
    run.scrape(server=servers("a", "b"), cloud=CLOUD)
    cheaper = (make_offer("cloud:t4", 30.0, StockState.UNKNOWN, location="ru-1a"),)
    settled = run.scrape(server=bad, cloud=cheaper)
    assert not settled.failing
    assert [(e.offer.sku, e.kind) for e in settled.events] == [("cloud:t4", EventKind.PRICE_DROP)]
    expected = PartState.EMPTY if bad == () else PartState.FAILED
    assert states(settled) == {"server": expected, "cloud": PartState.OK}
    (server,) = [s for s in settled.statuses if s.part == "server"]
    assert (server.kept, server.runs.failures) == (2, 1)
    assert server.error is not None
    assert listed(settled.tracked) == {"a", "b", "cloud:t4"}
    assert all(e.missing_runs == 0 for e in settled.tracked.values())
    # Many bad scrapes in a row never turn into "removed".
    for _ in range(5):
        settled = run.scrape(server=bad, cloud=cheaper)
        assert settled.events == ()
    assert listed(run.tracked) == {"a", "b", "cloud:t4"}
    # Back, with one real change: exactly that change.
    back = run.scrape(server=servers("a", "b") + servers("c"), cloud=cheaper)
    assert [(e.offer.sku, e.kind) for e in back.events] == [("c", EventKind.APPEARED)]


def test_every_part_failing_is_a_failing_provider():
    run = Run()
    run.scrape(server=servers("a"), cloud=CLOUD)
    settled = run.scrape(server=HttpStatusError("acme", "HTTP 500", 500), cloud=())
    assert settled.failing
    assert settled.error is not None
    assert settled.error.kind == "HttpStatusError"
    assert settled.events == ()
    assert listed(settled.tracked) == {"a", "cloud:t4"}


def test_a_big_drop_is_held_until_seen_three_times_in_a_row():
    run = Run()
    run.scrape(server=servers(*TEN), cloud=CLOUD)
    for seen in range(1, CONFIRM_AFTER):
        held = run.scrape(server=servers("s0", "s1", "s2", "s3"), cloud=CLOUD)
        assert states(held)["server"] is PartState.SUSPECT
        assert held.events == ()
        assert listed(run.tracked) >= set(TEN)
        (status,) = [s for s in held.statuses if s.part == "server"]
        assert status.runs.suspect == seen
        assert status.note == f"lost 6 of 10 offers (seen {seen} of {CONFIRM_AFTER} times)"
    confirmed = run.scrape(server=servers("s0", "s1", "s2", "s3"), cloud=CLOUD)
    assert states(confirmed)["server"] is PartState.OK
    # Now the changes go through as usual: the six missing count towards removal.
    missing = {key[1]: e.missing_runs for key, e in confirmed.tracked.items() if e.missing_runs}
    assert missing == dict.fromkeys(TEN[4:], 1)
    gone = run.scrape(server=servers("s0", "s1", "s2", "s3"), cloud=CLOUD)
    assert {e.offer.sku for e in gone.events if e.kind is EventKind.REMOVED} == set(TEN[4:])


def test_a_drop_that_recovers_makes_no_event_and_resets_the_count():
    run = Run()
    run.scrape(server=servers(*TEN), cloud=CLOUD)
    run.scrape(server=servers("s0"), cloud=CLOUD)
    run.scrape(server=servers("s0"), cloud=CLOUD)
    back = run.scrape(server=servers(*TEN), cloud=CLOUD)
    assert back.events == ()
    assert run.runs["server"] == PartRuns()
    # Two more drops are again only suspect: the count started over.
    assert states(run.scrape(server=servers("s0"), cloud=CLOUD))["server"] is PartState.SUSPECT
    assert states(run.scrape(server=servers("s0"), cloud=CLOUD))["server"] is PartState.SUSPECT


def test_a_failure_breaks_a_run_of_drops():
    run = Run()
    run.scrape(server=servers(*TEN), cloud=CLOUD)
    run.scrape(server=servers("s0"), cloud=CLOUD)
    run.scrape(server=servers("s0"), cloud=CLOUD)
    run.scrape(server=HttpStatusError("acme", "HTTP 500", 500), cloud=CLOUD)
    again = run.scrape(server=servers("s0"), cloud=CLOUD)
    assert states(again)["server"] is PartState.SUSPECT


def test_losing_exactly_half_is_not_suspect():
    run = Run()
    run.scrape(server=servers("a", "b", "c", "d"), cloud=CLOUD)
    settled = run.scrape(server=servers("a", "b"), cloud=CLOUD)
    assert states(settled)["server"] is PartState.OK


def test_a_sell_out_is_news_not_a_drop():
    """Offers that stay listed but sell out are not lost: that is a real change."""
    run = Run()
    run.scrape(server=servers(*TEN), cloud=CLOUD)
    settled = run.scrape(server=servers(*TEN, stock=OUT), cloud=CLOUD)
    assert states(settled)["server"] is PartState.OK
    assert {e.kind for e in settled.events} == {EventKind.SOLD_OUT}


def test_a_part_that_recovers_after_never_working_is_a_baseline():
    run = Run()
    run.scrape(server=HttpStatusError("acme", "HTTP 500", 500), cloud=CLOUD)
    settled = run.scrape(server=servers("a", "b"), cloud=CLOUD)
    assert settled.events == ()
    assert listed(settled.tracked) == {"a", "b", "cloud:t4"}


def test_a_part_missing_from_the_scrape_is_held_then_removed():
    run = Run()
    run.scrape(server=servers("a", "b"), cloud=CLOUD)
    for _ in range(CONFIRM_AFTER - 1):
        held = run.scrape(cloud=CLOUD)
        assert states(held) == {"cloud": PartState.OK, "server": PartState.SUSPECT}
        assert listed(run.tracked) == {"a", "b", "cloud:t4"}
    confirmed = run.scrape(cloud=CLOUD)
    assert states(confirmed) == {"cloud": PartState.OK, "server": PartState.OK}
    assert {k[1]: e.missing_runs for k, e in confirmed.tracked.items()} == {
        "a": 1,
        "b": 1,
        "cloud:t4": 0,
    }


def test_offers_stored_before_parts_are_relabelled_without_news():
    """Rows from before parts existed carry WHOLE; the first parted scrape adopts them."""
    old = {o.key: Tracked(o, 0, WHOLE) for o in servers("a", "b") + CLOUD}
    result = ScrapeResult.from_parts(
        "acme", {"server": servers("a", "b", price=90.0), "cloud": CLOUD}, T0
    )
    settled = settle(old, result, {})
    assert {e.kind for e in settled.events} == {EventKind.PRICE_DROP}
    assert {e.part for e in settled.tracked.values()} == {"server", "cloud"}


def test_other_providers_are_not_touched():
    other = make_offer("x", 1.0, provider="other")
    previous = {other.key: Tracked(other)}
    result = ScrapeResult.from_parts("acme", {"server": servers("a")}, T0)
    settled = settle(previous, result, {})
    assert other.key not in settled.tracked


def test_offers_must_match_parts():
    offer: Offer = servers("a")[0]
    with pytest.raises(ValueError, match="do not match"):
        ScrapeResult("acme", (offer,), T0, parts={"server": ()})
    with pytest.raises(ValueError, match="at least one part"):
        ScrapeResult.from_parts("acme", {}, T0)
