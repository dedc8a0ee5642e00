"""Offers, events and subscriptions for the matching tests (rules and index alike)."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, datetime

from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.match_rules import matches
from monitor.offers import Offer, Price, StockState
from monitor.subscriptions import AlertKind, Subscription, WatchFilter
from tests.factories import make_offer

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
IN, OUT, PRE, UNK = (
    StockState.IN_STOCK,
    StockState.OUT_OF_STOCK,
    StockState.PREORDER,
    StockState.UNKNOWN,
)
ALL_KINDS = frozenset(AlertKind)


def offer(
    gpu: str = "RTX 4090",
    *,
    rub: float = 100.0,
    count: int = 1,
    vram: float | None = None,
    stock: StockState = IN,
    provider: str = "selectel",
    location: str = "MSK-1",
    monthly: bool = False,
    known: bool = True,
    sku: str = "s1",
) -> Offer:
    """An offer priced `rub` per GPU-hour in total for all its cards."""
    base = make_offer(
        sku,
        rub * count,
        stock,
        provider=provider,
        gpu=gpu,
        gpu_count=count,
        location=location,
        vram_gb=vram,
    )
    base = replace(base, gpu_known=known)
    if monthly:
        base = replace(base, price=Price.per_month(rub * count * 720, "RUB/month"))
    return base


def appeared(o: Offer) -> Event:
    return Event(EventKind.APPEARED, o, T0, old_stock=OUT)


def drop(o: Offer, old: float, new: float) -> Event:
    """Prices per GPU-hour; the event carries the offer's whole price, as monitor.diff does."""
    cards = o.gpu_count
    return Event(
        EventKind.PRICE_DROP, o, T0, old_price_hour=old * cards, new_price_hour=new * cards
    )


def sub(sub_id: int = 1, chat_id: int = 10, **fields: object) -> Subscription:
    return Subscription(sub_id, chat_id, WatchFilter(**fields))  # type: ignore[arg-type]


def grouped(alerts: list[Alert]) -> list[tuple[Event, list[tuple[int, int]]]]:
    """Alerts per event, in event order; within an event the index has no order of its own."""
    return [
        (event, sorted((a.subscription_id, a.chat_id) for a in group))
        for event, group in itertools.groupby(alerts, key=lambda a: a.event)
    ]


def hits(s: Subscription, event: Event, now: datetime = T0) -> bool:
    return matches(s, event, now)
