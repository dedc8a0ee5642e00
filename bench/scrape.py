"""Scraper costs: parse time per provider and fixture set; for each provider the longest
event-loop stall while it scrapes a 5 MB answer with 40 000 links or rows, and its parse time
at 1× and 10× that input; a full refresh's wall time against the fake sites on 127.0.0.1; the
process's peak RSS.

"parse" runs a provider's whole fetch against an in-process stand-in for the HTTP client that
returns the fixture bytes directly, so it measures parsing and normalising alone.

"stall" runs a loop-stall probe (a task that asks to wake every millisecond and records how
late it wakes) while the real scraper fetches the big answer through the same stand-in. The
scrapers parse in a worker thread; the baseline, measured in the same run, is the same fetch
with that parse run on the event loop, as it was before. The goal: under 50 ms.

"1× / 10×" times the provider's parse alone (decode and normalise, best of a few runs) on the
big input and on one ten times larger. Linear parsing keeps the ratio near 10; the goal is at
most 12. The baseline ("floor") is the same ratio for the standard library's own decoder on
the same bytes: what memory and the allocator cost at 50 MB on this machine.

"refresh" fetches all three providers concurrently over real HTTP from the fake sites; its
baseline is the same requests with no parsing at all, measured in the same run.

    .venv/bin/python -m bench.scrape [--repeat 20] [--no-big]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import resource
import statistics
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

from monitor.providers import PROVIDERS
from monitor.scrape import ScrapeError, ScrapeResult
from scrapers import hostkey_parse, immers_parse, jsonscan, selectel_parse
from scrapers.config import ScraperSettings
from scrapers.http import Http, Response
from scrapers.registry import create_scrapers
from tests.fakes.providers import FakeProviders, Mode, SiteRequest, all_sites
from tests.fakes.sites import immers as immers_pages

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
LINKS = 40_000  # rows or links in the big input
STALL_GOAL_MS = 50.0
RATIO_GOAL = 12.0


class InProcessHttp:
    """Answers from the fake sites' route handlers without sockets; `big` replaces the answers
    that one Big matches with `body`."""

    def __init__(self, mode: Mode, big: Big | None = None, body: bytes = b"") -> None:
        self.routes = dict(all_sites())
        self.mode = mode
        self.big = big
        self.body = body

    def _answer(
        self, provider: str, method: str, url: str, query: dict[str, str], form: dict[str, str]
    ) -> Response:
        path = urlsplit(url).path
        if self.big is not None and self.big.matches(provider, path, form):
            return Response(url, 200, {"Content-Type": self.big.kind}, self.body)
        handler = self.routes[provider][(method, path)]
        site = handler(SiteRequest(method, path, query, form), self.mode)
        return Response(url, site.status, {"Content-Type": site.content_type}, site.body)

    async def get(
        self, provider: str, url: str, *, params: Any = None, expect: Any = None
    ) -> Response:
        return self._answer(provider, "GET", url, dict(params or {}), {})

    async def post_form(self, provider: str, url: str, data: Any) -> Response:
        return self._answer(provider, "POST", url, {}, dict(data))


def settings_for(base: str = "http://fixtures.invalid") -> ScraperSettings:
    urls = {provider.url_setting: base for provider in PROVIDERS}
    return ScraperSettings.model_validate({**urls, "monitor": False})


# --------------------------------------------------------------------------- big inputs


def selectel_prices(links: int) -> bytes:
    """/prices/vpc in the real object envelope: `links` rows, mostly the per-GPU meters, one
    in a hundred a GPU price in its own pool."""
    models = list(selectel_parse.ASSUMED.cloud_models)
    rows = []
    for i in range(links):
        model = models[i % len(models)]
        kind = (
            "compute_pci_gpu" if i % 100 == 0 else ("compute_cores_gpu", "compute_ram_gpu")[i % 2]
        )
        rows.append(
            {
                "resource": f"{kind}_{model}",
                "group": f"ru-{i // 100}a",
                "currency": "rub",
                "value": 3840 + i % 1000,
                "unit": "item",
                "threshold": 0,
            }
        )
    return json.dumps({"status": "ok", "currency": "rub", "prices": rows}).encode()


def hostkey_presets(links: int) -> bytes:
    """presets.php action=list for RU: the fixture's GPU presets among `links` VPS presets."""
    real = json.loads((FIXTURES / "hostkey" / "presets_list_RU.json").read_text("utf-8"))
    padding = [
        {"id": 100_000 + i, "name": f"vm.v{i}", "location": "RU", "locations": "RU",
         "description": f"{1 + i % 16} vCPU, {2 + i % 64} GB, NVMe", "active": 1}
        for i in range(links)
    ]  # fmt: skip
    return json.dumps({"result": "OK", "presets": real["presets"] + padding}).encode()


