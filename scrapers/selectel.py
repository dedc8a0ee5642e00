"""Selectel: dedicated GPU servers (stock per data centre), Chipcore servers and cloud GPU
prices, as three parts that fail on their own.

Fetching only; the parsing and every assumed fact live in scrapers/selectel_parse.py (see its
ASSUMED block). All four requests go to api.selectel.ru at once, which answers JSON without a
bot check; the bodies are parsed in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial

from monitor.providers import SELECTEL
from monitor.scrape import PartOutcome, ScrapeError, ScrapeResult, Skip
from scrapers.base import Parsed, decode_json, guarded, unique_across_parts
from scrapers.config import ScraperSettings, base_url_of
from scrapers.http import Http, Response
from scrapers.report import log_run
from scrapers.selectel_parse import (
    CLOUD,
    PROVIDER,
    SERVER,
    SERVERCHIP,
    Location,
    parse_locations,
    parse_prices_vpc,
    parse_servers,
)

LOCATION_PATH = "/servers/v2/pub/location"
SERVER_PATH = "/servers/v2/pub/service/server"
SERVERCHIP_PATH = "/servers/v2/pub/service/serverchip"
PRICES_PATH = "/prices/vpc"
PRICES_PARAMS = {"currency": "rub"}

Answer = Response | ScrapeError


class SelectelScraper:
    name = PROVIDER
    default_interval_s = SELECTEL.interval_s

    def __init__(self, http: Http, base_url: str = SELECTEL.base_url) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        # The last good /pub/location answer: when the location call fails, the dedicated
        # parts still know the data centres (they change a few times a year).
        self._locations: dict[str, Location] | None = None

    @classmethod
    def from_settings(cls, http: Http, settings: ScraperSettings) -> SelectelScraper:
        return cls(http, base_url_of(settings, SELECTEL))

    async def fetch(self) -> ScrapeResult:
        # All at once: a part whose endpoint hangs costs its own timeout, not the others'.
        location, server, chip, prices = await asyncio.gather(
            self._get(LOCATION_PATH),
            self._get(SERVER_PATH),
            self._get(SERVERCHIP_PATH),
            self._get(PRICES_PATH, PRICES_PARAMS),
        )
        result = await asyncio.to_thread(self.parse, location, server, chip, prices)
        log_run(result)
        return result

    def parse(self, location: Answer, server: Answer, chip: Answer, prices: Answer) -> ScrapeResult:
        """The three parts from the four answers (each a response or the request's error)."""
        warnings: list[str] = []
        locations = self._current_locations(location, warnings)
        parts: dict[str, PartOutcome] = {}
        skips: list[Skip] = []
        for part, answer in ((SERVER, server), (SERVERCHIP, chip)):
            if isinstance(answer, ScrapeError):
                parts[part] = answer
            elif isinstance(locations, ScrapeError):
                parts[part] = locations
            else:
                parse = partial(_servers, answer, locations, part)
                parts[part] = guarded(PROVIDER, part, parse, skips, warnings)
        if isinstance(prices, ScrapeError):
            parts[CLOUD] = prices
        else:
            parse_cloud = partial(_prices, prices)
            parts[CLOUD] = guarded(PROVIDER, CLOUD, parse_cloud, skips, warnings)
        unique_across_parts(parts, skips)
        return ScrapeResult.from_parts(
            PROVIDER, parts, datetime.now(UTC), tuple(warnings), tuple(skips)
        )

    async def _get(self, path: str, params: Mapping[str, str] | None = None) -> Answer:
        try:
            return await self.http.get(PROVIDER, self.base_url + path, params=params)
        except ScrapeError as error:
            return error

    def _current_locations(
        self, answer: Answer, warnings: list[str]
    ) -> Mapping[str, Location] | ScrapeError:
        """The storefront locations; on failure the last good ones, else the failure (the
        dedicated parts then fail with it: counting every data centre would show foreign and
        admin-only stock as the storefront's)."""
        try:
            if isinstance(answer, ScrapeError):
                raise answer
            self._locations = parse_locations(decode_json(PROVIDER, answer))
        except ScrapeError as error:
            if self._locations is None:
                return (
                    type(error)(PROVIDER, f"/pub/location: {error.detail}")
                    if not hasattr(error, "status")
                    else error
                )
            warnings.append(f"/pub/location failed ({error.kind}): using the last good list")
        return self._locations


def _servers(answer: Response, locations: Mapping[str, Location], part: str) -> Parsed:
    return parse_servers(decode_json(PROVIDER, answer), locations, part=part)


def _prices(answer: Response) -> Parsed:
    return parse_prices_vpc(decode_json(PROVIDER, answer))
