"""HOSTKEY (hostkey.ru): GPU presets and GPU stock servers from the public InvAPI.

InvAPI takes form POSTs to `/<resource>.php` with `action=<verb>` and needs no token for the
catalogue. One scrape is:

1. `POST /presets.php  action=info currencies=RUB,EUR`  prices of every preset per location;
2. per location `POST /presets.php action=list location=<LOC>`  the presets it lists (`active`);
3. per location `POST /stocks.php  action=list group=GPU location=<LOC>`  one-off GPU servers.

The requests go one after another: the catalogue is small, the API is a partner's, and a
failure stops the scrape at once (the result must never be a partial "empty stock").
HOSTKEY answers errors with HTTP 200 and `result: "ERROR"`: that is an ApiError, not data.

The assumed facts (locations, statuses, currencies, URLs, VAT) are in one block, `ASSUMED`, at
the top of scrapers/hostkey_parse.py; the parsing itself is there too, as pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from monitor.scrape import LayoutError, ScrapeResult
from scrapers.hostkey_parse import (
    ASSUMED,
    PROVIDER,
    Parsed,
    Rates,
    parse_info,
    parse_presets,
    parse_stocks,
    require_readable,
)
from scrapers.http import Http

BASE_URL = "https://invapi.hostkey.ru"


class HostkeyScraper:
    name = PROVIDER
    default_interval_s = 900  # the catalogue changes slowly; the terraform provider caches it

    def __init__(
        self,
        base_url: str = BASE_URL,
        *,
        eur_rub: float = 100.0,
        usd_rub: float = 90.0,
        locations: Sequence[str] = ASSUMED.locations,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.rates = Rates(eur_rub=eur_rub, usd_rub=usd_rub)
        self.locations = tuple(locations)

    async def fetch(self, http: Http) -> ScrapeResult:
        info = await self._call(http, "presets", action="info", currencies=ASSUMED.info_currencies)
        book = parse_info(info)
        presets, stocks = Parsed(), Parsed()
        for location in self.locations:
            body = await self._call(http, "presets", action="list", location=location)
            presets.extend(parse_presets(body, location, book, self.rates))
            body = await self._call(
                http, "stocks", action="list", group=ASSUMED.stock_group, location=location
            )
            stocks.extend(parse_stocks(body, location, self.rates))
        # Presets are dozens of rows: all of them broken means the layout changed. Stock
        # servers are a handful, so one odd server alone must not fail the whole scrape.
        require_readable(presets, "presets")
        merged = _without_duplicates(presets, stocks)
        require_readable(merged, "presets and stock servers")
        if not merged.offers:
            where = ",".join(self.locations)
            raise LayoutError(PROVIDER, f"no GPU presets or stock servers listed in {where}")
        return ScrapeResult(
            provider=PROVIDER,
            offers=tuple(merged.offers),
            fetched_at=datetime.now(UTC),
            warnings=tuple(merged.warnings),
        )

    async def _call(self, http: Http, resource: str, **form: str) -> Any:
        """One InvAPI call: the decoded body (a LayoutError when it is not JSON)."""
        response = await http.post_form(PROVIDER, f"{self.base_url}/{resource}.php", form)
        return response.json(PROVIDER)


def _without_duplicates(*parts: Parsed) -> Parsed:
    """Offer identity is (provider, sku, location): a second row with the same key is dropped
    with a warning, so one snapshot never holds two prices for one offer."""
    merged, seen = Parsed(), set[tuple[str, str, str]]()
    for part in parts:
        merged.warnings.extend(part.warnings)
        merged.broken += part.broken
        for offer in part.offers:
            if offer.key in seen:
                merged.warn(f"{offer.sku} in {offer.location} listed twice, the first kept")
                continue
            seen.add(offer.key)
            merged.offers.append(offer)
    return merged
