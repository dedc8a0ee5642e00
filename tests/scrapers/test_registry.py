"""The provider records (monitor/providers.py) and the scraper modules agree: each record's
scraper resolves and scrapes that provider, each scraper under scrapers/ has a record, and
each record has its base-URL setting."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import scrapers
from monitor.providers import PROVIDERS, Provider
from scrapers.config import ScraperSettings, base_url_of
from scrapers.http import Http
from scrapers.registry import create_scrapers, scraper_class


def scraper_classes() -> dict[str, type]:
    """Every class under scrapers/ that builds from settings and fetches: "module:Class"."""
    found: dict[str, type] = {}
    for module in pkgutil.iter_modules(scrapers.__path__, "scrapers."):
        if module.name == "scrapers.__main__":
            continue
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if (
                inspect.isclass(value)
                and value.__module__ == module.name
                and callable(getattr(value, "from_settings", None))
                and inspect.iscoroutinefunction(getattr(value, "fetch", None))
            ):
                found[f"{module.name}:{name}"] = value
    return found


def test_every_scraper_module_is_registered():
    classes = scraper_classes()
    assert len(classes) >= 3
    assert set(classes) == {provider.scraper for provider in PROVIDERS}


@pytest.mark.parametrize("provider", list(PROVIDERS), ids=PROVIDERS.ids)
async def test_each_record_builds_a_scraper_of_its_provider(provider: Provider):
    settings = ScraperSettings.model_validate({})
    async with Http() as http:
        scraper = scraper_class(provider).from_settings(http, settings)
        assert scraper.name == provider.id
        assert scraper.default_interval_s == provider.interval_s
        assert scraper.base_url == provider.base_url
        # The setting named by the record exists, with the record's default.
        assert ScraperSettings.model_fields[provider.url_setting].default == provider.base_url
        pointed = ScraperSettings.model_validate({provider.url_setting: "http://127.0.0.1:9/"})
        assert base_url_of(pointed, provider) == "http://127.0.0.1:9"
        assert scraper_class(provider).from_settings(http, pointed).base_url == (
            "http://127.0.0.1:9"
        )


async def test_create_scrapers_builds_the_registered_ones_in_order(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("GPURADAR_IMMERS_URL", "http://127.0.0.1:8/")
    async with Http() as http:
        built = create_scrapers(ScraperSettings(), http)
        assert [scraper.name for scraper in built] == list(PROVIDERS.ids)
        assert {scraper.name: scraper.base_url for scraper in built}["immers"] == (
            "http://127.0.0.1:8"
        )
        (only,) = create_scrapers(ScraperSettings(), http, only="hostkey")
        assert only.name == "hostkey"


def test_a_record_naming_no_class_is_refused_by_name():
    broken = Provider(
        id="ghost",
        name="Ghost",
        aliases=(),
        interval_s=60,
        base_url="http://127.0.0.1:9",
        public_url="https://ghost.example",
        scraper="scrapers.selectel:GhostScraper",
    )
    with pytest.raises(ValueError, match=r"ghost: scraper 'scrapers\.selectel:GhostScraper'"):
        scraper_class(broken)
