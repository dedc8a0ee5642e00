"""How fresh an offer on show is: the one rule every reader of offers shares. Pure.

An offer's `observed_at` is the last scrape in which *its part* succeeded (monitor.diff stamps
it on `Tracked.seen_at`; a held part's offers keep theirs). The offer is *stale* when its
provider's latest scrape did not confirm it: its part failed, was empty or is held as
suspect (monitor.parts), or the whole scrape failed. A stale offer stays listed, since a
failed scrape is not empty stock, and every view marks it with when its data is from and why.

Stale for longer than `stale_after` (GPURADAR_STALE_AFTER_S) since its `observed_at`, an
offer is *expired*: it no longer counts as rentable, so the plans, /watch's matches, the
in-stock filters (/stock, the open data's `in_stock`) and the rankings leave it out or put
it last, and when its part answers again the offer's return is news, as an arrival would be
(monitor.diff `expired`), so a watch made meanwhile, that was told nothing matched, hears of
it. `monitor.offers.rentable` stays the stock rule; `ObservedOffer.rentable` is it with
freshness added.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from monitor.diff import OfferKey, Tracked
from monitor.health import ProviderHealth
from monitor.offers import Offer, StockState, rentable
from monitor.parts import PartState

# How long a stale offer still counts as rentable by default. The providers refresh every
# 10–15 minutes (monitor/providers.py `interval_s`: Selectel 600 s, HOSTKEY and immers 900 s),
# and the operator hears of a failing provider after 3 failed runs (monitor/alarms.py
# DEFAULT_THRESHOLD), 30–45 minutes in. An hour is 4–6 missed refreshes: past the alarm, and
# short enough that no plan rests on stock nobody has seen for half a working day.
DEFAULT_STALE_AFTER_S = 3600
DEFAULT_STALE_AFTER = timedelta(seconds=DEFAULT_STALE_AFTER_S)


@dataclass(frozen=True)
class Stale:
    """Why the provider's latest scrape did not confirm an offer."""

    # FAILED (its part, or the whole scrape), EMPTY (no GPU offers) or SUSPECT (held: it
    # lost more than half its offers at once and awaits confirmation).
    state: PartState
    error_class: str | None  # the error's class ("HttpStatusError"); None for SUSPECT


@dataclass(frozen=True)
class ObservedOffer:
    """An offer as last seen: when its part last succeeded, and whether that is still the
    provider's latest word on it."""

    offer: Offer
    observed_at: datetime
    stale: Stale | None = None  # None: the provider's latest scrape confirmed it
    expired: bool = False  # stale for longer than stale_after: no longer counts as rentable

    @property
    def rentable(self) -> bool:
        """`monitor.offers.rentable`, while the offer's data counts."""
        return rentable(self.offer.stock) and not self.expired

    @property
    def in_stock(self) -> bool:
        """Published in stock, while the offer's data counts (/stock, `in_stock=true`)."""
        return self.offer.stock is StockState.IN_STOCK and not self.expired


def staleness(part: str, health: ProviderHealth | None) -> Stale | None:
    """Why an offer of `part` is not confirmed by its provider's latest scrape, or None.

    A part the latest scrape held says so itself; a scrape that failed as a whole wrote no
    part statuses, and the provider's own failure stands for all of them.
    """
    if health is None:
        return None
    for status in health.parts:
        if status.part == part and not status.ok:
            return Stale(status.state, status.error_class)
    if health.failing:
        return Stale(PartState.FAILED, health.last_error_class)
    return None


def is_expired(
    observed_at: datetime, stale: Stale | None, now: datetime, stale_after: timedelta
) -> bool:
    """Whether a stale offer's data is too old to count as rentable at `now`."""
    return stale is not None and now - observed_at > stale_after


def observe(
    offer: Offer,
    observed_at: datetime,
    part: str,
    health: ProviderHealth | None,
    now: datetime,
    stale_after: timedelta,
) -> ObservedOffer:
    """An offer row as every reader shows it: marked stale, and expired past `stale_after`."""
    stale = staleness(part, health)
    expired = is_expired(observed_at, stale, now, stale_after)
    return ObservedOffer(offer, observed_at, stale, expired)


def expired_keys(
    tracked: Mapping[OfferKey, Tracked],
    health: ProviderHealth | None,
    now: datetime,
    stale_after: timedelta,
) -> frozenset[OfferKey]:
    """The listed offers whose data had expired before the scrape at `now`, by the rule the
    readers applied meanwhile: `health` is the provider's as its previous scrape left it."""
    return frozenset(
        key
        for key, entry in tracked.items()
        if entry.missing_runs == 0
        and entry.seen_at is not None
        and is_expired(entry.seen_at, staleness(entry.part, health), now, stale_after)
    )
