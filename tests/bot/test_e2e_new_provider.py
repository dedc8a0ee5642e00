"""A fourth provider is one record and one scraper: with both, the real bot schedules it,
stores its offers, lists them in /prices by its name, and /watch understands its words.

The record is added to the registry for the test's length (Providers.added); its scraper is
the class below, named by the record as "module:Class" like the real ones, and its site is a
fake on 127.0.0.1.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.scheduler import job_id
from monitor.providers import PROVIDERS, Provider
from monitor.scrape import ScrapeResult
from scrapers.base import decode_json
from scrapers.config import ScraperSettings, base_url_of
from scrapers.http import Http
from tests.bot.conftest import running_app
from tests.bot.test_e2e_watch import reply
from tests.factories import make_offer
from tests.fakes.providers import (
    FakeProviders,
    Mode,
    Routes,
    SiteRequest,
    SiteResponse,
    all_sites,
)
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually
from tests.store_helpers import current_offers

ID = "tinycloud"
INTERVAL_S = 3600  # the record's, and so its scraper's


class TinyScraper:
    """GET /gpus.json: a list of {"sku", "gpu", "rub_per_hour"}."""

    name = ID
    default_interval_s = INTERVAL_S

    def __init__(self, http: Http, base_url: str) -> None:
        self.http = http
        self.base_url = base_url

    @classmethod
    def from_settings(cls, http: Http, settings: ScraperSettings) -> TinyScraper:
        return cls(http, base_url_of(settings, PROVIDERS.get(ID)))

    async def fetch(self) -> ScrapeResult:
        answer = await self.http.get(ID, f"{self.base_url}/gpus.json")
        offers = tuple(
            make_offer(row["sku"], row["rub_per_hour"], provider=ID, gpu=row["gpu"], vram_gb=48)
            for row in decode_json(ID, answer)
        )
        return ScrapeResult(ID, offers, datetime.now(UTC))


def tiny_gpus(request: SiteRequest, mode: Mode) -> SiteResponse:
    rows = [{"sku": "l40s-1", "gpu": "L40S", "rub_per_hour": 111.5}]
    return SiteResponse(json.dumps(rows).encode())


async def test_a_registered_fourth_provider_is_scraped_listed_and_watchable(
    telegram: FakeTelegram, db_path: Path
):
    sites: dict[str, Routes] = {**all_sites(), ID: {("GET", "/gpus.json"): tiny_gpus}}
    async with FakeProviders(sites) as fakes:
        record = Provider(
            id=ID,
            name="Tiny Cloud",
            aliases=("tiny.cloud", "тайни"),
            interval_s=INTERVAL_S,
            base_url=fakes[ID].base_url,  # no settings field: the record's default is used
            public_url="https://tiny.example",
            scraper=f"{__name__}:TinyScraper",
        )
        with PROVIDERS.added(record):
            urls: dict[str, Any] = {
                p.url_setting: fakes[p.id].base_url for p in PROVIDERS if p.id != ID
            }
            async with running_app(telegram, db_path, monitor=True, **urls) as application:
                assert application.scheduler is not None
                job = application.scheduler.get_job(job_id(ID))
                assert job is not None
                assert job.trigger.interval.total_seconds() == INTERVAL_S

                async def scraped() -> bool:
                    offers = await current_offers(application.store)
                    return any(offer.provider == ID for offer in offers)

                await eventually(scraped)
                assert fakes[ID].requests[0].path == "/gpus.json"

                listed = await reply(telegram, "/prices тайни")
                assert "L40S" in listed
                assert "Tiny Cloud" in listed
                assert "RTX 4090" not in listed  # only the provider asked for

                watched = await reply(telegram, "/watch l40s provider=tiny.cloud")
                assert "Tiny Cloud" in watched

                greeting = await reply(telegram, "/start")
                assert "Selectel, HOSTKEY, immers.cloud и Tiny Cloud" in greeting
        assert ID not in PROVIDERS  # the registry is the real one again
        assert PROVIDERS.find("тайни") is None
