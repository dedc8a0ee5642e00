"""/api/v1 over real HTTP against a real SQLite store: what it lists, filters, caches and
refuses."""

from __future__ import annotations

import csv
import io
import ipaddress
import json
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from jsonschema import Draft202012Validator
from multidict import CIMultiDict

from bot.ops.open_data import (
    BURST,
    FORMULA_STARTS,
    OFFER_FIELDS,
    REFILL_S,
    ClientBuckets,
    OpenData,
    client_address,
)
from bot.views.prices import ranked
from monitor.cards import CardFilter
from monitor.freshness import ObservedOffer
from monitor.health import ProviderHealth
from monitor.history import HistoryPoint
from monitor.offers import StockState
from monitor.providers import PROVIDERS
from monitor.scrape import HttpStatusError, NetworkError, ScrapeResult
from storage import Store
from tests.bot.conftest import running_app
from tests.bot.ops.serving import open_data_server
from tests.factories import make_offer, store_snapshot
from tests.fakes.helpers import FakeClock
from tests.fakes.telegram import FakeTelegram

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
NOW = T0 + timedelta(minutes=5)
IN, OUT, UNK = StockState.IN_STOCK, StockState.OUT_OF_STOCK, StockState.UNKNOWN


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    store = await Store.open(tmp_path / "open-data.sqlite3")
    h100 = make_offer(
        "h100-8", 8 * 400.0, IN, provider="selectel", gpu="H100 SXM", gpu_count=8, vram_gb=80
    )
    h100 = replace(h100, stock_count=3)
    l40s = make_offer("l40s", 150.0, OUT, provider="selectel", gpu="L40S", vram_gb=48)
    l40s = replace(l40s, stock_count=0)  # published as none
    await store_snapshot(store, ScrapeResult("selectel", (h100, l40s), T0))
    monthly = make_offer("4090-m", 60.0, UNK, provider="hostkey", monthly=True)  # not published
    odd = replace(make_offer("odd", 90.0, IN, provider="hostkey"), gpu_raw="=HYPERLINK(1)")
    await store_snapshot(store, ScrapeResult("hostkey", (monthly, odd), T0 - timedelta(hours=1)))
    await store.record_failure("immers", NetworkError("immers", "timed out"), T0, 1.0)
    yield store
    await store.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(0.0)


@pytest.fixture
async def api(store: Store, clock: FakeClock) -> AsyncIterator[TestServer]:
    async with open_data_server(store, started=T0 - timedelta(days=1), now=NOW, clock=clock) as s:
        yield s


async def fetch(
    server: TestServer, path: str, headers: dict[str, str] | None = None
) -> tuple[int, CIMultiDict[str], bytes]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(str(server.make_url(path)), headers=headers or {}) as response,
    ):
        return response.status, CIMultiDict(response.headers), await response.read()


async def offers(server: TestServer, query: str = "") -> list[dict[str, Any]]:
    status, _, body = await fetch(server, f"/api/v1/offers{query}")
    assert status == 200, body
    data = json.loads(body)
    assert data["count"] == len(data["offers"])
    return list(data["offers"])


async def test_every_offer_in_the_prices_order_with_its_origin(api: TestServer, store: Store):
    rows = await offers(api)
    # The order /prices shows (monitor.offer_ranking): training-grade cards first.
    assert [row["sku"] for row in rows] == ["h100-8", "l40s", "4090-m", "odd"]
    assert [row["sku"] for row in rows] == [
        item.offer.sku for item in ranked(await store.observed_offers(NOW))
    ]
    h100 = rows[0]
    assert h100["price_gpu_hour_rub"] == 400.0
    assert h100["price_hour_rub"] == 3200.0
    assert h100["observed_at"] == T0.isoformat()
    assert h100["source_url"] == PROVIDERS.get("selectel").base_url
    assert h100["provider_name"] == "Selectel"
    assert h100["price_month_rub"] is None  # hourly: no monthly price is made up
    monthly = rows[2]
    assert monthly["billing"] == "monthly"
    assert monthly["price_month_rub"] == 60.0 * 720
    assert monthly["observed_at"] == (T0 - timedelta(hours=1)).isoformat()
    # Not published stays distinct from none.
    assert (monthly["stock"], monthly["stock_count"]) == ("unknown", None)
    l40s = next(row for row in rows if row["sku"] == "l40s")
    assert (l40s["stock"], l40s["stock_count"]) == ("out_of_stock", 0)


