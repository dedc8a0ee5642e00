"""Subscriptions: what a user wants to hear about, and the rules of keeping them.

    WatchFilter                 every condition an offer must meet, and the kinds of news
    Subscription                a chat's filter with its cooldown, pause and mute
    check_room, cooldown_for    the per-chat limit, and a new subscription's cooldown

Which events a subscription matches is monitor.match_rules (the rule book); finding them among
many subscriptions without asking each is monitor.match_index.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import TypeVar

from estimator import gpus
from monitor.alerts import DEFAULT_COOLDOWN_S

T = TypeVar("T")


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


# Each distinct set of providers or of alert kinds, once: a hundred thousand filters hold a
# handful of them, and a frozenset each was 200 bytes (tracemalloc, bench.scale's mix).
_SETS: dict[frozenset[object], frozenset[object]] = {}


_NEEDS: dict[tuple[tuple[str, int], ...], Mapping[str, int]] = {}


def _shared(values: frozenset[T]) -> frozenset[T]:
    return _SETS.setdefault(values, values)  # type: ignore[return-value]


# Slots: no __dict__ per filter and per subscription, which the index holds by the hundred
# thousand (bench.scale prints the bot's memory per subscription).
@dataclass(frozen=True, slots=True)
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
        providers = frozenset(p.lower() for p in self.providers)
        object.__setattr__(self, "providers", _shared(providers))
        kinds = frozenset(AlertKind(k) for k in self.kinds) or default_kinds(
            self.max_rub_per_gpu_hour, max_job_rub=self.max_job_rub
        )
        object.__setattr__(self, "kinds", _shared(kinds))
        if self.fit_need is not None:
            # A read-only copy: the filter is shared by the index and must not change under
            # it; one per distinct fit table (the same query gives the same table).
            need = tuple(sorted(self.fit_need.items()))
            shared = _NEEDS.setdefault(need, MappingProxyType(dict(need)))
            object.__setattr__(self, "fit_need", shared)
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
class WatchEdit:
    """A user's change to one of their watches, made at once: pause or resume it, and/or set
    or clear its price cap (/subs' buttons, the Mini App's PATCH)."""

    paused: bool | None = None  # None: left as it is
    cap_changed: bool = False
    cap: float | None = None  # the new cap when cap_changed; None clears it

    @classmethod
    def new_cap(cls, cap: float | None) -> WatchEdit:
        return cls(cap_changed=True, cap=cap)


@dataclass(frozen=True, slots=True)
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
