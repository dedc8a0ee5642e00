"""Subscriptions: what a user wants to hear about, and which events they match.

    matches(sub, event, now)            one subscription against one event (the rule book)
    naive_match(subs, events, now)      every subscription against every event (the reference)
    MatchIndex(subs).match(events, now) the same alerts, looking only where they can be

The index files each subscription under the narrowest thing it names (a canonical GPU, a
family, each card of its fit table, a memory floor, or "any GPU"), and under each of its
providers. Inside a bucket, subscriptions sit on one shelf per way an event can interest them
(an arrival, any drop, a drop across the cap), sorted by their price cap. An event looks up
only its own offer's buckets, takes the one shelf its kind needs, and slices off everything
capped below its price. So a refresh costs about its events plus the subscriptions that
match, however many others there are: bench/match.py measures it.

Cooldown is not checked here: it depends on what was sent, which only the outbox knows.
"""

from __future__ import annotations

import bisect
import functools
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from types import MappingProxyType
from typing import NamedTuple

from estimator import gpus
from estimator.planner import months_for
from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import HOURS_PER_MONTH, Offer, StockState, rentable

DEFAULT_COOLDOWN_S = 6 * 3600
# Offers list memory as the vendor rounds it ("79.6 GB" for an 80GB card); never lose a
# real 80GB card to rounding.
_VRAM_SLACK_GB = 0.5


class AlertKind(StrEnum):
    IN_STOCK = "in_stock"
    PRICE_DROP = "price_drop"
    BELOW_TARGET = "below_target"


def default_kinds(
    max_rub_per_gpu_hour: float | None, *, max_job_rub: float | None = None
) -> frozenset[AlertKind]:
    """In stock, plus "below target" when there is a target to fall below. A watch on a
    run's cost is only about the target: an offer the run would cost more on is no news."""
    if max_job_rub is not None:
        return frozenset({AlertKind.BELOW_TARGET})
    if max_rub_per_gpu_hour is None:
        return frozenset({AlertKind.IN_STOCK})
    return frozenset({AlertKind.IN_STOCK, AlertKind.BELOW_TARGET})


