"""monitor.diff: which events one good snapshot makes, against the tracked state before it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.diff import DiffResult, OfferKey, Tracked, diff
from monitor.events import EventKind
from monitor.offers import Offer, StockState
from monitor.scrape import ScrapeResult
from tests.factories import make_offer

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
IN, OUT, PRE, UNK = (
    StockState.IN_STOCK,
    StockState.OUT_OF_STOCK,
    StockState.PREORDER,
    StockState.UNKNOWN,
)


def scrape(*offers: Offer, minutes: int = 10, provider: str = "acme") -> ScrapeResult:
    return ScrapeResult(provider, offers, T0 + timedelta(minutes=minutes))


def tracked(
    *offers: Offer, missing_runs: int = 0, seen_at: datetime | None = None
) -> dict[OfferKey, Tracked]:
    return {offer.key: Tracked(offer, missing_runs, seen_at=seen_at) for offer in offers}


def kinds(result: DiffResult) -> list[tuple[str, EventKind]]:
    return [(event.offer.sku, event.kind) for event in result.events]


def run(previous: Mapping[OfferKey, Tracked], *snapshots: ScrapeResult) -> list[DiffResult]:
    """Diff a sequence of good snapshots, each against the state the previous one left."""
    results = []
    state = previous
    for snapshot in snapshots:
        result = diff(state, snapshot)
        state = result.tracked  # one provider only in these tests
        results.append(result)
    return results


# -- appeared ---------------------------------------------------------------------------


@pytest.mark.parametrize("before", [OUT, PRE])
def test_appeared_when_back_in_stock(before: StockState):
    result = diff(tracked(make_offer("a", 100, before)), scrape(make_offer("a", 100, IN)))
    assert kinds(result) == [("a", EventKind.APPEARED)]
    assert result.events[0].old_stock is before


def test_appeared_for_a_new_offer_in_stock():
    result = diff({}, scrape(make_offer("a", 100, IN)))
    assert kinds(result) == [("a", EventKind.APPEARED)]
    assert result.events[0].old_stock is None


def test_appeared_again_after_removal():
    offer = make_offer("a", 100, IN)
    removed, back = run(tracked(offer, missing_runs=1), scrape(), scrape(offer, minutes=20))
    assert kinds(removed) == [("a", EventKind.REMOVED)]
    assert kinds(back) == [("a", EventKind.APPEARED)]


# -- sold out ---------------------------------------------------------------------------


def test_sold_out_when_in_stock_goes_out_of_stock():
    result = diff(tracked(make_offer("a", 100, IN)), scrape(make_offer("a", 100, OUT)))
    assert kinds(result) == [("a", EventKind.SOLD_OUT)]
    assert result.events[0].old_stock is IN


@pytest.mark.parametrize(("before", "after"), [(OUT, PRE), (PRE, OUT), (IN, IN), (OUT, OUT)])
def test_no_stock_event_between_other_states(before: StockState, after: StockState):
    result = diff(tracked(make_offer("a", 100, before)), scrape(make_offer("a", 100, after)))
    assert result.events == ()


# -- prices -----------------------------------------------------------------------------


def test_price_drop_carries_old_and_new_price():
    result = diff(tracked(make_offer("a", 100)), scrape(make_offer("a", 80)))
    assert kinds(result) == [("a", EventKind.PRICE_DROP)]
    event = result.events[0]
    assert (event.old_price_hour, event.new_price_hour) == (100, 80)
    assert event.offer.price.rub_per_hour == 80


def test_price_rise_carries_old_and_new_price():
    result = diff(tracked(make_offer("a", 100)), scrape(make_offer("a", 120)))
    assert kinds(result) == [("a", EventKind.PRICE_RISE)]
    assert (result.events[0].old_price_hour, result.events[0].new_price_hour) == (100, 120)


def test_price_changes_within_epsilon_are_ignored():
    previous = tracked(make_offer("a", 1000))
    assert diff(previous, scrape(make_offer("a", 1004.9))).events == ()
    assert diff(previous, scrape(make_offer("a", 995.1))).events == ()
    assert kinds(diff(previous, scrape(make_offer("a", 1005.1)))) == [("a", EventKind.PRICE_RISE)]
    assert kinds(diff(previous, scrape(make_offer("a", 994.9)))) == [("a", EventKind.PRICE_DROP)]


def test_epsilon_is_configurable_and_zero_means_any_change():
    previous = tracked(make_offer("a", 1000))
    assert diff(previous, scrape(make_offer("a", 1040)), price_epsilon=0.05).events == ()
    exact = diff(previous, scrape(make_offer("a", 1000.01)), price_epsilon=0)
    assert kinds(exact) == [("a", EventKind.PRICE_RISE)]


def test_price_from_zero_is_a_rise():
    result = diff(tracked(make_offer("a", 0)), scrape(make_offer("a", 50)))
    assert kinds(result) == [("a", EventKind.PRICE_RISE)]


def test_stock_and_price_change_together_give_both_stock_first():
    result = diff(tracked(make_offer("a", 100, OUT)), scrape(make_offer("a", 90, IN)))
    assert kinds(result) == [("a", EventKind.APPEARED), ("a", EventKind.PRICE_DROP)]


# -- new offers -------------------------------------------------------------------------


@pytest.mark.parametrize("stock", [PRE, UNK, OUT])
def test_new_offer_not_in_stock(stock: StockState):
    result = diff({}, scrape(make_offer("a", 100, stock)))
    assert kinds(result) == [("a", EventKind.NEW_OFFER)]


# -- unknown stock ----------------------------------------------------------------------


@pytest.mark.parametrize(("before", "after"), [(UNK, IN), (IN, UNK), (UNK, OUT), (OUT, UNK)])
def test_unknown_stock_on_either_side_gives_no_stock_event(before: StockState, after: StockState):
    result = diff(tracked(make_offer("a", 100, before)), scrape(make_offer("a", 100, after)))
    assert result.events == ()


@pytest.mark.parametrize(("before", "after"), [(UNK, IN), (IN, UNK), (UNK, UNK)])
def test_unknown_stock_still_gives_price_events(before: StockState, after: StockState):
    result = diff(tracked(make_offer("a", 100, before)), scrape(make_offer("a", 70, after)))
    assert kinds(result) == [("a", EventKind.PRICE_DROP)]


# -- missing, flapping and removal ------------------------------------------------------


def test_missing_once_is_kept_tracked_without_events():
    offer = make_offer("a", 100)
    result = diff(tracked(offer), scrape(make_offer("b", 50), minutes=10))
    assert kinds(result) == [("b", EventKind.APPEARED)]
    assert result.tracked[offer.key] == Tracked(offer, 1)
    assert result.tracked[("acme", "b", "MSK-1")].missing_runs == 0


@pytest.mark.parametrize("stock", [IN, OUT, PRE, UNK])
def test_no_flapping_when_back_with_the_same_stock(stock: StockState):
    offer = make_offer("a", 100, stock)
    other = make_offer("b", 50)
    gone, back = run(
        tracked(offer, other), scrape(other, minutes=10), scrape(offer, other, minutes=20)
    )
    assert gone.events == ()
    assert back.events == ()
    assert back.tracked[offer.key] == Tracked(offer, 0, seen_at=T0 + timedelta(minutes=20))


@pytest.mark.parametrize("before", [OUT, PRE])
def test_back_in_stock_after_a_gap_is_appeared_when_last_seen_not_in_stock(before: StockState):
    result = diff(
        tracked(make_offer("a", 100, before), missing_runs=1), scrape(make_offer("a", 100))
    )
    assert kinds(result) == [("a", EventKind.APPEARED)]
    assert result.events[0].old_stock is before


@pytest.mark.parametrize(
    ("stock", "kind"),
    [(IN, EventKind.APPEARED), (UNK, EventKind.NEW_OFFER), (OUT, EventKind.NEW_OFFER)],
)
def test_an_offer_whose_data_expired_is_news_when_seen_again(stock: StockState, kind: EventKind):
    """Its part failed for longer than stale_after: it stopped counting as rentable, so its
    return is news as an untracked offer's would be, even unchanged."""
    offer = make_offer("a", 100, stock)
    before = tracked(offer, seen_at=T0)
    assert diff(before, scrape(offer)).events == ()  # not expired: nothing changed
    result = diff(before, scrape(offer), expired={offer.key})
    assert kinds(result) == [("a", kind)]
    assert result.events[0].old_stock is None
    assert result.tracked[offer.key].seen_at == T0 + timedelta(minutes=10)


