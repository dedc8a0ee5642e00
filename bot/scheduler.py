"""The refresh schedule: one APScheduler job per provider, started and stopped with the bot."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Protocol

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from monitor.pipeline import Matcher, OfferSource, PipelineStore, refresh


class ScheduledSource(OfferSource, Protocol):
    @property
    def default_interval_s(self) -> int: ...


def job_id(provider: str) -> str:
    return f"refresh:{provider}"


def create_scheduler(
    sources: Sequence[ScheduledSource],
    store: PipelineStore,
    matcher: Matcher,
    *,
    interval_override_s: int | None = None,
) -> AsyncIOScheduler:
    scheduler = AsyncIOScheduler(
        timezone=UTC,
        # A slow scrape never overlaps itself; runs missed while busy collapse into one.
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
    )
    for source in sources:
        interval = interval_override_s or source.default_interval_s
        scheduler.add_job(
            refresh,
            "interval",
            seconds=interval,
            # Spread the providers so they are not all hit at the same second.
            jitter=max(1, interval // 10),
            id=job_id(source.name),
            args=[source, store, matcher],
            next_run_time=datetime.now(UTC),
            replace_existing=True,
        )
    return scheduler
