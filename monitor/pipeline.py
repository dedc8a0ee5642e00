"""One refresh of one provider, end to end:

    fetch -> diff against the last good snapshot -> store snapshot + change history
          -> match events to subscriptions -> outbox rows          (all one transaction)

A failed fetch records the provider's failure and nothing else: no diff, no events, and
the last good snapshot stays, so the next good scrape is diffed against it. The same holds for
each part of a scrape (monitor.parts): a failed, empty or suspect part keeps its last good
offers and makes no events while the other parts go through; only when every part fails is
the provider failing. monitor only knows these protocols; storage implements them and the
composition root wires them.
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
from monitor.diff import Tracked
from monitor.events import Event
from monitor.offers import Offer
from monitor.parts import PartRuns, PartStatus, settle
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

    async def part_runs(self) -> dict[str, PartRuns]: ...

    async def record_parts(self, statuses: Sequence[PartStatus], at: datetime) -> None: ...

    async def record_failure(self, error: ScrapeError, duration_s: float, at: datetime) -> None:
        """Every part failed: the provider's failure, in this transaction."""


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
    # How each part of the scrape fared (empty when the scrape failed as a whole).
    parts: tuple[PartStatus, ...] = ()


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
        # Per part: held parts keep their last good offers; a part's first good scrape (and so
        # a provider's first snapshot) is a baseline, not news.
        settled = settle(previous, result, await unit.part_runs(), removal_after=removal_after)
        _log_held(result.provider, settled.statuses)
        await unit.record_parts(settled.statuses, result.fetched_at)
        if settled.failing:
            error = settled.error
            assert error is not None  # a failed or empty part always names its error
            await unit.record_failure(error, duration, moment)
            return PipelineOutcome(
                result.provider, False, duration_s=duration, error=error, parts=settled.statuses
            )
        await unit.write_tracked(settled.tracked, result.fetched_at)
        await unit.record_change_points(settled.accepted_offers, result.fetched_at)
        events = settled.events
        candidates = matcher.match(events, moment)
        alerts = await _not_cooling_down(unit, matcher, candidates, moment)
        queued = await unit.enqueue(alerts, moment)
        listed = sum(1 for entry in settled.tracked.values() if entry.missing_runs == 0)
        await unit.mark_healthy(listed, duration, result.fetched_at)
    return PipelineOutcome(
        result.provider,
        True,
        listed,
        len(events),
        queued,
        duration,
        events_by_kind=dict(Counter(event.kind.value for event in events)),
        parts=settled.statuses,
    )


def _log_held(provider: str, statuses: Sequence[PartStatus]) -> None:
    for status in statuses:
        if not status.held:
            continue
        why = status.note if status.error is None else f"{status.error.kind}: {status.error.detail}"
        logger.warning(
            "%s: part %r %s, keeping its %d last good offers: %s",
            provider,
            status.part,
            status.state.value,
            status.kept,
            why,
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
