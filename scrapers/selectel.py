"""Selectel: dedicated GPU servers (stock per data centre) and cloud GPU Line prices.

Fetching only; the parsing and every assumed fact live in scrapers/selectel_parse.py
(see its ASSUMED block). All four requests go to api.selectel.ru, which answers JSON without
a bot check.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from monitor.scrape import LayoutError, ScrapeError, ScrapeResult
from scrapers.http import Http
from scrapers.selectel_parse import (
    PROVIDER,
    Location,
    Parsed,
    dedupe,
    parse_locations,
    parse_prices_vpc,
    parse_servers,
)

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.selectel.ru"
LOCATION_PATH = "/servers/v2/pub/location"
SERVER_PATH = "/servers/v2/pub/service/server"
SERVERCHIP_PATH = "/servers/v2/pub/service/serverchip"
PRICES_PATH = "/prices/vpc"
PRICES_PARAMS = {"currency": "rub"}


class SelectelScraper:
    name = PROVIDER
    default_interval_s = 600

    def __init__(self, base_url: str = DEFAULT_BASE_URL) -> None:
        self.base_url = base_url.rstrip("/")
        # The last good /pub/location answer: a failed location call then still names the
        # data centres and applies the storefront rule, instead of counting every location.
        self._locations: dict[str, Location] | None = None

    async def fetch(self, http: Http) -> ScrapeResult:
        # The offer lists first: when the API is down the scrape fails on the first call
        # rather than after the optional location call has used up its own timeout.
        servers = await self._json(http, SERVER_PATH)
        chips = await self._json(http, SERVERCHIP_PATH)
        prices = await self._json(http, PRICES_PATH, PRICES_PARAMS)
        report = Parsed()
        locations = await self._current_locations(http, report)

        sources = [
            parse_servers(servers, locations, model="server"),
            parse_servers(chips, locations, model="serverchip"),
        ]
        dedicated_rows = sum(source.gpu_rows for source in sources)
        dedicated_offers = sum(len(source.offers) for source in sources)
        if dedicated_rows and not dedicated_offers:
            report.warn("dedicated: GPU configs listed, but none is on sale in a storefront DC")
        sources.append(parse_prices_vpc(prices))
        if not sources[-1].offers:
            report.warn("cloud: no priced GPU resource in /prices/vpc")

        for source in sources:
            report.warnings.extend(source.warnings)
        offers = dedupe((offer for source in sources for offer in source.offers), report)
        if not offers:
            raise LayoutError(PROVIDER, "no GPU offers: " + "; ".join(report.warnings)[:500])
        return ScrapeResult(PROVIDER, tuple(offers), datetime.now(UTC), tuple(report.warnings))

    async def _json(self, http: Http, path: str, params: Mapping[str, str] | None = None) -> Any:
        response = await http.get(PROVIDER, self.base_url + path, params=params)
        return response.json(PROVIDER)

    async def _current_locations(self, http: Http, report: Parsed) -> dict[str, Location] | None:
        """The storefront locations; on failure the last good ones, or None (count them all)."""
        try:
            self._locations = parse_locations(await self._json(http, LOCATION_PATH))
        except ScrapeError as error:
            if self._locations is not None:
                report.warn(f"/pub/location failed ({error.kind}): using the last good list")
            else:
                report.warn(
                    f"/pub/location failed ({error.kind}): counting stock in every location,"
                    " named by uuid"
                )
        return self._locations