def immers_index(links: int, slugs: tuple[str, ...] = ()) -> bytes:
    """/gpu/ with `links` model links: all distinct (the fault probe's index), or spread over
    `slugs` (the real models, each linked thousands of times)."""
    cards = "".join(
        f'<div class="gpu-card"><a class="gpu-card__title" href="/gpu/{_slug(i, slugs)}/">'
        f'NVIDIA {i}</a><p class="gpu-card__price">от {80 + i % 90},76 ₽/час</p></div>\n'
        for i in range(links)
    )
    return f"<!DOCTYPE html><html><body>{cards}</body></html>".encode()


def _slug(i: int, slugs: tuple[str, ...]) -> str:
    return slugs[i % len(slugs)] if slugs else f"m{i}"


def immers_index_of_the_models(links: int) -> bytes:
    return immers_index(links, tuple(immers_pages.PAGES))


@dataclass(frozen=True)
class Big:
    label: str
    provider: str
    path: str
    kind: str
    build: Callable[[int], bytes]
    parse: Callable[[bytes], object]  # the provider's parse of that answer, alone
    floor: Callable[[bytes], object]  # the standard library's own decoder on the same bytes
    form: tuple[tuple[str, str], ...] = ()  # for a form POST: which call it answers

    def matches(self, provider: str, path: str, form: dict[str, str]) -> bool:
        wanted = provider == self.provider and path == self.path
        return wanted and all(form.get(key) == value for key, value in self.form)


def _parse_index(body: bytes) -> object:
    try:
        return immers_parse.parse_index(body)
    except ScrapeError as error:  # over the page cap: refused, after reading every link
        return error


def _html_floor(body: bytes) -> object:
    parser = HTMLParser()
    parser.feed(body.decode("utf-8"))
    parser.close()
    return parser


BIG = (
    Big(
        "selectel",
        "selectel",
        "/prices/vpc",
        "application/json",
        selectel_prices,
        lambda body: selectel_parse.parse_prices_vpc(jsonscan.loads(body)),
        json.loads,
    ),
    Big(
        "hostkey",
        "hostkey",
        "/presets.php",
        "application/json",
        hostkey_presets,
        lambda body: hostkey_parse.parse_presets(
            jsonscan.loads(body), "RU", {}, hostkey_parse.Rates()
        ),
        json.loads,
        (("action", "list"), ("location", "RU")),
    ),
    Big("immers", "immers", "/gpu/", "text/html", immers_index, _parse_index, _html_floor),
    Big(
        "immers*",
        "immers",
        "/gpu/",
        "text/html",
        immers_index_of_the_models,
        _parse_index,
        _html_floor,
    ),
)


async def max_stall_ms(work: Awaitable[object]) -> float:
    """The longest the event loop was held while `work` ran, by a 1 ms wake-up probe."""
    loop = asyncio.get_running_loop()
    late: list[float] = [0.0]
    running = True

    async def probe() -> None:
        while running:
            asked = loop.time()
            await asyncio.sleep(0.001)
            late.append(loop.time() - asked - 0.001)

    task = asyncio.create_task(probe())
    await asyncio.sleep(0.005)
    try:
        await work
    finally:
        running = False
        await task
    return max(late) * 1000


