"""Every registered provider's scraper, built from settings: the one list the CLI and the bot
both use.

A record (monitor/providers.py) names its scraper as "module:Class"; the class is imported
here, on first use, and built with `from_settings(http, settings)`: each scraper holds the
HTTP client it was built with, and reads what else it needs (its base URL, exchange rates).
"""

from __future__ import annotations

import importlib
from typing import Protocol, cast

from monitor.providers import PROVIDERS, Provider
from scrapers.base import Scraper
from scrapers.config import ScraperSettings
from scrapers.http import Http


class ScraperClass(Protocol):
    """What a record's "module:Class" must name."""

    def from_settings(self, http: Http, settings: ScraperSettings) -> Scraper: ...


def scraper_class(provider: Provider) -> ScraperClass:
    """The class a record names; a name that does not resolve is a ValueError saying which."""
    module_name, _, class_name = provider.scraper.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as error:
        raise ValueError(f"{provider.id}: scraper {provider.scraper!r}: {error}") from None
    if not callable(getattr(found, "from_settings", None)):
        raise ValueError(f"{provider.id}: {provider.scraper} has no from_settings(http, settings)")
    return cast(ScraperClass, found)


def create_scrapers(
    settings: ScraperSettings, http: Http, only: str | None = None
) -> list[Scraper]:
    """One scraper per registered provider, in the registry's order (or the one named)."""
    return [
        scraper_class(provider).from_settings(http, settings)
        for provider in PROVIDERS
        if only is None or provider.id == only
    ]
