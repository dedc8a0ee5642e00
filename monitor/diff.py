"""Diff: the events between the last good snapshot of a provider and a new one. Pure.

The caller only ever passes a *good* scrape here. A failed scrape (ScrapeError) never reaches
diff: the provider's tracked state stays as it was, so the next good snapshot is diffed against
the last good one and a failure can never look like "everything sold out" or "removed". The same
holds per part: only the parts the caller accepts (monitor.parts decides) are diffed; the
tracked offers of the others are carried unchanged.

Tracked state is more than the last snapshot: an offer that went missing stays tracked, with a
count of the consecutive good snapshots it has been missing from, until that count reaches
`removal_after`. Only then is it REMOVED and forgotten. That is what stops flapping: an offer
that skips one snapshot and comes back is compared with how it was last seen, not treated as new.

Each tracked offer also remembers when a good scrape of its part last saw it (`seen_at`): the
offers of an accepted part are seen now, a held part's keep their time. An offer whose data
had *expired* meanwhile (stale too long: monitor.freshness) stopped counting as rentable, so
its return is news again: APPEARED in stock, NEW_OFFER otherwise, as for an offer never seen
(an arrival, to a watch, when its stock is unpublished: monitor.match_rules); its price still
compares with the last one seen.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime

from monitor.events import Event, EventKind
from monitor.offers import Offer, StockState
from monitor.scrape import WHOLE, ScrapeResult

OfferKey = tuple[str, str, str]

# Sort order of kinds within one offer: the stock change first, then the price change.
_KIND_ORDER = {kind: index for index, kind in enumerate(EventKind)}


@dataclass(frozen=True)
class Tracked:
    """An offer as last seen, how many good snapshots in a row it has been missing from, the
    part of the provider's scrape it belongs to, and when a good scrape of that part last saw
    it (None: in the snapshot being stored, which stamps its own time)."""

    offer: Offer
    missing_runs: int = 0
    part: str = WHOLE
    seen_at: datetime | None = None


@dataclass(frozen=True)
class DiffResult:
    events: tuple[Event, ...]
    # The provider's new tracked state, to be stored: every offer of the new snapshot (missing
    # 0 runs) plus the missing ones not yet removed. Other providers are not in it.
    tracked: dict[OfferKey, Tracked]


def diff(
    previous: Mapping[OfferKey, Tracked],
    new: ScrapeResult,
    removal_after: int = 2,
    price_epsilon: float = 0.005,
    accepted: Collection[str] | None = None,
    expired: Collection[OfferKey] = frozenset(),
) -> DiffResult:
    """Events from `previous` (tracked state, any providers) to the good scrape `new`.

    Only `new.provider`'s offers in `previous` take part. Events are ordered by offer key, then
    kind, so the same inputs always give the same tuple.

    `accepted` names the parts whose news goes through (default: every part that parsed). A
    tracked offer of any other part (failed, held as suspect) is carried as it is: it neither
    counts as missing nor makes an event.

    `expired` names tracked offers whose data had expired (monitor.freshness.expired_keys):
    seen again, their stock is news as an untracked offer's would be.
    """
    if removal_after < 1:
        raise ValueError(f"removal_after must be at least 1, got {removal_after}")
    if price_epsilon < 0:
        raise ValueError(f"price_epsilon must not be negative, got {price_epsilon}")
    parts = set(new.parts) if accepted is None else set(accepted)
    current = _index(new, parts)
    before = {key: t for key, t in previous.items() if key[0] == new.provider}
    events: list[Event] = []
    tracked: dict[OfferKey, Tracked] = {}
    for key, (offer, part) in current.items():
        old = before.get(key)
        events.extend(
            _changes(
                old.offer if old else None, offer, new.fetched_at, price_epsilon, key in expired
            )
        )
        tracked[key] = Tracked(offer, 0, part, new.fetched_at)
    for key, old in before.items():
        if key in current:
            continue
        if old.part not in parts:
            tracked[key] = old  # its part said nothing this time: keep it as last seen
            continue
        missing = Tracked(old.offer, old.missing_runs + 1, old.part, old.seen_at)
        if missing.missing_runs >= removal_after:
            events.append(Event(EventKind.REMOVED, old.offer, new.fetched_at))
        else:
            tracked[key] = missing
    events.sort(key=lambda event: (event.offer.key, _KIND_ORDER[event.kind]))
    return DiffResult(tuple(events), tracked)


def _index(new: ScrapeResult, parts: Collection[str]) -> dict[OfferKey, tuple[Offer, str]]:
    """The accepted parts' offers by key, with their part; a foreign or duplicate key is a
    scraper bug, not data."""
    found: dict[OfferKey, tuple[Offer, str]] = {}
    for part, outcome in new.parts.items():
        if part not in parts or not isinstance(outcome, tuple):
            continue
        for offer in outcome:
            if offer.provider != new.provider:
                raise ValueError(f"{new.provider}: scrape contains an offer of {offer.provider}")
            if offer.key in found:
                raise ValueError(f"{new.provider}: duplicate offer key {offer.key}")
            found[offer.key] = (offer, part)
    return found


def _changes(
    old: Offer | None, offer: Offer, at: datetime, price_epsilon: float, expired: bool = False
) -> Iterator[Event]:
    """The events for one offer of the new snapshot, given how it was last seen (if at all)
    and whether that sighting had expired."""
    if old is None or expired:
        # Absent means not tracked at all: a brand-new key, or one removed earlier. Expired
        # means tracked, but no longer counted: its stock is as new as an untracked one's.
        in_stock = offer.stock is StockState.IN_STOCK
        yield Event(EventKind.APPEARED if in_stock else EventKind.NEW_OFFER, offer, at)
        if old is None:
            return
    else:
        stock_kind = _stock_change(old.stock, offer.stock)
        if stock_kind is not None:
            yield Event(stock_kind, offer, at, old_stock=old.stock)
    price_kind = _price_change(old.price.rub_per_hour, offer.price.rub_per_hour, price_epsilon)
    if price_kind is not None:
        yield Event(
            price_kind,
            offer,
            at,
            old_price_hour=old.price.rub_per_hour,
            new_price_hour=offer.price.rub_per_hour,
            old_stock=old.stock,
        )


def _stock_change(old: StockState, new: StockState) -> EventKind | None:
    """A stock event between two known states; UNKNOWN on either side says nothing about stock.

    Comparing with the last *seen* state (even when the offer was missing in between) is what
    keeps an offer that skipped a snapshot from producing a sold-out/appeared pair.
    """
    if StockState.UNKNOWN in (old, new) or old is new:
        return None
    if new is StockState.IN_STOCK:
        return EventKind.APPEARED  # from out of stock or pre-order
    if old is StockState.IN_STOCK and new is StockState.OUT_OF_STOCK:
        return EventKind.SOLD_OUT
    return None


def _price_change(old: float, new: float, price_epsilon: float) -> EventKind | None:
    """A price event when ₽/h moved by more than `price_epsilon` of the old price.

    The tolerance absorbs rounding and currency-rate jitter in converted prices; written as a
    product so a zero old price needs no special case.
    """
    if abs(new - old) <= price_epsilon * old:
        return None
    return EventKind.PRICE_DROP if new < old else EventKind.PRICE_RISE