def test_an_expired_offers_price_still_compares_with_the_last_one_seen():
    before = tracked(make_offer("a", 100), seen_at=T0)
    result = diff(before, scrape(make_offer("a", 80)), expired={("acme", "a", "MSK-1")})
    assert kinds(result) == [("a", EventKind.APPEARED), ("a", EventKind.PRICE_DROP)]
    assert result.events[1].old_price_hour == 100


def test_a_held_parts_offers_keep_when_they_were_seen():
    held = Tracked(make_offer("a", 100), 0, "cloud", T0)
    ours = make_offer("b", 100)
    result = diff({held.offer.key: held}, scrape(ours), accepted={""})
    assert result.tracked == {
        held.offer.key: held,
        ours.key: Tracked(ours, seen_at=T0 + timedelta(minutes=10)),
    }


def test_back_after_a_gap_is_compared_with_the_last_seen_price():
    result = diff(tracked(make_offer("a", 100), missing_runs=1), scrape(make_offer("a", 80)))
    assert kinds(result) == [("a", EventKind.PRICE_DROP)]


def test_removed_after_two_missing_snapshots_by_default():
    offer = make_offer("a", 100, OUT)
    other = make_offer("b", 50)
    first, second, third = run(
        tracked(offer, other), scrape(other), scrape(other, minutes=20), scrape(other, minutes=30)
    )
    assert first.events == ()
    assert kinds(second) == [("a", EventKind.REMOVED)]
    removed = second.events[0]
    assert removed.offer == offer  # as last seen
    assert removed.at == T0 + timedelta(minutes=20)
    assert offer.key not in second.tracked
    assert third.events == ()


