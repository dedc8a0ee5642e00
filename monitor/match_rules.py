"""The rule book: which events a subscription matches, and which offers meet a filter.

    matches(sub, event, now)            one subscription against one event
    naive_match(subs, events, now)      every subscription against every event (the reference
                                        monitor.match_index must agree with)
    offer_matches, offer_meets          an offer as it is now against a filter (/watch, /prices)

Cooldown is not checked here: it depends on what was sent, which only the outbox knows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from estimator.planner import months_for
from monitor.alerts import Alert
from monitor.cards import VRAM_SLACK_GB, Card, card_meets
from monitor.events import Event, EventKind
from monitor.freshness import ObservedOffer
from monitor.offers import HOURS_PER_MONTH, Offer, StockState, rentable
from monitor.subscriptions import AlertKind, Subscription, WatchFilter, is_active


@dataclass(frozen=True, slots=True)
class EventView:
    """One event, read once for all subscriptions."""

    event: Event
    gpu: Card  # the offer's, as stored with it (monitor.cards)
    arrival: bool  # the offer became rentable (IN_STOCK, BELOW_TARGET)
    drop: bool  # the price fell on a rentable offer (PRICE_DROP, BELOW_TARGET)
    price: float  # ₽ per GPU-hour now
    old_price: float | None  # ₽ per GPU-hour before a drop
    location: str  # case-folded


def event_view(event: Event) -> EventView | None:
    """None for events no subscription can want (sold out, removed, price rise...)."""
    offer = event.offer
    arrival = event.kind is EventKind.APPEARED or (
        event.kind is EventKind.NEW_OFFER and offer.stock is StockState.UNKNOWN
    )
    # A cheaper price on something nobody can rent is not news; it alerts once it is back.
    drop = event.kind is EventKind.PRICE_DROP and rentable(offer.stock)
    if not (arrival or drop):
        return None
    cards = max(1, offer.gpu_count)
    hourly = event.new_price_hour if event.new_price_hour is not None else offer.price.rub_per_hour
    old = event.old_price_hour
    return EventView(
        event=event,
        gpu=offer.card,
        arrival=arrival,
        drop=drop,
        price=hourly / cards,
        old_price=None if old is None else old / cards,
        location=offer.location.casefold(),
    )


def _wants_kind(watch: WatchFilter, view: EventView) -> bool:
    kinds = watch.kinds
    if view.arrival and AlertKind.IN_STOCK in kinds:
        return True
    if view.drop and AlertKind.PRICE_DROP in kinds:
        return True
    if watch.max_job_rub is not None and AlertKind.BELOW_TARGET in kinds:
        if view.arrival:
            return True  # _meets checks that the run costs no more than the cap
        # A drop alerts when it brings the run's cost under the cap, not on every drop under it.
        old = job_cost(watch, view, before=True)
        return view.drop and (old is None or old > watch.max_job_rub)
    cap = watch.max_rub_per_gpu_hour
    if cap is None or AlertKind.BELOW_TARGET not in kinds:
        return False
    # The price check below makes "now ≤ cap"; a drop must also start above it, or every
    # small drop under the cap would be "below target" again.
    return view.arrival or (view.drop and view.old_price is not None and view.old_price > cap)


def accepts(watch: WatchFilter, view: EventView) -> bool:
    return _wants_kind(watch, view) and _meets(watch, view)


def _meets(watch: WatchFilter, view: EventView) -> bool:
    """Every condition on the offer itself, whatever kind of change brought it up."""
    offer, gpu = view.event.offer, view.gpu
    if watch.max_rub_per_gpu_hour is not None and view.price > watch.max_rub_per_gpu_hour:
        return False
    if not card_meets(gpu, watch.gpu, watch.family, watch.min_vram_gb):
        return False
    if watch.providers and offer.provider not in watch.providers:
        return False
    if watch.min_count is not None and offer.gpu_count < watch.min_count:
        return False
    if watch.fit_need is not None:
        need = watch.fit_need.get(gpu.sizing_id) if gpu.sizing_id is not None else None
        if need is None or offer.gpu_count < need:
            return False
    if watch.min_total_vram_gb is not None:
        # Unknown memory never passes a memory filter: an alert must never be false.
        if gpu.vram_gb is None:
            return False
        total = gpu.vram_gb * offer.gpu_count
        if total < watch.min_total_vram_gb - VRAM_SLACK_GB:
            return False
    if watch.max_job_rub is not None:
        cost = job_cost(watch, view)
        if cost is None or cost > watch.max_job_rub:
            return False
    return watch.location is None or watch.location.casefold() in view.location


def job_cost(watch: WatchFilter, view: EventView, *, before: bool = False) -> float | None:
    """What the watched run costs on the event's offer (its price before a drop with
    `before`): the server's rate x the run's hours on its card count, or the whole months a
    monthly server is rented for. None when the run does not fit that card and count."""
    if watch.job_hours is None or view.gpu.sizing_id is None:
        return None
    offer = view.event.offer
    hours = watch.job_hours.get(view.gpu.sizing_id, {}).get(offer.gpu_count)
    per_gpu = view.old_price if before else view.price
    if hours is None or per_gpu is None:
        return None
    server_hour = per_gpu * max(1, offer.gpu_count)
    if offer.price.hourly:
        return server_hour * hours
    return months_for(hours) * server_hour * HOURS_PER_MONTH


def offer_matches(watch: WatchFilter, item: ObservedOffer) -> bool:
    """Does the offer, as it is now, meet the filter: rentable while its data counts
    (monitor.freshness), and every condition on GPU, price, count, memory, provider and
    location? What matches already is not news: /watch shows it at once, and only a later
    change of it (or another offer, or its return once its data expired) makes an alert."""
    return item.rentable and offer_meets(watch, item.offer)


def offer_meets(watch: WatchFilter, offer: Offer) -> bool:
    """The filter's conditions on the offer alone, in stock or not (a /prices filter)."""
    view = event_view(Event(EventKind.APPEARED, offer, _SNAPSHOT_TIME))
    return view is not None and _meets(watch, view)


# offer_matches judges a snapshot, not a change; an event needs a time, and none is read.
_SNAPSHOT_TIME = datetime.min.replace(tzinfo=UTC)


def matches(sub: Subscription, event: Event, now: datetime) -> bool:
    """Does this event deserve an alert for this subscription (cooldown aside)?"""
    if not is_active(sub, now):
        return False
    view = event_view(event)
    return view is not None and accepts(sub.filter, view)


def naive_match(
    subs: Iterable[Subscription], events: Sequence[Event], now: datetime
) -> list[Alert]:
    """Every subscription against every event: the reference the index must agree with."""
    subs = sorted(subs, key=lambda sub: sub.id)
    alerts: list[Alert] = []
    for event in events:
        view = event_view(event)
        if view is None:
            continue
        alerts.extend(
            Alert(sub.chat_id, sub.id, event, sub.cooldown_s)
            for sub in subs
            if is_active(sub, now) and accepts(sub.filter, view)
        )
    return alerts
