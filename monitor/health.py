"""How a provider's scrapes are going, as the bot and the operator see it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from monitor.parts import PartState
from monitor.scrape import WHOLE


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
