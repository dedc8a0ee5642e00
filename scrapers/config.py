"""Where the providers live and how prices convert; read from GPURADAR_* like all settings."""

from __future__ import annotations

import re

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

SELECTEL_URL = "https://api.selectel.ru"
HOSTKEY_URL = "https://invapi.hostkey.ru"
IMMERS_URL = "https://immers.cloud"


class ScraperSettings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="GPURADAR_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    selectel_url: str = SELECTEL_URL
    hostkey_url: str = HOSTKEY_URL
    immers_url: str = IMMERS_URL
    # ₽ per unit for prices published in EUR/USD (HOSTKEY's international locations).
    eur_rub: float = Field(default=100.0, gt=0)
    usd_rub: float = Field(default=90.0, gt=0)
    # Overrides every provider's own refresh interval when set.
    refresh_seconds: int | None = Field(default=None, ge=10)
    # Off: no scheduled scraping (tests, or a bot that only sizes).
    monitor: bool = True

    @field_validator("selectel_url", "hostkey_url", "immers_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not re.match(r"^https?://[^/\s]+", value):
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value.rstrip("/")
