"""HOSTKEY (hostkey.ru): GPU presets and GPU stock servers from the public InvAPI.

InvAPI takes form POSTs to `/<resource>.php` with `action=<verb>` and needs no token for the
catalogue. One scrape is:

1. `POST /presets.php  action=info currencies=RUB,EUR`  prices of every preset per location,
   and so which locations sell GPUs at all;
2. per such location `POST /presets.php action=list location=<LOC>`  the presets it lists;
3. per location `POST /stocks.php  action=list group=GPU location=<LOC>`  one-off GPU servers.

Parts: one per GPU location (its preset list) and "stock" (every location's stock servers).
A part that fails keeps its last good offers (monitor.parts). The requests go one after
another (the catalogue is small, the API is a partner's); when the host stops answering
(a network error, a 5xx after retries) the calls left are not made and their parts fail with
the same error. HOSTKEY answers errors with HTTP 200 and an error body: an ApiError, not data.
Bodies are parsed in a worker thread.

The assumed facts (locations, statuses, currencies, URLs, VAT) are in one block, `ASSUMED`, at
the top of scrapers/hostkey_parse.py; the parsing itself is there too, as pure functions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import partial

from monitor.providers import HOSTKEY
from monitor.scrape import (
    HttpStatusError,
    LayoutError,
    NetworkError,
    PartOutcome,
    ScrapeError,
    ScrapeResult,
    Skip,
)
from scrapers.base import decode_json, guarded, unique_across_parts
from scrapers.config import ScraperSettings, base_url_of
from scrapers.hostkey_parse import (
    ASSUMED,
    PROVIDER,
    STOCK,
    Parsed,
    PriceBook,
    Rates,
    gpu_locations,
    parse_info,
    parse_presets,
    parse_stocks,
    require_readable,
)
from scrapers.http import Http, Response
from scrapers.report import log_run

Answer = Response | ScrapeError


class HostkeyScraper:
    name = PROVIDER
    default_interval_s = HOSTKEY.interval_s

    def __init__(
        self,
        http: Http,
        base_url: str = HOSTKEY.base_url,
        *,
        eur_rub: float = 100.0,
        usd_rub: float = 90.0,
        locations: Sequence[str] = ASSUMED.locations,
    ) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")
        self.rates = Rates(eur_rub=eur_rub, usd_rub=usd_rub)
        self.locations = tuple(locations)
        # The GPU locations of the last good info answer: when info fails, their parts fail
        # by name (and keep their offers) instead of vanishing from the scrape.
        self._gpu_locations: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, http: Http, settings: ScraperSettings) -> HostkeyScraper:
        return cls(
            http, base_url_of(settings, HOSTKEY), eur_rub=settings.eur_rub, usd_rub=settings.usd_rub
        )

    async def fetch(self) -> ScrapeResult:
        calls = _Calls(self)
        info = await calls.post("presets", action="info", currencies=ASSUMED.info_currencies)
        book = await asyncio.to_thread(_book, info)
        if isinstance(book, ScrapeError):
            where = self._gpu_locations or ("presets",)
            lists: dict[str, Answer] = dict.fromkeys(where, book)
        else:
            found = gpu_locations(book)
            self._gpu_locations = tuple(loc for loc in self.locations if loc in found)
            lists = {
                loc: await calls.post("presets", action="list", location=loc)
                for loc in self._gpu_locations
            }
        stocks = {
            loc: await calls.post("stocks", action="list", group=ASSUMED.stock_group, location=loc)
            for loc in self.locations
        }
        result = await asyncio.to_thread(self.parse, book, lists, stocks)
        log_run(result)
        return result

    def parse(
        self,
        book: PriceBook | ScrapeError,
        lists: Mapping[str, Answer],
        stocks: Mapping[str, Answer],
    ) -> ScrapeResult:
        """The scrape's parts from the answers: each GPU location's presets, then the stock."""
        parts: dict[str, PartOutcome] = {}
        skips: list[Skip] = []
        warnings: list[str] = []
        for location, answer in lists.items():
            if isinstance(answer, ScrapeError):
                parts[location] = answer
                continue
            if isinstance(book, ScrapeError):
                parts[location] = book
                continue
            parse = partial(_presets, answer, location, book, self.rates)
            parts[location] = guarded(PROVIDER, location, parse, skips, warnings)
        failed = next((a for a in stocks.values() if isinstance(a, ScrapeError)), None)
        if failed is not None:
            parts[STOCK] = failed
        else:
            responses = {loc: a for loc, a in stocks.items() if isinstance(a, Response)}
            parse_stock = partial(_stocks, responses, self.rates)
            parts[STOCK] = guarded(PROVIDER, STOCK, parse_stock, skips, warnings)
        unique_across_parts(parts, skips)
        return ScrapeResult.from_parts(
            PROVIDER, parts, datetime.now(UTC), tuple(warnings), tuple(skips)
        )


class _Calls:
    """InvAPI calls one after another; once the host is down, the rest are not made."""

    def __init__(self, scraper: HostkeyScraper) -> None:
        self._base = scraper.base_url
        self._http = scraper.http
        self.down: ScrapeError | None = None

    async def post(self, resource: str, **form: str) -> Answer:
        if self.down is not None:
            return self.down
        try:
            return await self._http.post_form(PROVIDER, f"{self._base}/{resource}.php", form)
        except ScrapeError as error:
            if isinstance(error, NetworkError) or (
                isinstance(error, HttpStatusError) and (error.status >= 500 or error.status == 429)
            ):
                self.down = error
            return error


def _book(info: Answer) -> PriceBook | ScrapeError:
    """The info answer as a price book, or why it is none (then no preset part can parse)."""
    try:
        if isinstance(info, ScrapeError):
            raise info
        book = parse_info(decode_json(PROVIDER, info))
        if not gpu_locations(book):
            raise LayoutError(PROVIDER, "presets info: no GPU preset priced or listed anywhere")
    except ScrapeError as error:
        return error
    return book


def _presets(answer: Response, location: str, book: PriceBook, rates: Rates) -> Parsed:
    parsed = parse_presets(decode_json(PROVIDER, answer), location, book, rates)
    require_readable(parsed, f"presets {location}")
    return _without_duplicates(parsed)


def _stocks(answers: Mapping[str, Response], rates: Rates) -> Parsed:
    merged = Parsed(STOCK)
    for location, answer in answers.items():
        merged.extend(parse_stocks(decode_json(PROVIDER, answer), location, rates))
    require_readable(merged, "stock servers")
    return _without_duplicates(merged)


def _without_duplicates(parsed: Parsed) -> Parsed:
    """Offer identity is (provider, sku, location): a second row with the same key is dropped
    with a warning, so one snapshot never holds two prices for one offer."""
    unique = Parsed(parsed.part, [], parsed.warnings, parsed.skips, parsed.messages)
    unique.broken = parsed.broken
    seen = set[tuple[str, str, str]]()
    for offer in parsed.offers:
        if offer.key in seen:
            unique.drop(
                f"{offer.sku} in {offer.location} listed twice, the first kept",
                reason="listed twice (the first kept)",
                item=f"{offer.sku} @ {offer.location}",
            )
            continue
        seen.add(offer.key)
        unique.offers.append(offer)
    return unique
