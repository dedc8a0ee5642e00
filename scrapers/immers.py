"""immers.cloud: GPU flavors and their ₽/hour prices from the public HTML tariff tables.

`GET /gpu/` lists the GPU models; `GET /gpu/<slug>/` has each model's tariff table. The pages
are fetched one after another (a handful of pages every 15 minutes; no need to hurry a small
site) and parsed in a worker thread by the pure functions in scrapers.immers_parse, which also
holds the ASSUMED block: every fact a live check must still confirm (stock markup, header
texts, GPU hints, VAT, location, the page cap).

Parts: each model page is one (named by its slug). A page that fails, or has no tariff table,
keeps its last good offers while the other pages go on (monitor.parts); the index failing fails
the whole scrape, since without it no part is known.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial

from monitor.providers import IMMERS
from monitor.scrape import NetworkError, PartOutcome, ScrapeError, ScrapeResult, Skip
from scrapers.base import guarded, unique_across_parts
from scrapers.config import ScraperSettings, base_url_of
from scrapers.http import Http, Response
from scrapers.immers_parse import (
    ASSUMED,
    PROVIDER,
    Assumed,
    PageOffers,
    model_url,
    parse_index,
    parse_model_page,
)
from scrapers.report import log_run

__all__ = ["ASSUMED", "ImmersScraper"]

# The markup a real answer has: a bot-check page with a captcha word lacks it.
INDEX_MARKUP = re.compile(rb"/gpu/[a-z0-9]", re.IGNORECASE)
TABLE_MARKUP = re.compile(rb"<table\b", re.IGNORECASE)
Answer = Response | ScrapeError


class ImmersScraper:
    name = PROVIDER
    default_interval_s = IMMERS.interval_s

    def __init__(
        self,
        http: Http,
        base_url: str = IMMERS.base_url,
        *,
        public_url: str = IMMERS.public_url,
        assumed: Assumed = ASSUMED,
    ) -> None:
        # base_url is where requests go (a fake site in tests); public_url is what offers link
        # to, so a user always gets a page on the real site.
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.public_url = public_url.rstrip("/")
        self.assumed = assumed

    @classmethod
    def from_settings(cls, http: Http, settings: ScraperSettings) -> ImmersScraper:
        return cls(http, base_url_of(settings, IMMERS))

    async def fetch(self) -> ScrapeResult:
        index = await self.http.get(self.name, f"{self.base_url}/gpu/", expect=INDEX_MARKUP)
        slugs = await asyncio.to_thread(parse_index, index.body, self.assumed)
        pages: dict[str, Answer] = {}
        down: ScrapeError | None = None
        for slug in slugs:
            if down is not None:  # the site stopped answering: the rest fail with it
                pages[slug] = down
                continue
            try:
                url = model_url(slug, self.base_url)
                pages[slug] = await self.http.get(self.name, url, expect=TABLE_MARKUP)
            except ScrapeError as error:
                pages[slug] = error
                down = error if isinstance(error, NetworkError) else None
        result = await asyncio.to_thread(self.parse, pages)
        log_run(result)
        return result

    def parse(self, pages: Mapping[str, Answer]) -> ScrapeResult:
        """One part per model page; a flavor listed on two pages is kept on the first."""
        parts: dict[str, PartOutcome] = {}
        skips: list[Skip] = []
        warnings: list[str] = []
        for slug, answer in pages.items():
            if isinstance(answer, ScrapeError):
                parts[slug] = answer
                continue
            parse = partial(self._page, answer, slug)
            parts[slug] = guarded(self.name, slug, parse, skips, warnings)
        unique_across_parts(parts, skips)
        return ScrapeResult.from_parts(
            self.name, parts, datetime.now(UTC), tuple(warnings), tuple(skips)
        )

    def _page(self, answer: Response, slug: str) -> PageOffers:
        return parse_model_page(answer.body, slug, public_url=self.public_url, assumed=self.assumed)
