"""MatchIndex(subs).match(events, now): the rule book's alerts, looking only where they can be.

The index files each subscription under the narrowest thing it names (a canonical GPU, a
family, each card of its fit table, a memory floor, or "any GPU"), and under each of its
providers. Inside a bucket, subscriptions sit on one shelf per way an event can interest them
(an arrival, any drop, a drop across the cap), sorted by their price cap. An event looks up
only its own offer's buckets, takes the one shelf its kind needs, and slices off everything
capped below its price. So a refresh costs about its events plus the subscriptions that
match, however many others there are: bench/match.py measures it. It finds the same alerts as
monitor.match_rules.naive_match (tests/monitor/test_match_index.py checks it).
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import NamedTuple

from monitor.alerts import Alert
from monitor.cards import VRAM_SLACK_GB
from monitor.events import Event
from monitor.match_rules import EventView, accepts, event_view
from monitor.subscriptions import AlertKind, Subscription, WatchFilter

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

    def sorting(self) -> Iterator[None]:
        """Sort a shelf filled in bulk, in steps of about SORT_CHUNK entries' work: a shelf
        of 7 000 took 5-7 ms in one step. Each chunk is sorted in a step of its own, then
        Timsort merges the sorted chunks in about a chunk's time per chunk (the order is
        the one sort's: both are stable). The shelf must not change until the steps end."""
        if not self._dirty:
            return
        ordered = list(self.members.values())
        if len(ordered) > SORT_CHUNK:
            for start in range(0, len(ordered), SORT_CHUNK):
                ordered[start : start + SORT_CHUNK] = sorted(
                    ordered[start : start + SORT_CHUNK], key=_BY_CAP
                )
                yield
        ordered.sort(key=_BY_CAP)
        yield
        simple: list[_Entry] = []
        other: list[_Entry] = []
        for entry in ordered:
            (simple if entry.simple else other).append(entry)
        self._simple, self._simple_caps = simple, list(map(_BY_CAP, simple))
        self._other, self._other_caps = other, list(map(_BY_CAP, other))
        self._dirty = False

    def _sort(self) -> None:
        for _ in self.sorting():
            pass

    def collect(
        self, view: EventView, low: float, high: float, now: datetime, out: list[_Entry]
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
            if not entry.check or accepts(sub.filter, view):
                out.append(entry)


def _span(caps: list[float], low: float, high: float) -> slice:
    end = len(caps) if high == _INF else bisect.bisect_left(caps, high)
    return slice(bisect.bisect_left(caps, low), end)


_BY_CAP = operator.attrgetter("cap")
# Entries a step of a shelf's sort handles (_Shelf.sorting): a few tenths of a millisecond.
SORT_CHUNK = 1024


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

    def collect(self, view: EventView, now: datetime, out: list[_Entry]) -> None:
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
        self.sort()

    def sort(self) -> None:
        """Sort the shelves filled in bulk (by `add` into an empty index) now, while loading,
        not at the first match: that one runs inside a refresh's write transaction. Later
        changes are inserted in place."""
        for _ in self.sorting():
            pass

    def sorting(self) -> Iterator[None]:
        """`sort`, in steps of a shelf or a chunk of one (_Shelf.sorting): at 100k
        subscriptions the whole sort is some 300 ms, a step at most a millisecond or two, so
        a loader on the event loop can let replies go between steps. The index must not
        change until the steps are done."""
        for bucket in self._buckets.values():
            for shelf in bucket.shelves():
                yield from shelf.sorting()

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
            view = event_view(event)
            if view is None:
                continue
            found: list[_Entry] = []
            for key in self._lookup_keys(view):
                bucket = self._buckets.get(key)
                if bucket is not None:
                    bucket.collect(view, now, found)
            alerts.extend(
                Alert(entry.chat_id, entry.sub_id, event, entry.sub.cooldown_s) for entry in found
            )
        return alerts

    def _lookup_keys(self, view: EventView) -> list[_BucketKey]:
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
            reach = bisect.bisect_right(self._floor_list, gpu.vram_gb + VRAM_SLACK_GB)
            primary.extend(("vram", repr(floor)) for floor in self._floor_list[:reach])
        provider = view.event.offer.provider
        return [(dim, value, p) for dim, value in primary for p in (None, provider)]