@dataclass(frozen=True)
class WatchFilter:
    """Every condition an offer must meet; None / empty means "any"."""

    gpu: str | None = None  # canonical catalog id
    family: str | None = None  # "H100" matches H100 PCIe, SXM and NVL
    min_count: int | None = None  # GPUs in the offer
    min_vram_gb: float | None = None  # per GPU
    min_total_vram_gb: float | None = None
    max_rub_per_gpu_hour: float | None = None  # monthly prices count as price / 720
    providers: frozenset[str] = frozenset()
    location: str | None = None  # case-insensitive substring of the offer's location
    # Empty means the default for this filter (see default_kinds), filled in on creation.
    kinds: frozenset[AlertKind] = frozenset()
    fit_query: str | None = None  # the user's words, shown back to them
    # Canonical GPU id -> fewest cards that hold the run. Computed once, when the subscription
    # is made: the estimator is too slow to run per event, and the answer must not drift.
    fit_need: Mapping[str, int] | None = field(default=None, hash=False)
    # The cooldown the user asked for (/watch ... cooldown=1h); None = the default.
    cooldown_s: int | None = None
    # A watch on a run's total cost («сообщи, когда мой запуск будет стоить меньше 5000 ₽»):
    # the run's hours by sizing GPU id and card count (computed once, like fit_need), and the
    # most the whole run may cost at an offer's own billing (rate x hours, or whole months).
    job_hours: Mapping[str, Mapping[int, float]] | None = field(default=None, hash=False)
    max_job_rub: float | None = None

    def __post_init__(self) -> None:
        if self.family is not None:
            members = gpus.family_members(self.family)
            # Catalog spelling, so matching compares strings and not case-folded copies.
            if members:
                object.__setattr__(self, "family", members[0].family)
        object.__setattr__(self, "providers", frozenset(p.lower() for p in self.providers))
        object.__setattr__(self, "kinds", frozenset(AlertKind(k) for k in self.kinds))
        if not self.kinds:
            kinds = default_kinds(self.max_rub_per_gpu_hour, max_job_rub=self.max_job_rub)
            object.__setattr__(self, "kinds", kinds)
        if self.fit_need is not None:
            # A read-only copy: the filter is shared by the index and must not change under it.
            object.__setattr__(self, "fit_need", MappingProxyType(dict(self.fit_need)))
        if (self.fit_need is None) != (self.fit_query is None):
            raise ValueError("fit_query and fit_need come together")
        if (self.job_hours is None) != (self.max_job_rub is None):
            raise ValueError("job_hours and max_job_rub come together")
        if self.job_hours is not None:
            if self.fit_need is None:
                raise ValueError("a run's cost needs the run (fit_query)")
            frozen = {gpu: MappingProxyType(dict(h)) for gpu, h in self.job_hours.items()}
            object.__setattr__(self, "job_hours", MappingProxyType(frozen))
        names = ("min_count", "min_vram_gb", "min_total_vram_gb", "max_rub_per_gpu_hour")
        for name in (*names, "max_job_rub"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive, got {value}")
        if self.cooldown_s is not None and self.cooldown_s < 0:
            raise ValueError("cooldown_s must not be negative")


def with_max_price(watch: WatchFilter, value: float | None) -> WatchFilter:
    """The filter with a new price cap; "below target" follows the cap in or out."""
    kinds = set(watch.kinds)
    if value is None:
        kinds.discard(AlertKind.BELOW_TARGET)
    elif watch.max_rub_per_gpu_hour is None and kinds == {AlertKind.IN_STOCK}:
        kinds.add(AlertKind.BELOW_TARGET)  # it had the default kinds: keep it the default
    return replace(watch, max_rub_per_gpu_hour=value, kinds=frozenset(kinds))


@dataclass(frozen=True)
class Subscription:
    id: int
    chat_id: int
    filter: WatchFilter
    cooldown_s: int = DEFAULT_COOLDOWN_S
    paused: bool = False
    muted_until: datetime | None = None


def is_active(sub: Subscription, now: datetime) -> bool:
    return not sub.paused and (sub.muted_until is None or now >= sub.muted_until)


MAX_SUBSCRIPTIONS = 20  # per chat; /watch refuses the next one


class SubscriptionLimitError(Exception):
    """The user already has MAX_SUBSCRIPTIONS subscriptions."""


def check_room(chat_id: int, count: int) -> None:
    """Raise SubscriptionLimitError when a chat that has `count` subscriptions may add none."""
    if count >= MAX_SUBSCRIPTIONS:
        raise SubscriptionLimitError(f"chat {chat_id} has {count} subscriptions")


def cooldown_for(watch: WatchFilter, asked_s: int | None = None) -> int:
    """A new subscription's cooldown: the one asked for when it is added, else the one its
    filter names (`cooldown=` in /watch), else DEFAULT_COOLDOWN_S."""
    return next(c for c in (asked_s, watch.cooldown_s, DEFAULT_COOLDOWN_S) if c is not None)


@dataclass(frozen=True)
class SubscriptionCounts:
    """Subscriptions by state, for the operator's /admin view."""

    active: int
    paused: int

    @property
    def total(self) -> int:
        return self.active + self.paused


# --------------------------------------------------------------------------- offers


@dataclass(frozen=True, slots=True)
class OfferGpu:
    """What the catalog says about an offer's GPU.

    `id` is set only when the offer names a catalog row; a raw name ("A100 80GB") still has a
    family and, when its candidates agree on memory, a sizing id (the slowest candidate).
    """

    id: str | None
    family: str | None
    sizing_id: str | None
    vram_gb: float | None  # per GPU


@functools.lru_cache(maxsize=4096)
def offer_gpu(name: str, vram_gb: float | None) -> OfferGpu:
    try:
        spec = gpus.get(name)
    except KeyError:
        sizing = gpus.resolve_for_sizing(name, vram_gb=vram_gb)
        if vram_gb is None and sizing is not None:
            vram_gb = gpus.get(sizing).vram_gb
        return OfferGpu(None, gpus.family_of(name), sizing, vram_gb)
    return OfferGpu(spec.id, spec.family, spec.id, spec.vram_gb if vram_gb is None else vram_gb)


@dataclass(frozen=True, slots=True)
class _EventView:
    """One event, read once for all subscriptions."""

    event: Event
    gpu: OfferGpu
    arrival: bool  # the offer became rentable (IN_STOCK, BELOW_TARGET)
    drop: bool  # the price fell on a rentable offer (PRICE_DROP, BELOW_TARGET)
    price: float  # ₽ per GPU-hour now
    old_price: float | None  # ₽ per GPU-hour before a drop
    location: str  # case-folded


def _view(event: Event) -> _EventView | None:
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
    return _EventView(
        event=event,
        gpu=offer_gpu(offer.gpu, offer.vram_gb),
        arrival=arrival,
        drop=drop,
        price=hourly / cards,
        old_price=None if old is None else old / cards,
        location=offer.location.casefold(),
    )


def _wants_kind(watch: WatchFilter, view: _EventView) -> bool:
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


def _accepts(watch: WatchFilter, view: _EventView) -> bool:
    return _wants_kind(watch, view) and _meets(watch, view)


def _meets(watch: WatchFilter, view: _EventView) -> bool:
    """Every condition on the offer itself, whatever kind of change brought it up."""
    offer, gpu = view.event.offer, view.gpu
    if watch.max_rub_per_gpu_hour is not None and view.price > watch.max_rub_per_gpu_hour:
        return False
    if watch.gpu is not None and watch.gpu != gpu.id:
        return False
    if watch.family is not None and watch.family != gpu.family:
        return False
    if watch.providers and offer.provider not in watch.providers:
        return False
    if watch.min_count is not None and offer.gpu_count < watch.min_count:
        return False
    if watch.fit_need is not None:
        need = watch.fit_need.get(gpu.sizing_id) if gpu.sizing_id is not None else None
        if need is None or offer.gpu_count < need:
            return False
    if watch.min_vram_gb is not None or watch.min_total_vram_gb is not None:
        # Unknown memory never passes a memory filter: an alert must never be false.
        if gpu.vram_gb is None:
            return False
        # Written as the index's lookup is (floor ≤ memory + slack), to agree to the last bit.
        if watch.min_vram_gb is not None and watch.min_vram_gb > gpu.vram_gb + _VRAM_SLACK_GB:
            return False
        total = gpu.vram_gb * offer.gpu_count
        if watch.min_total_vram_gb is not None and total < watch.min_total_vram_gb - _VRAM_SLACK_GB:
            return False
    if watch.max_job_rub is not None:
        cost = job_cost(watch, view)
        if cost is None or cost > watch.max_job_rub:
            return False
    return watch.location is None or watch.location.casefold() in view.location


def job_cost(watch: WatchFilter, view: _EventView, *, before: bool = False) -> float | None:
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


def offer_matches(watch: WatchFilter, offer: Offer) -> bool:
    """Does the offer, as it is now, meet the filter: rentable, and every condition on GPU,
    price, count, memory, provider and location? What matches already is not news: /watch
    shows it at once, and only a later change of it (or another offer) makes an alert."""
    return rentable(offer.stock) and offer_meets(watch, offer)


def offer_meets(watch: WatchFilter, offer: Offer) -> bool:
    """The filter's conditions on the offer alone, in stock or not (a /prices filter)."""
    view = _view(Event(EventKind.APPEARED, offer, _SNAPSHOT_TIME))
    return view is not None and _meets(watch, view)


# offer_matches judges a snapshot, not a change; an event needs a time, and none is read.
_SNAPSHOT_TIME = datetime.min.replace(tzinfo=UTC)


def matches(sub: Subscription, event: Event, now: datetime) -> bool:
    """Does this event deserve an alert for this subscription (cooldown aside)?"""
    if not is_active(sub, now):
        return False
    view = _view(event)
    return view is not None and _accepts(sub.filter, view)


def naive_match(
    subs: Iterable[Subscription], events: Sequence[Event], now: datetime
) -> list[Alert]:
    """Every subscription against every event: the reference the index must agree with."""
    subs = sorted(subs, key=lambda sub: sub.id)
    alerts: list[Alert] = []
    for event in events:
        view = _view(event)
        if view is None:
            continue
        alerts.extend(
            Alert(sub.chat_id, sub.id, event)
            for sub in subs
            if is_active(sub, now) and _accepts(sub.filter, view)
        )
    return alerts


# --------------------------------------------------------------------------- index

_ANY = ""  # bucket value for subscriptions that name no GPU
_INF = float("inf")  # the cap of an uncapped subscription: it admits every price
_BucketKey = tuple[str, str, str | None]  # (dimension, value, provider or None = any)


class _Entry(NamedTuple):
    """One subscription on one shelf."""

    sub_id: int
    chat_id: int
    fewest: int  # GPUs the offer needs here: the count filter, or the fit's need of this card
    check: bool  # something is left for the rule book (memory, location, a GPU named twice)
    cap: float
    sub: Subscription

    @property
    def simple(self) -> bool:
        """Admitted by key, shelf and cap alone, as long as it is not muted."""
        return self.fewest <= 1 and not self.check and self.sub.muted_until is None


class _Shelf:
    """Entries sorted by price cap, so "cap ≥ price" is one bisect and a slice.

    Simple entries (see _Entry.simple) are kept apart: a match among them costs a slice and an
    extend in C, with no Python per subscription, and they are most of them. The others go
    through the count, the mute and, when needed, the rule book.
    """

    __slots__ = ("_dirty", "_other", "_other_caps", "_simple", "_simple_caps", "members")

    def __init__(self) -> None:
        self.members: dict[int, _Entry] = {}
        self._simple: list[_Entry] = []
        self._simple_caps: list[float] = []
        self._other: list[_Entry] = []
        self._other_caps: list[float] = []
        self._dirty = True  # a new shelf is filled in bulk, then sorted once

    def put(self, entry: _Entry) -> None:
        self.members[entry.sub_id] = entry
        if self._dirty:
            return  # sorted on the next lookup: a bulk load sorts once, not on every add
        # One subscription changed in a live index: insert in place (a memmove), so the
        # next refresh does not re-sort the shelf.
        entries, caps = self._lists(entry)
        at = bisect.bisect_right(caps, entry.cap)
        caps.insert(at, entry.cap)
        entries.insert(at, entry)

    def drop(self, sub_id: int) -> None:
        entry = self.members.pop(sub_id, None)
        if entry is None or self._dirty:
            return
        entries, caps = self._lists(entry)
        at = bisect.bisect_left(caps, entry.cap)
        while entries[at].sub_id != sub_id:  # among the entries with the same cap
            at += 1
        del caps[at], entries[at]

    def _lists(self, entry: _Entry) -> tuple[list[_Entry], list[float]]:
        if entry.simple:
            return self._simple, self._simple_caps
        return self._other, self._other_caps

    def sort(self) -> None:
        if self._dirty:
            self._sort()

    def _sort(self) -> None:
        ordered = sorted(self.members.values(), key=_BY_CAP)
        self._simple = [entry for entry in ordered if entry.simple]
        self._other = [entry for entry in ordered if not entry.simple]
        self._simple_caps = [entry.cap for entry in self._simple]
        self._other_caps = [entry.cap for entry in self._other]
        self._dirty = False

    def collect(
        self, view: _EventView, low: float, high: float, now: datetime, out: list[_Entry]
    ) -> None:
        """Append the entries with low ≤ cap < high that accept the event."""
        if self._dirty:
            self._sort()
        out.extend(self._simple[_span(self._simple_caps, low, high)])
        cards = view.event.offer.gpu_count
        for entry in self._other[_span(self._other_caps, low, high)]:
            sub = entry.sub
            if entry.fewest > cards or (sub.muted_until is not None and now < sub.muted_until):
                continue
            if not entry.check or _accepts(sub.filter, view):
                out.append(entry)


def _span(caps: list[float], low: float, high: float) -> slice:
    end = len(caps) if high == _INF else bisect.bisect_left(caps, high)
    return slice(bisect.bisect_left(caps, low), end)


_BY_CAP = operator.attrgetter("cap")


def _cap_of(sub: Subscription) -> float:
    cap = sub.filter.max_rub_per_gpu_hour
    return _INF if cap is None else cap


class _Bucket:
    """One key's subscriptions on three shelves, one per way an event can interest them."""

    __slots__ = ("arrival", "drops", "targets")

    def __init__(self) -> None:
        self.arrival = _Shelf()  # IN_STOCK, or BELOW_TARGET with a cap: a rentable arrival
        self.drops = _Shelf()  # PRICE_DROP: any drop to a price within the cap
        self.targets = _Shelf()  # BELOW_TARGET without PRICE_DROP: a drop across the cap

    def shelves(self) -> tuple[_Shelf, _Shelf, _Shelf]:
        return (self.arrival, self.drops, self.targets)

    def put(self, entry: _Entry) -> None:
        watch = entry.sub.filter
        kinds, capped = watch.kinds, watch.max_rub_per_gpu_hour is not None
        job = watch.max_job_rub is not None and AlertKind.BELOW_TARGET in kinds
        if AlertKind.IN_STOCK in kinds or (AlertKind.BELOW_TARGET in kinds and capped) or job:
            self.arrival.put(entry)
        # A run's cost crosses its cap at a card price that differs by card, count and
        # billing: such a watch sees every drop, and the rule book decides.
        if AlertKind.PRICE_DROP in kinds or job:
            self.drops.put(entry)
        elif AlertKind.BELOW_TARGET in kinds and capped:
            self.targets.put(entry)

    def drop(self, sub_id: int) -> None:
        for shelf in self.shelves():
            shelf.drop(sub_id)

    def __len__(self) -> int:
        return sum(len(shelf.members) for shelf in self.shelves())

    def collect(self, view: _EventView, now: datetime, out: list[_Entry]) -> None:
        if view.arrival:
            self.arrival.collect(view, view.price, _INF, now, out)
        elif view.drop:
            self.drops.collect(view, view.price, _INF, now, out)
            if view.old_price is not None:
                # Crossed the cap: new ≤ cap < old.
                self.targets.collect(view, view.price, view.old_price, now, out)


def _vram_floor(watch: WatchFilter) -> float | None:
    """The memory floor an "any GPU" subscription is filed by, if that is its dimension."""
    if watch.gpu is None and watch.family is None and watch.fit_need is None:
        return watch.min_vram_gb
    return None


def _placements(sub: Subscription) -> list[tuple[_BucketKey, _Entry]]:
    """The buckets a subscription is filed under (one dimension only: the narrowest it
    names, then each of its providers), with its entry for each."""
    watch = sub.filter
    fewest = watch.min_count or 1
    floor = _vram_floor(watch)
    check = watch.min_total_vram_gb is not None or watch.location is not None
    check = check or (watch.min_vram_gb is not None and floor is None)
    check = check or watch.max_job_rub is not None
    primary: list[tuple[str, str, int, bool]]
    if watch.gpu is not None:
        named_twice = watch.family is not None or watch.fit_need is not None
        primary = [("gpu", watch.gpu, fewest, named_twice)]
    elif watch.family is not None:
        primary = [("family", watch.family, fewest, watch.fit_need is not None)]
    elif watch.fit_need is not None:
        # Filed under every card of the fit table, needing as many of it as the run does.
        primary = [("fit", gpu_id, max(fewest, n), False) for gpu_id, n in watch.fit_need.items()]
    elif floor is not None:
        primary = [("vram", repr(floor), fewest, False)]
    else:
        primary = [("any", _ANY, fewest, False)]
    providers: Iterable[str | None] = watch.providers or (None,)
    cap = _cap_of(sub)
    return [
        ((dim, value, provider), _Entry(sub.id, sub.chat_id, cards, check or twice, cap, sub))
        for dim, value, cards, twice in primary
        for provider in providers
    ]


class MatchIndex:
    """Subscriptions bucketed so that an event only meets the ones that could want it.

    Each subscription sits in buckets of one dimension only, and an offer has at most one key
    per dimension and one provider, and an event uses one shelf per bucket (a drop uses two,
    which share no member), so no subscription is met twice for one event. Paused ones are
    kept (for `get`) but filed nowhere: they cannot match.
    """

    def __init__(self, subs: Iterable[Subscription] = ()) -> None:
        self._subs: dict[int, Subscription] = {}
        self._buckets: dict[_BucketKey, _Bucket] = {}
        # Memory floors of "any GPU" subscriptions (how many use each), ascending: an offer
        # looks up every floor its memory meets. People use a handful (24, 48, 80).
        self._floors: dict[float, int] = {}
        self._floor_list: list[float] = []
        for sub in subs:
            self.add(sub)
        # Sorted now, while loading, not at the first match: that one runs inside a
        # refresh's write transaction. Later changes are inserted in place.
        for bucket in self._buckets.values():
            for shelf in bucket.shelves():
                shelf.sort()

    def __len__(self) -> int:
        return len(self._subs)

    def get(self, sub_id: int) -> Subscription | None:
        return self._subs.get(sub_id)

    def add(self, sub: Subscription) -> None:
        """Add, or replace the subscription with the same id (after an edit or a pause)."""
        self.remove(sub.id)
        self._subs[sub.id] = sub
        if sub.paused:
            return
        for key, entry in _placements(sub):
            self._buckets.setdefault(key, _Bucket()).put(entry)
        floor = _vram_floor(sub.filter)
        if floor is not None:
            if floor not in self._floors:
                bisect.insort(self._floor_list, floor)
            self._floors[floor] = self._floors.get(floor, 0) + 1

    def remove(self, sub_id: int) -> None:
        sub = self._subs.pop(sub_id, None)
        if sub is None or sub.paused:
            return
        for key, _ in _placements(sub):
            # A subscription on no shelf of its bucket (say "below target" without a cap)
            # leaves it empty, so another's removal may have deleted it already.
            bucket = self._buckets.get(key)
            if bucket is None:
                continue
            bucket.drop(sub_id)
            if not len(bucket):
                del self._buckets[key]
        floor = _vram_floor(sub.filter)
        if floor is not None:
            self._floors[floor] -= 1
            if not self._floors[floor]:
                del self._floors[floor]
                self._floor_list.remove(floor)

    def match(self, events: Sequence[Event], now: datetime) -> list[Alert]:
        """Alerts in event order; the same set as naive_match (which orders each event's
        alerts by subscription id). Within an event the order is the index's own: sorting
        would cost a sixth of the time and means nothing downstream, where the outbox groups
        alerts by chat."""
        alerts: list[Alert] = []
        for event in events:
            view = _view(event)
            if view is None:
                continue
            found: list[_Entry] = []
            for key in self._lookup_keys(view):
                bucket = self._buckets.get(key)
                if bucket is not None:
                    bucket.collect(view, now, found)
            alerts.extend(Alert(entry.chat_id, entry.sub_id, event) for entry in found)
        return alerts

    def _lookup_keys(self, view: _EventView) -> list[_BucketKey]:
        gpu = view.gpu
        primary = [("any", _ANY)]
        if gpu.id is not None:
            primary.append(("gpu", gpu.id))
        if gpu.family is not None:
            primary.append(("family", gpu.family))
        if gpu.sizing_id is not None:
            primary.append(("fit", gpu.sizing_id))
        if gpu.vram_gb is not None:
            # The same slack as the rule book: admitted when floor - slack ≤ memory.
            reach = bisect.bisect_right(self._floor_list, gpu.vram_gb + _VRAM_SLACK_GB)
            primary.extend(("vram", repr(floor)) for floor in self._floor_list[:reach])
        provider = view.event.offer.provider
        return [(dim, value, p) for dim, value in primary for p in (None, provider)]