@pytest.mark.parametrize("removal_after", [1, 3, 5])
def test_removed_after_n_missing_snapshots(removal_after: int):
    offer = make_offer("a", 100)
    state = tracked(offer)
    for run_number in range(1, removal_after + 1):
        result = diff(state, scrape(minutes=run_number), removal_after=removal_after)
        if run_number < removal_after:
            assert result.events == ()
            assert result.tracked == {offer.key: Tracked(offer, run_number)}
        else:
            assert kinds(result) == [("a", EventKind.REMOVED)]
            assert result.tracked == {}
        state = result.tracked


def test_removal_after_must_be_positive():
    with pytest.raises(ValueError, match="removal_after"):
        diff({}, scrape(), removal_after=0)


# -- scope and shape --------------------------------------------------------------------


def test_other_providers_are_untouched_and_not_returned():
    theirs = make_offer("x", 100, provider="other")
    ours = make_offer("a", 100)
    result = diff(tracked(theirs, ours), scrape(ours))
    assert result.events == ()
    assert result.tracked == {ours.key: Tracked(ours, seen_at=T0 + timedelta(minutes=10))}


def test_offers_of_another_provider_in_the_scrape_are_rejected():
    with pytest.raises(ValueError, match="other"):
        diff({}, scrape(make_offer("x", 100, provider="other")))


