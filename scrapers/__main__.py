"""`python -m scrapers`: fetch every provider once and print its offers.

    python -m scrapers [--provider NAME] [--json]     the live sites
    python -m scrapers --record DIR                   the live sites, every answer saved in DIR
    python -m scrapers --replay DIR [--json]          a recording, served on the real paths
    python -m scrapers --replay DIR --check           per provider and part: what parsed, what
                                                      was skipped and why

Exit status 1 when any provider or part failed; stderr names the error class of each failure.
Exit status 2 for a bad setting or a folder that is not a recording.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from monitor.offers import Offer
from monitor.providers import PROVIDERS
from monitor.scrape import ScrapeError, ScrapeResult
from scrapers.base import Scraper
from scrapers.config import ScraperSettings, base_url_of
from scrapers.http import Http
from scrapers.recording import Recorder, RecordingError, ReplayServer
from scrapers.records import offer_record
from scrapers.registry import create_scrapers
from scrapers.report import check_report

Outcome = ScrapeResult | ScrapeError


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


async def fetch_all(scrapers: list[Scraper]) -> list[Outcome]:
    async def one(scraper: Scraper) -> Outcome:
        try:
            return await scraper.fetch()
        except ScrapeError as error:
            return error

    return list(await asyncio.gather(*(one(scraper) for scraper in scrapers)))


async def live(
    settings: ScraperSettings, only: str | None, recorder: Recorder | None = None
) -> list[Outcome]:
    async with Http(observe=recorder) as http:
        return await fetch_all(create_scrapers(settings, http, only))


async def replay(settings: ScraperSettings, only: str | None, folder: Path) -> list[Outcome]:
    async with ReplayServer(folder) as server:
        pointed = settings.model_copy(
            update={
                PROVIDERS.get(name).url_setting: url
                for name, url in server.urls.items()
                if name in PROVIDERS
            }
        )
        async with Http() as http:
            scrapers = [s for s in create_scrapers(pointed, http, only) if s.name in server.urls]
            return await fetch_all(scrapers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scrapers",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--provider", choices=PROVIDERS.ids)
    parser.add_argument("--json", action="store_true")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--record", type=Path, metavar="DIR")
    source.add_argument("--replay", type=Path, metavar="DIR")
    parser.add_argument("--check", action="store_true", help="with --replay: the skip report")
    args = parser.parse_args(argv)
    if args.check and args.replay is None:
        parser.error("--check reads a recording: use it with --replay DIR")
    try:
        settings = ScraperSettings()
    except ValidationError as error:
        first = error.errors()[0]
        print(
            f"scrapers: invalid setting GPURADAR_{str(first['loc'][0]).upper()}: {first['msg']}",
            file=sys.stderr,
        )
        return 2
    try:
        if args.replay is not None:
            outcomes = asyncio.run(replay(settings, args.provider, args.replay))
        elif args.record is not None:
            bases = {
                p.id: base_url_of(settings, p) for p in PROVIDERS if args.provider in (None, p.id)
            }
            recorder = Recorder(bases)
            outcomes = asyncio.run(live(settings, args.provider, recorder))
            written = recorder.save(args.record)
            print(f"recorded {len(recorder.exchanges)} answers: {written}", file=sys.stderr)
        else:
            outcomes = asyncio.run(live(settings, args.provider))
    except RecordingError as error:
        print(f"scrapers: {error}", file=sys.stderr)
        return 2
    return report(outcomes, as_json=args.json, check=args.check)


def report(outcomes: list[Outcome], *, as_json: bool, check: bool) -> int:
    failed = False
    for outcome in outcomes:
        if isinstance(outcome, ScrapeError):
            failed = True
            print(f"{outcome.provider}: {outcome.kind}: {outcome.detail}", file=sys.stderr)
            continue
        for part, error in outcome.failures.items():
            failed = True
            print(f"{outcome.provider}: part {part}: {error.kind}: {error.detail}", file=sys.stderr)
        for part, parsed in outcome.parts.items():
            if parsed == ():
                failed = True
                print(f"{outcome.provider}: part {part}: empty, no GPU offers", file=sys.stderr)
    if check:
        for outcome in outcomes:
            print("\n".join(check_report(outcome)))
        return 1 if failed else 0
    offers = [o for r in outcomes if isinstance(r, ScrapeResult) for o in r.offers]
    if as_json:
        print(json.dumps([offer_json(o) for o in offers], ensure_ascii=False, indent=2))
    else:
        print(table(offers))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