@pytest.mark.parametrize(
    ("query", "skus"),
    [
        ("?min_vram=48", ["h100-8", "l40s"]),
        ("?provider=hostkey", ["4090-m", "odd"]),
        ("?provider=селектел&in_stock=true", ["h100-8"]),
        ("?billing=monthly", ["4090-m"]),
        ("?gpu=h100", ["h100-8"]),
        ("?max=100", ["4090-m", "odd"]),
        # What the chat accepts: a card of two words, a memory with it, a decimal comma.
        ("?gpu=h100%20sxm", ["h100-8"]),
        ("?gpu=l40s%2048gb", ["l40s"]),
        ("?max=100%2C5", ["4090-m", "odd"]),
        ("?max=400%20%E2%82%BD", ["h100-8", "l40s", "4090-m", "odd"]),
    ],
)
async def test_the_filters_of_prices(api: TestServer, query: str, skus: list[str]):
    assert [row["sku"] for row in await offers(api, query)] == skus


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("?colour=red", "unknown parameter 'colour'"),
        ("?min_vram=lots", "vram"),
        ("?billing=weekly", "billing"),
        ("?in_stock=maybe", "in_stock"),
        ("?gpu=h100%20max%3D1", "gpu: a GPU or family"),  # never a price cap in disguise
        ("?gpu=voodoo", "gpu: a GPU or family"),
        ("?max=cheap", "max: ₽ per GPU-hour"),
        ("?format=xml", "format"),
    ],
)
async def test_bad_parameters_get_400_saying_which(api: TestServer, query: str, said: str):
    status, _, body = await fetch(api, f"/api/v1/offers{query}")
    assert status == 400
    assert said in json.loads(body)["error"]


@pytest.mark.parametrize(("query", "param"), [("?gpu=h1000", "gpu"), ("?max=0", "max")])
async def test_a_bad_parameter_is_named_for_the_app_to_word(
    api: TestServer, query: str, param: str
):
    status, _, body = await fetch(api, f"/api/v1/offers{query}")
    assert status == 400
    assert json.loads(body)["param"] == param


async def test_csv_has_every_field_and_no_formula_cells(api: TestServer):
    status, headers, body = await fetch(api, "/api/v1/offers?format=csv")
    assert status == 200
    assert headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert tuple(rows[0]) == OFFER_FIELDS
    assert [row["sku"] for row in rows] == ["h100-8", "l40s", "4090-m", "odd"]
    assert rows[3]["gpu_raw"] == "'=HYPERLINK(1)"
    assert rows[2]["stock_count"] == ""  # not published
    # Accept: text/csv asks for the same.
    assert (await fetch(api, "/api/v1/offers", {"Accept": "text/csv"}))[2] == body


async def test_an_unchanged_answer_is_304_by_etag_and_a_new_scrape_changes_it(
    api: TestServer, store: Store
):
    _, headers, _ = await fetch(api, "/api/v1/offers")
    etag = headers["ETag"]
    again = await fetch(api, "/api/v1/offers", {"If-None-Match": etag})
    assert (again[0], again[2]) == (304, b"")
    cheaper = make_offer("h100-8", 8 * 300.0, IN, provider="selectel", gpu="H100 SXM", gpu_count=8)
    await store_snapshot(store, ScrapeResult("selectel", (cheaper,), T0 + timedelta(minutes=1)))
    status, headers, _ = await fetch(api, "/api/v1/offers", {"If-None-Match": etag})
    assert status == 200
    assert headers["ETag"] != etag


