"""Price and stock history: the change points an offer's history is made of.

An offer's history gets a point only when what a point records (`point_state`) differs from
its latest point, so the history grows with changes, not with scrapes; storage.history keeps
the points and asks `changed_offers` which offers of a new snapshot make one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from monitor.diff import OfferKey
from monitor.offers import Offer, StockState

# What a change point records: GPU, GPU count, ₽ per hour, stock, stock count.
PointState = tuple[str, int, float, str, int | None]


def point_state(offer: Offer) -> PointState:
    """What a change point records; GPU and count included so per-GPU prices stay right."""
    return (
        offer.gpu,
        offer.gpu_count,
        offer.price.rub_per_hour,
        offer.stock.value,
        offer.stock_count,
    )


def changed_offers(offers: Iterable[Offer], latest: Mapping[OfferKey, PointState]) -> list[Offer]:
    """The offers that make a new change point: those whose state differs from their latest
    point, or that have none. `offers` must hold one offer per key."""
    return [offer for offer in offers if latest.get(offer.key) != point_state(offer)]


@dataclass(frozen=True)
class HistoryPoint:
    """An offer's price and stock from `at` until its next change point."""

    provider: str
    sku: str
    location: str
    gpu: str
    gpu_count: int
    at: datetime
    price_hour: float
    stock: StockState
    stock_count: int | None

    @property
    def price_per_gpu_hour(self) -> float:
        return self.price_hour / max(1, self.gpu_count)
