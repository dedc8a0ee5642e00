"""monitor.freshness: which offers their provider's latest scrape did not confirm, and when
such an offer stops counting as rentable."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from monitor.diff import Tracked
from monitor.freshness import (
    ObservedOffer,
    Stale,
    expired_keys,
    is_expired,
    observe,
    staleness,
)
from monitor.health import PartHealth, ProviderHealth
from monitor.offers import StockState
from monitor.parts import PartState
from tests.factories import make_offer

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def part(name: str, state: PartState, error_class: str | None = None) -> PartHealth:
    return PartHealth(name, state, 0, 3, 1, 0, error_class, "detail", T0)


def health(*parts: PartHealth, failures: int = 0, error: str | None = None) -> ProviderHealth:
    return ProviderHealth(
        "acme", T0 + HOUR, T0, None, error, None, failures, 1.0, 5, parts=tuple(parts)
    )


def test_an_offer_of_a_part_that_answered_is_not_stale():
    assert staleness("server", health(part("server", PartState.OK))) is None
    assert staleness("server", None) is None  # never scraped: nothing to doubt yet


@pytest.mark.parametrize(
    ("state", "error_class"),
    [
        (PartState.FAILED, "HttpStatusError"),
        (PartState.EMPTY, "LayoutError"),
        (PartState.SUSPECT, None),
    ],
)
def test_an_offer_of_a_held_part_is_stale_with_its_parts_reason(
    state: PartState, error_class: str | None
):
    now = health(part("server", PartState.OK), part("cloud", state, error_class))
    assert staleness("cloud", now) == Stale(state, error_class)
    assert staleness("server", now) is None  # the other part answered


def test_a_scrape_that_failed_as_a_whole_makes_every_offer_stale():
    # A failed fetch writes no part statuses: the parts still read as they were.
    down = health(part("server", PartState.OK), failures=2, error="NetworkError")
    assert staleness("server", down) == Stale(PartState.FAILED, "NetworkError")
    assert staleness("", down) == Stale(PartState.FAILED, "NetworkError")


def test_a_stale_offer_expires_strictly_after_stale_after():
    stale = Stale(PartState.FAILED, "HttpStatusError")
    assert not is_expired(T0, stale, T0 + HOUR, HOUR)
    assert is_expired(T0, stale, T0 + HOUR + timedelta(seconds=1), HOUR)
    assert not is_expired(T0, None, T0 + 100 * HOUR, HOUR)  # confirmed data never expires
    assert is_expired(T0, stale, T0 + timedelta(seconds=1), timedelta(0))


@pytest.mark.parametrize(
    ("stock", "rentable", "in_stock"),
    [
        (StockState.IN_STOCK, True, True),
        (StockState.UNKNOWN, True, False),
        (StockState.OUT_OF_STOCK, False, False),
    ],
)
def test_an_expired_offer_is_neither_rentable_nor_in_stock(
    stock: StockState, rentable: bool, in_stock: bool
):
    down = health(part("cloud", PartState.FAILED, "HttpStatusError"))
    offer = make_offer("a", 100, stock)
    fresh = observe(offer, T0, "cloud", down, T0 + HOUR, HOUR)
    assert fresh == ObservedOffer(offer, T0, Stale(PartState.FAILED, "HttpStatusError"), False)
    assert (fresh.rentable, fresh.in_stock) == (rentable, in_stock)
    late = observe(offer, T0, "cloud", down, T0 + 2 * HOUR, HOUR)
    assert late.expired
    assert (late.rentable, late.in_stock) == (False, False)


def test_expired_keys_are_the_listed_stale_offers_past_stale_after():
    down = health(part("server", PartState.OK), part("cloud", PartState.FAILED, "X"))
    old, fresh, missing, unstamped, other = (make_offer(s, 100) for s in "abcde")
    tracked = {
        old.key: Tracked(old, 0, "cloud", T0),
        fresh.key: Tracked(fresh, 0, "cloud", T0 + 2 * HOUR),
        missing.key: Tracked(missing, 1, "cloud", T0),  # not listed: its absence is diff's
        unstamped.key: Tracked(unstamped, 0, "cloud", None),
        other.key: Tracked(other, 0, "server", T0),  # its part answered
    }
    assert expired_keys(tracked, down, T0 + 3 * HOUR, HOUR) == {old.key}
    assert expired_keys(tracked, None, T0 + 3 * HOUR, HOUR) == frozenset()
    # A healthy provider's old rows (the bot was down, nobody scraped) are not stale.
    healthy = replace(down, parts=(part("cloud", PartState.OK),))
    assert expired_keys(tracked, healthy, T0 + 3 * HOUR, HOUR) == frozenset()
