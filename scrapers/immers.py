"""immers.cloud: GPU flavors and their ₽/hour prices from the public HTML tariff tables.

`GET /gpu/` lists the GPU models; `GET /gpu/<slug>/` has each model's tariff table. The pages
are fetched one after another (a handful of pages every 15 minutes; no need to hurry a small
site), then parsed by the pure functions in scrapers.immers_parse, which also holds the
ASSUMED block: every fact a live check must still confirm (stock markup, header texts, GPU
prefixes, VAT, location).

Failure policy: a model page that the index links but that has no tariff table fails the
whole scrape with LayoutError. Dropping that page would make its offers look sold out.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from monitor.scrape import ScrapeResult
from scrapers.http import Http
from scrapers.immers_parse import (
    ASSUMED,
    PROVIDER,
    PUBLIC_URL,
    Assumed,
    PageOffers,
    merge_pages,
    model_url,
    parse_index,
    parse_model_page,
)

__all__ = ["ASSUMED", "BASE_URL", "ImmersScraper"]

BASE_URL = PUBLIC_URL
logger = logging.getLogger(__name__)


class ImmersScraper:
    name = PROVIDER
    default_interval_s = 900

    def __init__(
        self,
        base_url: str = BASE_URL,
        *,
        public_url: str = PUBLIC_URL,
        assumed: Assumed = ASSUMED,
    ) -> None:
        # base_url is where requests go (a fake site in tests); public_url is what offers link
        # to, so a user always gets a page on the real site.
        self.base_url = base_url.rstrip("/")
        self.public_url = public_url.rstrip("/")
        self.assumed = assumed

    async def fetch(self, http: Http) -> ScrapeResult:
        index = await http.get(self.name, f"{self.base_url}/gpu/")
        slugs = parse_index(index.body, self.assumed)
        pages: list[PageOffers] = []
        for slug in slugs:
            page = await http.get(self.name, model_url(slug, self.base_url))
            pages.append(
                parse_model_page(page.body, slug, public_url=self.public_url, assumed=self.assumed)
            )
        merged = merge_pages(pages)
        for warning in merged.warnings:
            logger.warning("%s: %s", self.name, warning)
        return ScrapeResult(
            provider=self.name,
            offers=merged.offers,
            fetched_at=datetime.now(UTC),
            warnings=merged.warnings,
        )
