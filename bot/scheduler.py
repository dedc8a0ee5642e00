"""The refresh schedule: one APScheduler job per provider, started and stopped with the bot."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, JobExecutionEvent
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from monitor.freshness import DEFAULT_STALE_AFTER
from monitor.pipeline import Matcher, OfferSource, PipelineOutcome, PipelineStore, refresh

logger = logging.getLogger(__name__)

OutcomeCallback = Callable[[PipelineOutcome], Awaitable[None] | None]


class ScheduledSource(OfferSource, Protocol):
    @property
    def default_interval_s(self) -> int: ...


def job_id(provider: str) -> str:
    return f"refresh:{provider}"


async def refresh_job(
    source: OfferSource,
    store: PipelineStore,
    matcher: Matcher,
    on_outcome: OutcomeCallback | None = None,
    database_errors: tuple[type[BaseException], ...] = (),
    leading: Callable[[], bool] | None = None,
    stale_after: timedelta = DEFAULT_STALE_AFTER,
) -> PipelineOutcome | None:
    """One scheduled refresh; `on_outcome` (metrics) sees every outcome, good or failed.

    None, without fetching anything, when `leading` says this replica's leader lease ran
    out: a leader thawed from a freeze finds its missed run due at once, before its lease
    loop has stepped it down, and its commit would be refused anyway (storage.refresh).

    None when the scheduler's shutdown cancelled it: the last good snapshot stays, and that
    is no error (APScheduler would log anything a job raises with a traceback).

    None, with one line, when the database failed under it (`database_errors`: the server
    restarting or gone): nothing of it was stored, so the next run finds the same changes
    and derives the same alerts; a traceback per provider per outage would say no more.
    """
    if leading is not None and not leading():
        logger.info("%s: refresh skipped: this replica's leader lease ran out", source.name)
        return None
    try:
        outcome = await refresh(source, store, matcher, stale_after=stale_after)
    except asyncio.CancelledError:
        logger.info("%s: refresh stopped by shutdown", source.name)
        return None
    except database_errors as error:
        logger.warning(
            "%s: refresh not stored, the database failed (%s: %s); the next run tries again",
            source.name,
            type(error).__name__,
            str(error).strip().splitlines()[0] if str(error).strip() else "",
        )
        return None
    # A superseded refresh wrote nothing; the replica whose refresh committed reports that one.
    if on_outcome is not None and not outcome.superseded:
        try:
            pending = on_outcome(outcome)
            if pending is not None:
                await pending
        except Exception:  # observing a refresh must never fail it
            logger.exception("%s: outcome callback failed", source.name)
    return outcome


def outcome_hooks(*hooks: OutcomeCallback) -> OutcomeCallback:
    """Several observers of each refresh (metrics, admin alarms) as one callback."""

    async def all_of(outcome: PipelineOutcome) -> None:
        for hook in hooks:
            pending = hook(outcome)
            if pending is not None:
                await pending

    return all_of


def create_scheduler(
    sources: Sequence[ScheduledSource],
    store: PipelineStore,
    matcher: Matcher,
    *,
    interval_override_s: int | None = None,
    on_outcome: OutcomeCallback | None = None,
    database_errors: tuple[type[BaseException], ...] = (),
    leading: Callable[[], bool] | None = None,
    stale_after: timedelta = DEFAULT_STALE_AFTER,
) -> AsyncIOScheduler:
    scheduler = AsyncIOScheduler(
        timezone=UTC,
        # A slow scrape never overlaps itself; runs missed while busy collapse into one.
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
    )
    for source in sources:
        interval = interval_override_s or source.default_interval_s
        scheduler.add_job(
            refresh_job,
            "interval",
            seconds=interval,
            # Spread the providers so they are not all hit at the same second.
            jitter=max(1, interval // 10),
            id=job_id(source.name),
            args=[source, store, matcher, on_outcome, database_errors, leading, stale_after],
            next_run_time=datetime.now(UTC),
            replace_existing=True,
        )
    return scheduler


def after_first_round(
    scheduler: AsyncIOScheduler, providers: Sequence[str], done: Callable[[], None]
) -> None:
    """Call `done` once each provider's refresh has run once, well or not (the first of them
    loads the match index, the heaviest of start-up's work)."""
    waiting = {job_id(provider) for provider in providers}

    def finished(event: JobExecutionEvent) -> None:
        waiting.discard(event.job_id)
        if not waiting:
            scheduler.remove_listener(finished)
            done()

    scheduler.add_listener(finished, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
