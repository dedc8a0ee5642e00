"""A scraper bound to the shared HTTP client: the OfferSource the monitor refreshes."""

from __future__ import annotations

from dataclasses import dataclass

from monitor.scrape import ScrapeResult
from scrapers.base import Scraper
from scrapers.http import Http


@dataclass
class BoundSource:
    scraper: Scraper
    http: Http

    @property
    def name(self) -> str:
        return self.scraper.name

    @property
    def default_interval_s(self) -> int:
        return self.scraper.default_interval_s

    async def fetch(self) -> ScrapeResult:
        return await self.scraper.fetch(self.http)
