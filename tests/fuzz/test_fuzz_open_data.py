"""The open data's parameters fuzzed against its real routes: whatever a client sends, the
answer is a 200, a 304 or a 400 with the API's error shape ({"error": ...}), never a 5xx."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.ops.open_data import _OFFER_PARAMS, OpenData
from monitor.providers import PROVIDERS
from monitor.scrape import ScrapeResult
from storage import Store
from tests.bot.ops.test_open_data import NOW, T0
from tests.factories import make_offer, store_snapshot
from tests.fuzz import fuzz

# Values a client might send: words the filters know, numbers of every kind of digit, and
# anything at all.
VALUES = st.one_of(
    st.sampled_from(["h100", "a100 80gb", "rtx 4090", "300,5", "1e3", "-1", "³", "٣", "", " "]),
    st.integers(-(10**20), 10**20).map(str),
    st.text(max_size=40),
)
NAMES = st.one_of(st.sampled_from([*_OFFER_PARAMS, "in_stock", "format", "gpu", "days"]), st.text())
PATHS = ["/api/v1/offers", "/api/v1/offers.csv", "/api/v1/history", "/api/v1/providers"]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[TestServer]:
    store = await Store.open(tmp_path / "bot.db")
    h100 = make_offer("h100x8", 3000.0, provider="selectel", gpu="H100", gpu_count=8)
    await store_snapshot(store, ScrapeResult("selectel", (h100,), T0))
    intervals = {provider.id: float(provider.interval_s) for provider in PROVIDERS}
    open_data = OpenData(store, lambda: intervals, started_at=lambda: T0, now=lambda: NOW)
    # A bucket big enough that the fuzzing is never rate-limited.
    open_data._buckets.take = lambda client: 0.0  # type: ignore[method-assign]
    app = web.Application()
    open_data.add_routes(app)
    test_server = TestServer(app, host="127.0.0.1")
    await test_server.start_server()
    yield test_server
    await test_server.close()
    await store.close()


# One server for every example: its state is what the fuzzing reads, never what it changes.
@settings(parent=fuzz(60), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(PATHS),
    params=st.dictionaries(NAMES, VALUES, max_size=4),
    accept=st.sampled_from(["", "text/csv", "application/json", "*/*"]),
)
@example(path="/api/v1/history", params={"gpu": "h100", "days": "³"}, accept="")
@example(path="/api/v1/offers", params={"max": "٣٠٠", "min_vram": "²⁴"}, accept="text/csv")
async def test_no_parameter_gets_a_server_error(
    server: TestServer, path: str, params: dict[str, str], accept: str
) -> None:
    url = str(server.make_url(path)) + ("?" + urlencode(params) if params else "")
    headers = {"Accept": accept} if accept else {}
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as answer:
        body = await answer.read()
    assert answer.status in (200, 304, 400), (answer.status, url, body[:200])
    if answer.status == 400:
        error = json.loads(body)
        assert isinstance(error["error"], str)
        assert error["error"]
