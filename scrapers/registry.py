"""Every provider, built from settings: the one list the CLI and the bot both use."""

from __future__ import annotations

from scrapers.base import Scraper
from scrapers.config import ScraperSettings
from scrapers.hostkey import HostkeyScraper
from scrapers.immers import ImmersScraper
from scrapers.selectel import SelectelScraper

PROVIDERS = ("selectel", "hostkey", "immers")


def create_scrapers(settings: ScraperSettings, only: str | None = None) -> list[Scraper]:
    scrapers: list[Scraper] = [
        SelectelScraper(base_url=settings.selectel_url),
        HostkeyScraper(
            base_url=settings.hostkey_url, eur_rub=settings.eur_rub, usd_rub=settings.usd_rub
        ),
        ImmersScraper(base_url=settings.immers_url),
    ]
    return [scraper for scraper in scrapers if only is None or scraper.name == only]
