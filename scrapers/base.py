"""What every provider module provides, and the shared conversions."""

from __future__ import annotations

from typing import Protocol

from monitor.scrape import ScrapeResult
from scrapers.http import Http


class Scraper(Protocol):
    name: str
    default_interval_s: int

    async def fetch(self, http: Http) -> ScrapeResult: ...
