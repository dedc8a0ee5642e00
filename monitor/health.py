"""How a provider's scrapes are going, as the bot and the operator see it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


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

    @property
    def failing(self) -> bool:
        return self.consecutive_failures > 0
