"""`python -m scrapers [--provider NAME] [--json]`: fetch every provider once and print offers.

Exit status 1 when any provider failed; stderr names the error class of each failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from pydantic import ValidationError

from monitor.offers import Offer
from monitor.scrape import ScrapeError, ScrapeResult
from scrapers.config import ScraperSettings
from scrapers.http import Http
from scrapers.records import offer_record
from scrapers.registry import PROVIDERS, create_scrapers


def offer_json(offer: Offer) -> dict[str, Any]:
    return {
        **offer_record(offer),
        "price_source": offer.price.source,
        "price_converted": offer.price.converted,
    }


def table(offers: list[Offer]) -> str:
    header = ("GPU", "count", "₽/h", "₽/month", "stock", "location", "provider", "SKU")
    rows = [header] + [
        (
            offer.gpu,
            str(offer.gpu_count),
            f"{offer.price.rub_per_hour:.2f}",
            f"{offer.price.rub_per_month:.0f}",
            offer.stock.value + (f" ({offer.stock_count})" if offer.stock_count else ""),
            offer.location,
            offer.provider,
            offer.sku,
        )
        for offer in sorted(offers, key=lambda o: (o.gpu, o.price.rub_per_hour))
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows
    )


async def fetch_all(
    settings: ScraperSettings, only: str | None
) -> list[ScrapeResult | ScrapeError]:
    async with Http() as http:
        scrapers = create_scrapers(settings, only)

        async def one(scraper: Any) -> ScrapeResult | ScrapeError:
            try:
                result: ScrapeResult = await scraper.fetch(http)
            except ScrapeError as error:
                return error
            return result

        return list(await asyncio.gather(*(one(scraper) for scraper in scrapers)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scrapers", description=__doc__)
    parser.add_argument("--provider", choices=PROVIDERS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    try:
        settings = ScraperSettings()
    except ValidationError as error:
        first = error.errors()[0]
        print(
            f"scrapers: invalid setting GPURADAR_{str(first['loc'][0]).upper()}: {first['msg']}",
            file=sys.stderr,
        )
        return 2
    outcomes = asyncio.run(fetch_all(settings, args.provider))
    offers = [o for r in outcomes if isinstance(r, ScrapeResult) for o in r.offers]
    failures = [r for r in outcomes if isinstance(r, ScrapeError)]
    for failure in failures:
        print(f"{failure.provider}: {failure.kind}: {failure.detail}", file=sys.stderr)
    if args.json:
        print(json.dumps([offer_json(o) for o in offers], ensure_ascii=False, indent=2))
    else:
        print(table(offers))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
