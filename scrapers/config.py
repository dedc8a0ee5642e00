"""Where the providers live and how prices convert; read from GPURADAR_* like all settings.

Each registered provider (monitor/providers.py) has a base-URL setting, `<id>_url`
(`GPURADAR_<ID>_URL`), defaulting to its record's `base_url`: the fields are made from the
records, so a new provider's setting needs no line here.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, Field, create_model
from pydantic_settings import BaseSettings, SettingsConfigDict

from monitor.providers import PROVIDERS, Provider
from monitor.redaction import hide_userinfo


def _http_url(value: str) -> str:
    if not re.match(r"^https?://[^/\s]+", value):
        raise ValueError(f"{hide_userinfo(value)!r} is not an http(s) URL")
    return value.rstrip("/")


BaseUrl = Annotated[str, AfterValidator(_http_url)]


class _Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="GPURADAR_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # ₽ per unit for prices published in EUR/USD (HOSTKEY's international locations).
    eur_rub: float = Field(default=100.0, gt=0)
    usd_rub: float = Field(default=90.0, gt=0)
    # Overrides every provider's own refresh interval when set. The process tests refresh
    # their fake sites every few seconds, to see a change without waiting long.
    refresh_seconds: int | None = Field(default=None, ge=1)
    # Off: no scheduled scraping (tests, or a bot that only sizes).
    monitor: bool = True


_url_fields: dict[str, Any] = {
    provider.url_setting: (BaseUrl, provider.base_url) for provider in PROVIDERS
}
if TYPE_CHECKING:
    # mypy sees the fields every provider shares; the URLs are read with base_url_of() below.
    ScraperSettings = _Settings
else:
    ScraperSettings = create_model(
        "ScraperSettings", __base__=_Settings, __module__=__name__, **_url_fields
    )


def base_url_of(settings: ScraperSettings, provider: Provider) -> str:
    """Where the provider's requests go. A provider registered after the settings were made
    (a test's extra provider) has no field: its record's default is the answer."""
    return str(getattr(settings, provider.url_setting, provider.base_url))
