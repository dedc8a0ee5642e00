"""The HTTP client every scraper test fetches with: short timeouts, two attempts, and a
backoff that never really sleeps, so fault modes fail fast without real waiting."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from scrapers.http import Http, HttpSettings


async def _no_sleep(_seconds: float) -> None:
    return None


@pytest.fixture
async def http() -> AsyncIterator[Http]:
    settings = HttpSettings(
        total_timeout_s=1.0, attempts=2, backoff_initial_s=0.01, backoff_max_s=0.02
    )
    async with Http(settings, sleep=_no_sleep) as client:
        yield client