@contextmanager
def parse_on_the_loop() -> Iterator[None]:
    """The baseline: every asyncio.to_thread runs its function right there, on the loop."""
    original = asyncio.to_thread

    async def inline(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    asyncio.to_thread = inline
    try:
        yield
    finally:
        asyncio.to_thread = original


async def scrape_big(big: Big, body: bytes) -> tuple[str, float]:
    http = cast(Http, InProcessHttp(Mode.NORMAL, big, body))
    (scraper,) = create_scrapers(settings_for(), http, big.provider)
    outcome: list[str] = []

    async def fetch() -> None:
        try:
            result = await scraper.fetch()
        except ScrapeError as error:
            outcome.append(f"{error.kind} (refused)")
        else:
            outcome.append(f"{len(result.offers)} offers")

    stall = await max_stall_ms(fetch())
    return outcome[0], stall


def best_seconds(function: Callable[[], object], runs: int) -> float:
    """The fastest of `runs`, each started from a collected heap (the same for both sizes)."""
    times = []
    for _ in range(runs):
        gc.collect()
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def big_rows() -> list[tuple[str, float, str, float, float, float, float, float]]:
    rows = []
    for big in BIG:
        body = big.build(LINKS)
        outcome, stall = asyncio.run(scrape_big(big, body))
        with parse_on_the_loop():
            _, baseline = asyncio.run(scrape_big(big, body))
        ten_body = big.build(LINKS * 10)
        one = best_seconds(partial(big.parse, body), 3)
        ten = best_seconds(partial(big.parse, ten_body), 3)
        floor = best_seconds(partial(big.floor, ten_body), 2) / best_seconds(
            partial(big.floor, body), 3
        )
        rows.append((big.label, len(body) / 1e6, outcome, stall, baseline, one, ten, floor))
    return rows


# --------------------------------------------------------------------------- fixtures, refresh


async def parse_times(repeat: int) -> list[tuple[str, str, int, float]]:
    rows = []
    for mode in (Mode.NORMAL, Mode.CHANGED):
        http = cast(Http, InProcessHttp(mode))
        for scraper in create_scrapers(settings_for(), http):
            samples, offers = [], 0
            for _ in range(repeat):
                started = time.perf_counter()
                result: ScrapeResult = await scraper.fetch()
                samples.append((time.perf_counter() - started) * 1000)
                offers = len(result.offers)
            rows.append((scraper.name, mode.value, offers, statistics.median(samples)))
    return rows


async def refresh_times(repeat: int) -> tuple[float, float]:
    async with FakeProviders(all_sites()) as sites:
        settings = ScraperSettings.model_validate(
            {PROVIDERS.get(name).url_setting: site.base_url for name, site in sites.sites.items()}
        )
        full, raw = [], []
        async with Http() as http:
            scrapers = create_scrapers(settings, http)
            for _ in range(repeat):
                started = time.perf_counter()
                await asyncio.gather(*(scraper.fetch() for scraper in scrapers))
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
    parser.add_argument("--no-big", action="store_true", help="skip the 5 MB / 50 MB inputs")
    args = parser.parse_args()
    print(f"scrapers, median of {args.repeat} runs")
    print(f"{'provider':<10}{'fixtures':<10}{'offers':>7}{'parse ms':>10}")
    for name, mode, offers, ms in asyncio.run(parse_times(args.repeat)):
        print(f"{name:<10}{mode:<10}{offers:>7}{ms:>10.2f}")
    if not args.no_big:
        print(f"\nbig answers: {LINKS} links or rows; loop stall while scraping it (goal"
              f" < {STALL_GOAL_MS:.0f} ms), baseline = the same parse on the loop")  # fmt: skip
        print(
            f"{'provider':<10}{'MB':>6}  {'outcome':<22}{'stall ms':>9}{'baseline':>10}"
            f"{'1× s':>8}{'10× s':>8}{'10×/1×':>8}{'floor':>7}"
        )
        for name, mb, outcome, stall, baseline, one, ten, floor in big_rows():
            verdict = "" if stall < STALL_GOAL_MS and ten / one <= RATIO_GOAL else "  MISSED"
            print(
                f"{name:<10}{mb:>6.1f}  {outcome:<22}{stall:>9.1f}{baseline:>10.1f}"
                f"{one:>8.3f}{ten:>8.3f}{ten / one:>8.2f}{floor:>7.2f}{verdict}"
            )
        print("immers: 40 000 distinct model links; immers*: 40 000 links to the 7 real models")
        print("floor: 10×/1× of the standard library's decoder alone (json.loads, HTMLParser)")
    full, raw = asyncio.run(refresh_times(args.repeat))
    print(f"\nfull refresh of 3 providers over 127.0.0.1: {full:.1f} ms")
    print(f"same requests without parsing (baseline):  {raw:.1f} ms  ({full / raw:.2f}x)")
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak_mib:.1f} MiB")


if __name__ == "__main__":
    main()