class CountingStore:
    """The store, counting the offer reads an answer costs."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.reads = 0

    async def data_version(self) -> str:
        return await self.store.data_version()

    @property
    def stale_after(self) -> timedelta:
        return self.store.stale_after

    async def observed_offers(self, now: datetime | None = None) -> list[ObservedOffer]:
        self.reads += 1
        return await self.store.observed_offers(now)

    async def provider_health(self) -> list[ProviderHealth]:
        return await self.store.provider_health()

    async def price_series(self, cards: CardFilter, since: datetime) -> list[HistoryPoint]:
        return await self.store.price_series(cards, since)

    async def lowest_price(self, cards: CardFilter, since: datetime) -> HistoryPoint | None:
        return await self.store.lowest_price(cards, since)


async def test_answers_are_made_once_per_data_version_and_minute(store: Store):
    counting = CountingStore(store)
    now = [NOW]
    open_data = OpenData(counting, dict, started_at=lambda: T0, now=lambda: now[0])
    app = web.Application()
    open_data.add_routes(app)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        _, headers, first = await fetch(server, "/api/v1/offers")
        for _ in range(3):
            status, _, _ = await fetch(server, "/api/v1/offers", {"If-None-Match": headers["ETag"]})
            assert status == 304
        assert (await fetch(server, "/api/v1/offers"))[2] == first
        assert counting.reads == 1  # revalidations and repeats cost no offer query
        # A failed scrape is new data too: /providers (and every answer) is made again.
        await store.record_failure("hostkey", NetworkError("hostkey", "reset"), NOW, 1.0)
        await fetch(server, "/api/v1/offers")
        assert counting.reads == 2
        now[0] += timedelta(minutes=1)  # and a new minute: freshness is relative to now
        await fetch(server, "/api/v1/offers")
        assert counting.reads == 3
    finally:
        await server.close()


async def test_history_lists_the_points_and_the_rentable_low(api: TestServer, store: Store):
    later = T0 + timedelta(hours=2)
    cheap_gone = make_offer(
        "h100-8", 8 * 100.0, OUT, provider="selectel", gpu="H100 SXM", gpu_count=8
    )
    await store_snapshot(store, ScrapeResult("selectel", (cheap_gone,), later))
    status, _, body = await fetch(api, "/api/v1/history?gpu=h100&days=7")
    assert status == 200
    data = json.loads(body)
    assert data["gpu"] == "H100"
    prices = [
        (point["at"], point["price_gpu_hour_rub"], point["stock"]) for point in data["points"]
    ]
    assert sorted(prices) == [
        (T0.isoformat(), 400.0, "in_stock"),
        (later.isoformat(), 100.0, "out_of_stock"),
    ]
    # 100 ₽ was never rentable: the low is the in-stock 400.
    assert data["low"]["price_gpu_hour_rub"] == 400.0


@pytest.mark.parametrize(
    "query", ["", "?gpu=", "?gpu=notacard", "?gpu=h100&days=0", "?gpu=h100&days=91"]
)
async def test_history_without_a_gpu_or_with_odd_days_is_400(api: TestServer, query: str):
    assert (await fetch(api, f"/api/v1/history{query}"))[0] == 400


async def test_providers_say_health_last_good_scrape_and_failures(api: TestServer):
    status, _, body = await fetch(api, "/api/v1/providers")
    assert status == 200
    rows = {row["id"]: row for row in json.loads(body)["providers"]}
    assert set(rows) == set(PROVIDERS.ids)
    assert rows["selectel"]["last_good_scrape_at"] == T0.isoformat()
    assert rows["selectel"]["fresh"]
    assert not rows["selectel"]["failing"]
    immers = rows["immers"]
    assert immers["failing"]
    assert immers["last_good_scrape_at"] is None
    assert immers["last_error_class"] == "NetworkError"
    assert rows["hostkey"]["source_url"] == PROVIDERS.get("hostkey").base_url


async def test_the_openapi_document_describes_every_path(api: TestServer):
    status, _, body = await fetch(api, "/api/v1/openapi.json")
    document = json.loads(body)
    assert status == 200
    assert document["openapi"].startswith("3.1")
    assert set(document["paths"]) == {
        "/api/v1/offers",
        "/api/v1/offers.csv",
        "/api/v1/history",
        "/api/v1/providers",
        "/api/v1/openapi.json",
    }
    offer_fields = document["paths"]["/api/v1/offers"]["get"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"]["properties"]["offers"]["items"]["properties"]
    assert tuple(offer_fields) == OFFER_FIELDS


def answer_schema(document: dict[str, Any], path: str) -> dict[str, Any]:
    schema: dict[str, Any] = document["paths"][path]["get"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"]
    return schema


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/offers",
        "/api/v1/offers?min_vram=48&in_stock=true",
        "/api/v1/history?gpu=h100",
        "/api/v1/history?gpu=h100&days=1",
        "/api/v1/providers",
    ],
)
async def test_every_answer_validates_against_the_openapi_document(api: TestServer, path: str):
    document = json.loads((await fetch(api, "/api/v1/openapi.json"))[2])
    schema = answer_schema(document, path.split("?")[0])
    Draft202012Validator.check_schema(schema)
    status, _, body = await fetch(api, path)
    assert status == 200
    answer = json.loads(body)
    Draft202012Validator(schema).validate(answer)
    # The schema is not vacuous: an answer missing a field, or with one of a wrong type, fails.
    first = next(iter(answer))
    assert not Draft202012Validator(schema).is_valid({**answer, first: {"not": "this"}})
    assert not Draft202012Validator(schema).is_valid(
        {k: v for k, v in answer.items() if k != first}
    )


def from_csv(cell: str, schema: dict[str, Any]) -> Any:
    """A CSV cell read back by its field's schema: what a client of the CSV would do."""
    kinds = {option["type"] for option in schema.get("oneOf", [schema])}
    if cell == "" and "null" in kinds:
        return None
    if "integer" in kinds:
        return int(cell)
    if "number" in kinds:
        return float(cell)
    if "boolean" in kinds:
        return {"true": True, "false": False}[cell]
    if cell[:1] == "'" and cell[1:2] in FORMULA_STARTS:
        return cell[1:]  # the quote that keeps a spreadsheet from running it
    return cell


