"""Events: what changed between the last good snapshot and a new one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from monitor.offers import Offer, StockState


class EventKind(StrEnum):
    APPEARED = "appeared"  # now in stock: from out of stock, pre-order, absent, or a new offer
    SOLD_OUT = "sold_out"  # was in stock, now explicitly out of stock
    PRICE_DROP = "price_drop"
    PRICE_RISE = "price_rise"
    NEW_OFFER = "new_offer"  # a new offer that is not in stock (pre-order, unknown stock)
    REMOVED = "removed"  # missing from N consecutive good snapshots


@dataclass(frozen=True)
class Event:
    kind: EventKind
    offer: Offer  # the offer as it is now (for REMOVED: as it was last seen)
    at: datetime  # when the snapshot that showed the change was taken
    old_price_hour: float | None = None
    new_price_hour: float | None = None
    old_stock: StockState | None = None

    @property
    def key(self) -> str:
        """Stable identity of this change: the same change derived twice has the same key."""
        provider, sku, location = self.offer.key
        return f"{self.kind.value}|{provider}|{sku}|{location}|{self.at.isoformat()}"
