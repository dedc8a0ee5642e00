"""One refresh of one provider, end to end: one read and one write transaction of its own
(PipelineStore), after the matcher has caught up with the subscription change log (one or two
reads: monitor.matcher):

    fetch -> matcher.prepare (the subscription changes since its last refresh)
          -> load (last good snapshot, part runs, live cooldowns, held chats)
          -> diff, part rules, match, queueing rules (pure, no lock held)
          -> commit (snapshot, change history, part statuses, health, outbox rows: one transaction)

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Protocol

from monitor.alerts import Alert
from monitor.events import Event
from monitor.freshness import DEFAULT_STALE_AFTER, expired_keys
from monitor.parts import PartStatus, settle
from monitor.plan import Failed, Healthy, RefreshPlan, RefreshState
from monitor.queueing import queue
from monitor.scrape import LayoutError, ScrapeError, ScrapeResult

logger = logging.getLogger(__name__)


class OfferSource(Protocol):
    @property
    def name(self) -> str: ...

    async def fetch(self) -> ScrapeResult: ...


class PipelineStore(Protocol):
    """The refresh's storage port: one read, one write transaction."""

    async def load(self, provider: str, now: datetime) -> RefreshState: ...

    async def commit(self, provider: str, plan: RefreshPlan) -> int | None:
        """Write the plan; returns how many outbox rows were new, or None when another
        refresh of the provider committed after `plan.revision` (then nothing is written)."""


class Matcher(Protocol):
    async def prepare(self) -> None:
        """Load what matching needs; matching itself must not touch the database."""

    def match(self, events: Sequence[Event], now: datetime) -> list[Alert]: ...


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
    # Another refresh of the provider committed between this one's load and commit (two
    # replicas leading at once for a moment): nothing of this one was written.
    superseded: bool = False


async def refresh(
    source: OfferSource,
    store: PipelineStore,
    matcher: Matcher,
    *,
    removal_after: int = 2,
    stale_after: timedelta = DEFAULT_STALE_AFTER,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    monotonic: Callable[[], float] = time.monotonic,
) -> PipelineOutcome:
    """One refresh of `source`. `stale_after` (GPURADAR_STALE_AFTER_S) is how long a stale
    offer counts as rentable (monitor.freshness): one that expired and is seen again is news."""
    started = monotonic()
    try:
        result = await source.fetch()
    except ScrapeError as error:
        failure: ScrapeError = error
        logger.warning("%s: scrape failed: %s: %s", source.name, failure.kind, failure.detail)
    except Exception as error:  # a parser bug on provider garbage is the provider's failure
        failure = LayoutError(source.name, f"scraper crashed: {type(error).__name__}: {error}")
        # The same one line, with the traceback the bug needs.
        logger.exception("%s: scrape failed: %s: %s", source.name, failure.kind, failure.detail)
    else:
        return await _apply(
            result, store, matcher, removal_after, stale_after, now(), monotonic() - started
        )
    duration = monotonic() - started
    await store.commit(source.name, RefreshPlan(Failed(failure, duration, now())))
    return PipelineOutcome(source.name, False, duration_s=duration, error=failure)


async def _apply(
    result: ScrapeResult,
    store: PipelineStore,
    matcher: Matcher,
    removal_after: int,
    stale_after: timedelta,
    moment: datetime,
    duration: float,
) -> PipelineOutcome:
    provider = result.provider
    for warning in result.warnings:
        logger.info("%s: %s", provider, warning)
    await matcher.prepare()
    state = await store.load(provider, moment)
    # Per part: held parts keep their last good offers; a part's first good scrape (and so
    # a provider's first snapshot) is a baseline, not news; an offer whose data expired while
    # its part was failing is news again when seen (monitor.freshness).
    expired = expired_keys(state.tracked, state.health, result.fetched_at, stale_after)
    settled = settle(
        state.tracked, result, state.part_runs, removal_after=removal_after, expired=expired
    )
    _log_held(provider, settled.statuses)
    if settled.failing:
        error = settled.error
        assert error is not None  # a failed or empty part always names its error
        plan = RefreshPlan(
            Failed(error, duration, moment),
            revision=state.revision,
            fetched_at=result.fetched_at,
            parts=settled.statuses,
        )
        if await store.commit(provider, plan) is None:
            return _superseded(provider, duration)
        return PipelineOutcome(
            provider, False, duration_s=duration, error=error, parts=settled.statuses
        )
    events = settled.events
    queued = queue(
        matcher.match(events, moment),
        now=moment,
        last_alerts=state.last_alerts,
        holds=state.holds,
    )
    listed = sum(1 for entry in settled.tracked.values() if entry.missing_runs == 0)
    plan = RefreshPlan(
        Healthy(listed, duration, result.fetched_at),
        revision=state.revision,
        fetched_at=result.fetched_at,
        parts=settled.statuses,
        tracked=settled.tracked,
        offers=settled.accepted_offers,
        queued=queued,
        queued_at=moment,
    )
    written = await store.commit(provider, plan)
    if written is None:
        return _superseded(provider, duration)
    return PipelineOutcome(
        provider,
        True,
        listed,
        len(events),
        written,
        duration,
        events_by_kind=dict(Counter(event.kind.value for event in events)),
        parts=settled.statuses,
    )


def _superseded(provider: str, duration: float) -> PipelineOutcome:
    logger.warning(
        "%s: another refresh of this provider committed first; this one is dropped", provider
    )
    return PipelineOutcome(provider, True, duration_s=duration, superseded=True)


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