@pytest.mark.parametrize("path", ["/api/v1/offers.csv", "/api/v1/offers?format=csv"])
async def test_the_csv_reads_back_into_the_same_rows_as_the_json(api: TestServer, path: str):
    document = json.loads((await fetch(api, "/api/v1/openapi.json"))[2])
    fields = answer_schema(document, "/api/v1/offers")["properties"]["offers"]["items"]
    _, _, body = await fetch(api, path)
    table = list(csv.DictReader(io.StringIO(body.decode())))
    read_back = [
        {name: from_csv(cell, fields["properties"][name]) for name, cell in row.items()}
        for row in table
    ]
    rows = await offers(api)
    assert len(rows) == 4
    assert read_back == rows


async def test_a_failing_providers_rows_are_stale_and_leave_in_stock_once_expired(
    api: TestServer, store: Store
):
    """HOSTKEY's scrape fails: its rows stay listed as they were read an hour and five
    minutes ago, marked stale with the error; past stale_after they no longer count as in
    stock. The answers still validate, JSON and CSV alike."""
    assert [row["sku"] for row in await offers(api, "?provider=hostkey&in_stock=true")] == ["odd"]
    await store.record_failure("hostkey", HttpStatusError("hostkey", "HTTP 500", 500), NOW, 1.0)
    _, _, body = await fetch(api, "/api/v1/offers")
    answer = json.loads(body)
    assert answer["stale_after_s"] == 3600
    rows = {row["sku"]: row for row in answer["offers"]}
    odd = rows["odd"]
    assert (odd["stale"], odd["stale_reason"], odd["error_class"]) == (
        True,
        "failed",
        "HttpStatusError",
    )
    assert odd["observed_at"] == (T0 - timedelta(hours=1)).isoformat()
    assert not odd["rentable"]  # stale for 65 minutes, past the hour
    h100 = rows["h100-8"]
    assert (h100["stale"], h100["stale_reason"], h100["error_class"], h100["rentable"]) == (
        False,
        None,
        None,
        True,
    )
    assert await offers(api, "?provider=hostkey&in_stock=true") == []
    document = json.loads((await fetch(api, "/api/v1/openapi.json"))[2])
    schema = answer_schema(document, "/api/v1/offers")
    Draft202012Validator(schema).validate(answer)
    fields = schema["properties"]["offers"]["items"]["properties"]
    table = csv.DictReader(io.StringIO((await fetch(api, "/api/v1/offers.csv"))[2].decode()))
    read_back = [{k: from_csv(v, fields[k]) for k, v in row.items()} for row in table]
    assert read_back == answer["offers"]


async def test_a_stale_row_within_stale_after_still_counts_as_in_stock(
    api: TestServer, store: Store
):
    store.expire_stale_after(timedelta(hours=2))  # as GPURADAR_STALE_AFTER_S=7200 sets it
    await store.record_failure("hostkey", HttpStatusError("hostkey", "HTTP 500", 500), NOW, 1.0)
    rows = await offers(api, "?provider=hostkey&in_stock=true")
    assert [(row["sku"], row["stale"], row["rentable"]) for row in rows] == [("odd", True, True)]


