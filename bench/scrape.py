"""Scraper costs: parse time per provider and fixture set, a full refresh's wall time against
the fake sites on 127.0.0.1, and the process's peak RSS.

"parse" runs a provider's whole fetch against an in-process stand-in for the HTTP client that
returns the fixture bytes directly, so it measures parsing and normalising alone. "refresh"
fetches all three providers concurrently over real HTTP from the fake sites; its baseline is
the same requests with no parsing at all, measured in the same run.

    .venv/bin/python -m bench.scrape [--repeat 20]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import resource
import statistics
import time
from typing import Any, cast
from urllib.parse import urlsplit

from monitor.scrape import ScrapeResult
from scrapers.config import ScraperSettings
from scrapers.http import Http, Response
from scrapers.registry import create_scrapers
from tests.fakes.providers import FakeProviders, Mode, SiteRequest, all_sites


class InProcessHttp:
    """Answers from the fake sites' route handlers without sockets."""

    def __init__(self, mode: Mode) -> None:
        self.routes = dict(all_sites())
        self.mode = mode

    def _answer(
        self, provider: str, method: str, url: str, query: dict[str, str], form: dict[str, str]
    ) -> Response:
        path = urlsplit(url).path
        handler = self.routes[provider][(method, path)]
        site = handler(SiteRequest(method, path, query, form), self.mode)
        return Response(url, site.status, {"Content-Type": site.content_type}, site.body)

    async def get(self, provider: str, url: str, *, params: Any = None) -> Response:
        return self._answer(provider, "GET", url, dict(params or {}), {})

    async def post_form(self, provider: str, url: str, data: Any) -> Response:
        return self._answer(provider, "POST", url, {}, dict(data))


def settings_for(base: str = "http://fixtures.invalid") -> ScraperSettings:
    return ScraperSettings.model_validate(
        {"selectel_url": base, "hostkey_url": base, "immers_url": base, "monitor": False}
    )


async def parse_times(repeat: int) -> list[tuple[str, str, int, float]]:
    rows = []
    for mode in (Mode.NORMAL, Mode.CHANGED):
        http = cast(Http, InProcessHttp(mode))
        for scraper in create_scrapers(settings_for()):
            samples, offers = [], 0
            for _ in range(repeat):
                started = time.perf_counter()
                result: ScrapeResult = await scraper.fetch(http)
                samples.append((time.perf_counter() - started) * 1000)
                offers = len(result.offers)
            rows.append((scraper.name, mode.value, offers, statistics.median(samples)))
    return rows


async def refresh_times(repeat: int) -> tuple[float, float]:
    async with FakeProviders(all_sites()) as sites:
        settings = ScraperSettings.model_validate(
            {f"{name}_url": site.base_url for name, site in sites.sites.items()}
        )
        scrapers = create_scrapers(settings)
        full, raw = [], []
        async with Http() as http:
            for _ in range(repeat):
                started = time.perf_counter()
                await asyncio.gather(*(scraper.fetch(http) for scraper in scrapers))
                full.append(time.perf_counter() - started)
            # Baseline: replay exactly the requests the scrapers made, without parsing.
            made = [(name, r) for name, site in sites.sites.items() for r in site.requests]
            count = len(made) // (repeat or 1)
            for _ in range(repeat):
                started = time.perf_counter()
                await asyncio.gather(*(_replay(http, sites, name, r) for name, r in made[:count]))
                raw.append(time.perf_counter() - started)
    return statistics.median(full) * 1000, statistics.median(raw) * 1000


async def _replay(http: Http, sites: FakeProviders, name: str, request: SiteRequest) -> None:
    url = sites[name].base_url + request.path
    if request.method == "GET":
        await http.get(name, url, params=request.query)
    else:
        await http.post_form(name, url, request.form)


def main() -> None:
    # The fixtures hold malformed rows on purpose; their warnings are not the figures.
    logging.disable(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    repeat = parser.parse_args().repeat
    print(f"scrapers, median of {repeat} runs")
    print(f"{'provider':<10}{'fixtures':<10}{'offers':>7}{'parse ms':>10}")
    for name, mode, offers, ms in asyncio.run(parse_times(repeat)):
        print(f"{name:<10}{mode:<10}{offers:>7}{ms:>10.2f}")
    full, raw = asyncio.run(refresh_times(repeat))
    print(f"\nfull refresh of 3 providers over 127.0.0.1: {full:.1f} ms")
    print(f"same requests without parsing (baseline):  {raw:.1f} ms  ({full / raw:.2f}x)")
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak_mib:.1f} MiB")


if __name__ == "__main__":
    main()
