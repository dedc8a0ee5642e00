"""The HTTP client every scraper test fetches with: short timeouts, two attempts, and a
backoff that never really sleeps, so fault modes fail fast without real waiting."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from scrapers.http import Http, HttpSettings
from tests.fakes.providers import Mode

TIMEOUT_S = 1.0
# A test of a site in Mode.SLOW (never answers) waits out this timeout on each of its two
# attempts: that wait is all it proves, so it is short (each local request takes milliseconds).
SLOW_SITE_TIMEOUT_S = 0.3


async def _no_sleep(_seconds: float) -> None:
    return None


@pytest.fixture
async def http(request: pytest.FixtureRequest) -> AsyncIterator[Http]:
    callspec = getattr(request.node, "callspec", None)
    slow = callspec is not None and callspec.params.get("mode") is Mode.SLOW
    settings = HttpSettings(
        total_timeout_s=SLOW_SITE_TIMEOUT_S if slow else TIMEOUT_S,
        attempts=2,
        backoff_initial_s=0.01,
        backoff_max_s=0.02,
    )
    async with Http(settings, sleep=_no_sleep) as client:
        yield client