async def test_a_client_past_its_burst_gets_429_until_the_bucket_refills(
    api: TestServer, clock: FakeClock
):
    for _ in range(BURST):
        assert (await fetch(api, "/api/v1/openapi.json"))[0] == 200
    status, headers, _ = await fetch(api, "/api/v1/openapi.json")
    assert status == 429
    assert int(headers["Retry-After"]) >= 1
    clock.advance(REFILL_S)
    assert (await fetch(api, "/api/v1/openapi.json"))[0] == 200


def test_buckets_are_per_client_and_forget_the_oldest():
    clock = FakeClock(0.0)
    buckets = ClientBuckets(clock)
    for _ in range(BURST):
        assert buckets.take("a") == 0
    assert buckets.take("a") == pytest.approx(REFILL_S)
    assert buckets.take("b") == 0  # another client has its own
    clock.advance(REFILL_S / 2)
    assert buckets.take("a") == pytest.approx(REFILL_S / 2)


async def test_the_running_bots_ops_server_serves_the_api(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path) as application:
        assert application.ops is not None
        port = application.ops.port
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{port}/api/v1/providers") as response,
        ):
            body = await response.json()
    assert response.status == 200
    assert [row["id"] for row in body["providers"]] == list(PROVIDERS.ids)


async def test_the_ops_server_compresses_and_caches_json_and_csv_apart(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        assert application.ops is not None
        base = f"http://127.0.0.1:{application.ops.port}"
        async with aiohttp.ClientSession(auto_decompress=False) as session:
            gzip = {"Accept-Encoding": "gzip"}
            async with session.get(f"{base}/api/v1/offers", headers=gzip) as response:
                assert response.headers.get("Content-Encoding") == "gzip"
                vary = response.headers["Vary"]
                assert "Accept" in [part.strip() for part in vary.split(",")]
                assert "Accept-Encoding" in vary
            async with session.get(f"{base}/app/assets/nothing.js", headers=gzip) as response:
                assert response.status in (404, 503)  # no 5xx from the compressor on an error
        async with aiohttp.ClientSession() as session:
            # CSV asked by Accept, then JSON: each gets its own body (and Vary tells caches so).
            csv_first = {"Accept": "text/csv"}
            async with session.get(f"{base}/api/v1/offers", headers=csv_first) as response:
                assert response.content_type == "text/csv"
            async with session.get(f"{base}/api/v1/offers") as response:
                assert response.content_type == "application/json"
                await response.json()


@pytest.mark.parametrize("days", ["³", "٣", "1٣", "-1", "1e3"])
async def test_a_number_parameter_of_other_digits_is_400(api: TestServer, days: str):
    status, _, body = await fetch(api, f"/api/v1/history?gpu=h100&days={days}")
    assert status == 400
    assert "days" in json.loads(body)["error"]


def test_behind_a_trusted_proxy_the_forwarded_client_counts_elsewhere_the_peer():
    proxy = (ipaddress.ip_network("10.0.0.5/32"), ipaddress.ip_network("127.0.0.0/8"))
    assert client_address("10.0.0.5", "198.51.100.7", proxy) == "198.51.100.7"
    assert client_address("127.0.0.1", "203.0.113.9, 198.51.100.7", proxy) == "198.51.100.7"
    assert client_address("10.0.0.5", None, proxy) == "10.0.0.5"
    # A neighbour on the same private network is no proxy: it cannot pick its own bucket.
    assert client_address("10.0.0.6", "203.0.113.1", proxy) == "10.0.0.6"
    # Nor can a client on the internet, nor anyone when no proxy is configured.
    assert client_address("93.184.216.34", "203.0.113.1", proxy) == "93.184.216.34"
    assert client_address("10.0.0.5", "203.0.113.1", ()) == "10.0.0.5"
    assert client_address(None, "203.0.113.1", proxy) == "?"


async def test_clients_behind_the_proxy_have_buckets_of_their_own(api: TestServer):
    for _ in range(BURST):
        assert (await fetch(api, "/api/v1/openapi.json", {"X-Forwarded-For": "192.0.2.1"}))[
            0
        ] == 200
    assert (await fetch(api, "/api/v1/openapi.json", {"X-Forwarded-For": "192.0.2.1"}))[0] == 429
    assert (await fetch(api, "/api/v1/openapi.json", {"X-Forwarded-For": "192.0.2.2"}))[0] == 200