def test_duplicate_keys_in_the_scrape_are_rejected():
    with pytest.raises(ValueError, match="duplicate"):
        diff({}, scrape(make_offer("a", 100), make_offer("a", 90)))


def test_events_are_ordered_by_key_then_kind_and_keys_are_unique():
    previous = tracked(
        make_offer("c", 100, OUT),
        make_offer("a", 100, IN),
        make_offer("b", 100, IN, location="SPB-1"),
        make_offer("b", 100, IN, location="MSK-1"),
    )
    new = scrape(
        make_offer("c", 80, IN),
        make_offer("b", 100, OUT, location="MSK-1"),
        make_offer("d", 100, PRE),
    )
    result = diff(previous, new, removal_after=1)
    assert [(e.offer.key[1:], e.kind) for e in result.events] == [
        (("a", "MSK-1"), EventKind.REMOVED),
        (("b", "MSK-1"), EventKind.SOLD_OUT),
        (("b", "SPB-1"), EventKind.REMOVED),
        (("c", "MSK-1"), EventKind.APPEARED),
        (("c", "MSK-1"), EventKind.PRICE_DROP),
        (("d", "MSK-1"), EventKind.NEW_OFFER),
    ]
    keys = [event.key for event in result.events]
    assert len(set(keys)) == len(keys)
    assert all(event.at == new.fetched_at for event in result.events)


def test_event_keys_are_stable_across_recomputation():
    previous = tracked(make_offer("a", 100, OUT), make_offer("b", 100))
    new = scrape(make_offer("a", 90, IN))
    first = [event.key for event in diff(previous, new).events]
    second = [event.key for event in diff(dict(reversed(previous.items())), new).events]
    assert first == second
    assert first == [
        f"appeared|acme|a|MSK-1|{new.fetched_at.isoformat()}",
        f"price_drop|acme|a|MSK-1|{new.fetched_at.isoformat()}",
    ]


def test_input_is_not_mutated():
    previous = tracked(make_offer("a", 100))
    copy = dict(previous)
    diff(previous, scrape(), removal_after=1)
    assert previous == copy


# -- properties -------------------------------------------------------------------------

_offers = st.lists(
    st.builds(
        make_offer,
        st.sampled_from(["a", "b", "c", "d", "e"]),
        st.floats(min_value=0, max_value=10_000, allow_nan=False),
        st.sampled_from(list(StockState)),
        location=st.sampled_from(["MSK-1", "SPB-1"]),
        gpu_count=st.integers(min_value=1, max_value=8),
    ),
    max_size=10,
    unique_by=lambda offer: offer.key,
)


@given(offers=_offers, missing=st.lists(st.integers(min_value=0, max_value=1), min_size=10))
def test_property_rescraping_the_same_snapshot_gives_no_events(
    offers: list[Offer], missing: list[int]
):
    # Any tracked state whose offers are exactly the new scrape, however long each was missing.
    previous = {
        offer.key: Tracked(offer, runs) for offer, runs in zip(offers, missing, strict=False)
    }
    result = diff(previous, scrape(*offers, minutes=30))
    assert result.events == ()
    assert result.tracked == tracked(*offers, seen_at=T0 + timedelta(minutes=30))


@given(offers=_offers)
def test_property_a_snapshot_against_itself_twice_gives_no_events(offers: list[Offer]):
    snapshot = scrape(*offers)
    first = diff({}, snapshot)
    assert len(first.events) == len(offers)  # each one is new: appeared or new_offer
    second = diff(first.tracked, replace(snapshot, fetched_at=T0 + timedelta(hours=1)))
    third = diff(second.tracked, replace(snapshot, fetched_at=T0 + timedelta(hours=2)))
    assert second.events == third.events == ()
    later = {
        key: replace(entry, seen_at=T0 + timedelta(hours=2)) for key, entry in first.tracked.items()
    }
    assert third.tracked == later  # the same offers, each seen by the latest scrape
