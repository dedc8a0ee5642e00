"""One refresh of one provider, end to end:

    fetch -> diff against the last good snapshot -> store snapshot + change history
          -> match events to subscriptions -> outbox rows          (all one transaction)

A failed fetch records the provider's failure and nothing else: no diff, no events, and
the last good snapshot stays, so the next good scrape is diffed against it. monitor only
knows these protocols; storage implements them and the composition root wires them.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

from monitor.alerts import Alert
from monitor.diff import Tracked, diff
from monitor.events import Event
from monitor.offers import Offer
from monitor.scrape import LayoutError, ScrapeError, ScrapeResult

logger = logging.getLogger(__name__)
OfferKey = tuple[str, str, str]


class OfferSource(Protocol):
    @property
    def name(self) -> str: ...

    async def fetch(self) -> ScrapeResult: ...


class RefreshUnit(Protocol):
    """The writes of one refresh, inside one database transaction."""

    async def tracked(self) -> dict[OfferKey, Tracked]: ...

    async def write_tracked(self, tracked: Mapping[OfferKey, Tracked], at: datetime) -> None: ...

    async def record_change_points(self, offers: Iterable[Offer], at: datetime) -> int: ...

    async def last_alerts_at(self, alerts: Sequence[Alert]) -> list[datetime | None]:
        """For each alert, its subscription's last alert about that offer and kind of change
        (None: never); one query for the whole refresh."""

    async def enqueue(self, alerts: Sequence[Alert], now: datetime) -> int: ...

    async def mark_healthy(self, offers: int, duration_s: float, at: datetime) -> None: ...


class PipelineStore(Protocol):
    def refresh_unit(self, provider: str) -> AbstractAsyncContextManager[RefreshUnit]: ...

    async def record_failure(
        self, provider: str, error: ScrapeError, at: datetime, duration_s: float
    ) -> None: ...


class Matcher(Protocol):
    async def prepare(self) -> None:
        """Load what matching needs; matching itself must not touch the database."""

    def match(self, events: Sequence[Event], now: datetime) -> list[Alert]: ...

    def cooldown_of(self, subscription_id: int) -> timedelta: ...


@dataclass(frozen=True)
class PipelineOutcome:
    provider: str
    ok: bool
    offers: int = 0
    events: int = 0
    alerts: int = 0
    duration_s: float = 0.0
    error: ScrapeError | None = None
    # EventKind value -> how many of this refresh's events were of that kind.
    events_by_kind: Mapping[str, int] = field(default_factory=dict)


async def refresh(
    source: OfferSource,
    store: PipelineStore,
    matcher: Matcher,
    *,
    removal_after: int = 2,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    monotonic: Callable[[], float] = time.monotonic,
) -> PipelineOutcome:
    started = monotonic()
    try:
        result = await source.fetch()
    except ScrapeError as error:
        failure: ScrapeError = error
    except Exception as error:  # a parser bug on provider garbage is the provider's failure
        logger.exception("%s: scraper crashed", source.name)
        failure = LayoutError(source.name, f"scraper crashed: {type(error).__name__}: {error}")
    else:
        return await _apply(result, store, matcher, removal_after, now(), monotonic() - started)
    duration = monotonic() - started
    logger.warning("%s: scrape failed: %s: %s", source.name, failure.kind, failure.detail)
    await store.record_failure(source.name, failure, now(), duration)
    return PipelineOutcome(source.name, False, duration_s=duration, error=failure)


async def _apply(
    result: ScrapeResult,
    store: PipelineStore,
    matcher: Matcher,
    removal_after: int,
    moment: datetime,
    duration: float,
) -> PipelineOutcome:
    for warning in result.warnings:
        logger.info("%s: %s", result.provider, warning)
    await matcher.prepare()
    async with store.refresh_unit(result.provider) as unit:
        previous = await unit.tracked()
        changes = diff(previous, result, removal_after=removal_after)
        await unit.write_tracked(changes.tracked, result.fetched_at)
        await unit.record_change_points(result.offers, result.fetched_at)
        # A provider's first good snapshot is the baseline, not news: without it every offer
        # would be "new" and every subscriber would hear of stock that was always there.
        events = changes.events if previous else ()
        candidates = matcher.match(events, moment)
        alerts = await _not_cooling_down(unit, matcher, candidates, moment)
        queued = await unit.enqueue(alerts, moment)
        await unit.mark_healthy(len(result.offers), duration, result.fetched_at)
    return PipelineOutcome(
        result.provider,
        True,
        len(result.offers),
        len(events),
        queued,
        duration,
        events_by_kind=dict(Counter(event.kind.value for event in events)),
    )


async def _not_cooling_down(
    unit: RefreshUnit, matcher: Matcher, alerts: Sequence[Alert], now: datetime
) -> list[Alert]:
    """The alerts whose subscription was not told about the same offer and kind of change
    within its cooldown."""
    if not alerts:
        return []
    lasts = await unit.last_alerts_at(alerts)
    return [
        alert
        for alert, last in zip(alerts, lasts, strict=True)
        if last is None or now - last >= matcher.cooldown_of(alert.subscription_id)
    ]
