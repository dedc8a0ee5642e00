"""What a scrape returns: offers, or a typed error. A failure is never an empty list."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from monitor.offers import Offer


class ScrapeError(Exception):
    """A provider could not be read. The class name is what operators see."""

    def __init__(self, provider: str, detail: str) -> None:
        super().__init__(f"{provider}: {detail}")
        self.provider = provider
        self.detail = detail

    @property
    def kind(self) -> str:
        return type(self).__name__


class NetworkError(ScrapeError):
    """Connection refused, DNS, timeout, reset: nothing usable came back."""


class HttpStatusError(ScrapeError):
    """The server answered with a non-2xx status (after retries where retrying helps)."""

    def __init__(self, provider: str, detail: str, status: int) -> None:
        super().__init__(provider, detail)
        self.status = status


class AntiBotError(ScrapeError):
    """A captcha or bot-check page came back instead of the data."""


class ApiError(ScrapeError):
    """The API reported an error inside a 2xx body (HOSTKEY's result: ERROR)."""


class LayoutError(ScrapeError):
    """The data no longer has the shape we parse: no GPU offers, or required fields gone."""


@dataclass(frozen=True)
class ScrapeResult:
    provider: str
    offers: tuple[Offer, ...]
    fetched_at: datetime
    warnings: tuple[str, ...] = field(default_factory=tuple)
