"""How a provider's scrapes are going, as the bot and the operator see it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from monitor.parts import PartState
from monitor.scrape import WHOLE

# A provider is stale when its last good scrape is older than this many of its intervals.
STALE_AFTER_INTERVALS = 3.0


def is_fresh(
    last_success_at: datetime | None, interval_s: float, now: datetime, *, started_at: datetime
) -> bool:
    """Whether a provider's data counts as fresh at `now`: its last good scrape is at most
    STALE_AFTER_INTERVALS of its scrape intervals old. A provider that has never succeeded is
    fresh for as long after `started_at` (the first scrapes may fail)."""
    since = now - (last_success_at or started_at)
    return since.total_seconds() <= STALE_AFTER_INTERVALS * interval_s


@dataclass(frozen=True)
class PartHealth:
    """One part of a provider's scrape (monitor.parts), as its latest scrape left it."""

    part: str
    state: PartState
    offers: int
    kept: int  # last good offers it keeps while not ok
    consecutive_failures: int
    suspect_runs: int
    error_class: str | None
    error: str | None  # the error's detail, or what a suspect part lost
    last_success_at: datetime | None

    @property
    def ok(self) -> bool:
        return self.state is PartState.OK


@dataclass(frozen=True)
class ProviderHealth:
    provider: str
    last_attempt_at: datetime
    last_success_at: datetime | None
    last_error_at: datetime | None
    last_error_class: str | None
    last_error: str | None
    consecutive_failures: int
    last_duration_s: float
    offer_count: int
    parts: tuple[PartHealth, ...] = ()

    @property
    def failing(self) -> bool:
        """Every part failed (or the scrape as a whole did) the latest time."""
        return self.consecutive_failures > 0

    @property
    def troubled_parts(self) -> tuple[PartHealth, ...]:
        """Named parts that are failed, empty or held as suspect: what health views name
        while the rest of the provider is fine."""
        return tuple(part for part in self.parts if part.part != WHOLE and not part.ok)

    @property
    def partly_failing(self) -> bool:
        return not self.failing and bool(self.troubled_parts)
