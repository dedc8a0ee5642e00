"""The refresh schedule: one job per provider with the right trigger, running the refresh."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.scheduler import create_scheduler, job_id, refresh_job
from monitor.matcher import LiveMatcher
from monitor.pipeline import PipelineOutcome
from monitor.plan import RefreshPlan
from monitor.scrape import ScrapeResult
from storage import Store
from tests.factories import make_offer
from tests.polling import eventually
from tests.store_helpers import current_offers


class Source:
    def __init__(self, name: str, interval: int) -> None:
        self.name = name
        self.default_interval_s = interval
        self.calls = 0

    async def fetch(self) -> ScrapeResult:
        self.calls += 1
        return ScrapeResult(
            self.name, (make_offer("a", 10.0, provider=self.name),), datetime.now(UTC)
        )


async def test_one_job_per_provider_with_interval_jitter_and_no_overlap(tmp_path: Path):
    store = await Store.open(tmp_path / "s.sqlite3")
    sources = [Source("selectel", 600), Source("hostkey", 900)]
    scheduler = create_scheduler(sources, store, LiveMatcher(store))
    scheduler.start(paused=True)
    try:
        for source in sources:
            job = scheduler.get_job(job_id(source.name))
            assert job is not None
            assert job.trigger.interval == timedelta(seconds=source.default_interval_s)
            assert job.trigger.jitter == source.default_interval_s // 10
            assert job.max_instances == 1
            assert job.coalesce
            # The first refresh is due immediately, not one interval after start-up.
            assert job.next_run_time <= datetime.now(UTC) + timedelta(seconds=1)
    finally:
        scheduler.shutdown(wait=False)
        await store.close()


async def test_override_applies_to_every_provider_and_jobs_refresh_the_store(tmp_path: Path):
    store = await Store.open(tmp_path / "s.sqlite3")
    sources = [Source("selectel", 600), Source("immers", 900)]
    scheduler = create_scheduler(sources, store, LiveMatcher(store), interval_override_s=30)
    scheduler.start()
    try:
        for source in sources:
            job = scheduler.get_job(job_id(source.name))
            assert job.trigger.interval == timedelta(seconds=30)

        async def refreshed() -> bool:
            return {h.provider for h in await store.provider_health()} == {"selectel", "immers"}

        await eventually(refreshed)
        assert all(source.calls == 1 for source in sources)
    finally:
        scheduler.shutdown(wait=False)
        await asyncio.sleep(0)  # let the scheduler's shutdown callback run before closing
        await store.close()


async def test_a_superseded_refresh_is_not_reported(tmp_path: Path):
    """Another replica's refresh committed first: that replica reports it, this one stays
    quiet (its outcome counts no offers, which metrics would show as an empty provider)."""

    class Overtaken(Store):
        async def commit(self, provider: str, plan: RefreshPlan) -> int | None:
            return None

    store = await Overtaken.open(tmp_path / "s.sqlite3")
    seen: list[PipelineOutcome] = []
    try:
        outcome = await refresh_job(Source("acme", 600), store, LiveMatcher(store), seen.append)
        assert outcome is not None
        assert outcome.superseded
        assert seen == []
        assert await current_offers(store) == []
        # The same refresh that commits is reported.
        committed = await refresh_job(
            Source("acme", 600), Store(store._db), LiveMatcher(store), seen.append
        )
        assert seen == [committed]
    finally:
        await store.close()


async def test_a_refresh_the_database_failed_under_is_one_line_and_stores_nothing(
    tmp_path: Path, caplog
):
    """PostgreSQL restarting or gone mid refresh: a warning line, no traceback, no outcome
    (nothing was stored, so the next run derives the same alerts)."""

    class Gone(Store):
        async def commit(self, provider: str, plan: RefreshPlan) -> int | None:
            raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")

    store = await Gone.open(tmp_path / "s.sqlite3")
    seen: list[PipelineOutcome] = []
    try:
        outcome = await refresh_job(
            Source("acme", 600),
            store,
            LiveMatcher(store),
            seen.append,
            database_errors=(OSError,),
        )
        assert outcome is None
        assert seen == []
        assert await current_offers(store) == []
        [record] = [r for r in caplog.records if "refresh not stored" in r.getMessage()]
        assert record.exc_info is None
        assert "ConnectionRefusedError" in record.getMessage()
    finally:
        await store.close()


async def test_a_replica_past_its_leader_lease_fetches_nothing(tmp_path: Path, caplog):
    """A leader thawed from a freeze finds its missed run due at once: with its lease gone
    it neither scrapes the provider nor reports an outcome; with it held, it refreshes."""
    caplog.set_level(logging.INFO, logger="bot.scheduler")
    store = await Store.open(tmp_path / "s.sqlite3")
    source, seen, held = Source("acme", 600), list[PipelineOutcome](), [False]
    try:
        skipped = await refresh_job(
            source, store, LiveMatcher(store), seen.append, leading=lambda: held[0]
        )
        assert skipped is None
        assert source.calls == 0
        assert seen == []
        assert any("lease ran out" in r.getMessage() for r in caplog.records)
        held[0] = True
        done = await refresh_job(
            source, store, LiveMatcher(store), seen.append, leading=lambda: held[0]
        )
        assert done is not None
        assert source.calls == 1
        assert len(seen) == 1
    finally:
        await store.close()
