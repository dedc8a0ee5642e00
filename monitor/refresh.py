"""One refresh of one provider: fetch, then store the snapshot or record the failure.

monitor depends only on these protocols; the composition root wires real scrapers and the
SQLite store in, and tests wire fakes in the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from monitor.scrape import LayoutError, ScrapeError, ScrapeResult

logger = logging.getLogger(__name__)


class OfferSource(Protocol):
    @property
    def name(self) -> str: ...

    async def fetch(self) -> ScrapeResult: ...


class SnapshotStore(Protocol):
    async def save_snapshot(self, result: ScrapeResult, duration_s: float) -> None: ...

    async def record_failure(
        self, provider: str, error: ScrapeError, at: datetime, duration_s: float
    ) -> None: ...


@dataclass(frozen=True)
class RefreshOutcome:
    provider: str
    ok: bool
    offers: int
    duration_s: float
    error: ScrapeError | None = None


async def refresh_provider(
    source: OfferSource,
    store: SnapshotStore,
    *,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    monotonic: Callable[[], float] = time.monotonic,
) -> RefreshOutcome:
    started = monotonic()
    try:
        result = await source.fetch()
    except ScrapeError as error:
        failure: ScrapeError = error
    except Exception as error:  # a parser bug on provider garbage is still the provider's
        logger.exception("%s: scraper crashed", source.name)
        failure = LayoutError(source.name, f"scraper crashed: {type(error).__name__}: {error}")
    else:
        duration = monotonic() - started
        await store.save_snapshot(result, duration)
        for warning in result.warnings:
            logger.info("%s: %s", source.name, warning)
        return RefreshOutcome(source.name, True, len(result.offers), duration)
    duration = monotonic() - started
    logger.warning("%s: scrape failed: %s: %s", source.name, failure.kind, failure.detail)
    # The last good snapshot stays in place: a failure is not empty stock.
    await store.record_failure(source.name, failure, now(), duration)
    return RefreshOutcome(source.name, False, 0, duration, failure)
