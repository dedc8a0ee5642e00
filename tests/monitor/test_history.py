"""monitor.history: which offers of a new snapshot make a change point."""

from __future__ import annotations

from dataclasses import replace

from monitor.history import changed_offers, point_state
from monitor.offers import StockState
from tests.factories import make_offer


def test_an_offer_without_a_point_makes_one() -> None:
    offer = make_offer("h100", 300)
    assert changed_offers([offer], {}) == [offer]


def test_an_unchanged_offer_makes_none() -> None:
    offer = make_offer("h100", 300)
    assert changed_offers([offer], {offer.key: point_state(offer)}) == []


def test_price_stock_stock_count_gpu_and_count_each_make_a_point() -> None:
    offer = make_offer("h100", 300)
    latest = {offer.key: point_state(offer)}
    changes = [
        make_offer("h100", 290),
        make_offer("h100", 300, StockState.OUT_OF_STOCK),
        replace(offer, stock_count=5),
        replace(offer, gpu="H100 SXM"),
        replace(offer, gpu_count=2),
    ]
    assert [changed_offers([change], latest) for change in changes] == [[c] for c in changes]


def test_what_a_point_does_not_record_makes_none() -> None:
    offer = make_offer("h100", 300)
    renamed = replace(offer, title="H100 80GB, renamed", url="https://example.test/other")
    assert changed_offers([renamed], {offer.key: point_state(offer)}) == []
