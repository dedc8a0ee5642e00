"""Selectel scraper: the pure parsers against the fixtures, then real HTTP to a fake site."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from monitor.offers import Offer, StockState, Vat
from monitor.scrape import (
    AntiBotError,
    ApiError,
    HttpStatusError,
    LayoutError,
    NetworkError,
    ScrapeResult,
)
from scrapers.base import Scraper
from scrapers.http import Http
from scrapers.records import offer_record
from scrapers.selectel import SelectelScraper
from scrapers.selectel_parse import (
    ASSUMED,
    money,
    parse_locations,
    parse_prices_vpc,
    parse_servers,
)
from tests.fakes.providers import FakeSite, Mode, SiteRequest, SiteResponse
from tests.fakes.sites.selectel import routes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "selectel"
NSK1_UUID = "5e1ec7e1-0000-4000-8000-000000000021"


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def dicts(offers: Any) -> list[dict[str, Any]]:
    return [offer_record(offer) for offer in offers]


def by_key(offers: Any) -> dict[tuple[str, str], Offer]:
    return {(offer.sku, offer.location): offer for offer in offers}


@pytest.fixture
def locations() -> Any:
    return parse_locations(load("pub_location.json"))


# ----------------------------------------------------------------------------- parsers


@pytest.mark.parametrize(
    ("fixture", "model", "expected"),
    [
        ("pub_service_server.json", "server", "pub_service_server.expected.json"),
        ("pub_service_server.changed.json", "server", "pub_service_server.changed.expected.json"),
        ("pub_service_serverchip.json", "serverchip", "pub_service_serverchip.expected.json"),
    ],
)
def test_servers_match_expected(locations, fixture, model, expected):
    parsed = parse_servers(load(fixture), locations, model=model)
    assert dicts(parsed.offers) == load(expected)


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("prices_vpc.json", "prices_vpc.expected.json"),
        ("prices_vpc.changed.json", "prices_vpc.changed.expected.json"),
    ],
)
def test_prices_vpc_match_expected(fixture, expected):
    assert dicts(parse_prices_vpc(load(fixture)).offers) == load(expected)


def test_storefront_locations_only(locations):
    assert sorted(loc.name for loc in locations.values() if loc.visible) == [
        "MSK-1", "MSK-2", "MSK-3", "MSK-7", "NSK-1", "SPB-2", "SPB-3", "SPB-4", "SPB-5",
    ]  # fmt: skip
    offers = parse_servers(load("pub_service_server.json"), locations).offers
    skus = {offer.sku for offer in offers}
    assert "GL61-1-H200" not in skus  # stocked only in MSK-4 (admin-only)
    assert {offer.location for offer in offers if offer.sku == "GL21-2-A5000"} == {"MSK-7"}
    assert not {"EL42-NVMe", "GL70-1-T4", "GL11-1-A2000-OLD"} & skus  # no GPU, disabled, hidden


def test_dedicated_offer_details(locations):
    offers = by_key(parse_servers(load("pub_service_server.json"), locations).offers)
    nsk = offers[("GL30-1-4090", "NSK-1")]
    assert nsk.price.rub_per_month == 69900  # the NSK-1 price, not the 74 900 list price
    assert nsk.price.source == "NSK-1 RUB/month"
    assert offers[("GL30-1-4090", "MSK-1")].price.rub_per_month == 74900
    assert offers[("GL20-1-A4000", "SPB-5")].price.rub_per_month == 41900  # "41 900,00"
    assert offers[("GL50-1-A100", "MSK-1")].stock_count == 2  # summed over plan_count
    preorder = offers[("GL40-1-L40S", "MSK-2")]
    assert (preorder.stock, preorder.stock_count) == (StockState.PREORDER, None)
    h100 = offers[("GL60-8-H100", "MSK-7")]
    assert (h100.gpu, h100.gpu_known, h100.gpu_count, h100.vram_gb) == ("H100 SXM", True, 8, 80)
    assert (h100.vcpu, h100.ram_gb, h100.disk_gb) == (112, 2048, 30720)
    assert h100.vat is ASSUMED.dedicated_vat
    a2000 = offers[("GL12-1-A2", "MSK-1")]
    assert (a2000.gpu, a2000.gpu_known, a2000.vram_gb) == ("RTX A2000", False, None)
    assert h100.url == "https://selectel.ru/services/dedicated/#GL60-8-H100"


def test_malformed_gpu_config_is_skipped_with_a_warning(locations):
    parsed = parse_servers(load("pub_service_server.json"), locations)
    assert parsed.warnings == ["GL12-1-A2-BAD: GPU config without gpu.name, skipped"]
    broken = {
        "name": "GL99-1-X",
        "state": "Active",
        "is_hidden": False,
        "is_order": True,
        "gpu": {"name": "RTX 4090", "count": 1},
        "price_collection": {"RUB": {"month": 70000}},
    }  # "available" missing
    only_broken = parse_servers({"result": [broken]}, locations)
    assert only_broken.offers == []
    assert only_broken.warnings == ["GL99-1-X: available[] missing or unreadable, skipped"]


def test_plain_server_with_empty_gpu_is_not_a_warning(locations):
    plain = {"name": "EL10", "state": "Active", "is_order": True, "gpu": {}, "tags": ["NVMe"]}
    parsed = parse_servers({"result": [plain, {"name": "EL11", "gpu": None}]}, locations)
    assert (parsed.offers, parsed.warnings, parsed.gpu_rows) == ([], [], 0)


def test_without_locations_every_location_counts_by_uuid():
    offers = parse_servers(load("pub_service_server.json"), None).offers
    h200 = [offer for offer in offers if offer.sku == "GL61-1-H200"]
    assert [(o.location, o.stock_count) for o in h200] == [
        ("5e1ec7e1-0000-4000-8000-000000000004", 5)
    ]
    nsk = by_key(offers)[("GL30-1-4090", NSK1_UUID)]
    assert nsk.price.rub_per_month == 69900


def test_cloud_offer_details():
    parsed = parse_prices_vpc(load("prices_vpc.json"))
    offers = {offer.sku: offer for offer in parsed.offers}
    rtx = offers["cloud:gpu_rtx4090:ru-7a"]
    assert (rtx.location, rtx.gpu, rtx.gpu_count, rtx.stock) == (
        "ru-7a", "RTX 4090", 1, StockState.UNKNOWN,
    )  # fmt: skip
    assert rtx.price.rub_per_hour == 95.0
    assert rtx.price.rub_per_month == 95.0 * 720
    assert (rtx.vat, rtx.note) == (Vat.INCLUDED, "cpu_ram_extra")
    assert rtx.url == "https://selectel.ru/services/cloud/servers/gpu/"
    assert offers["cloud:gpu_a5000:ru-7a"].price.rub_per_hour == 72.0  # base tier, not 68
    assert not any("volume" in sku or "compute" in sku for sku in offers)
    assert parsed.warnings == [
        "/prices/vpc: GPU-like resource 'gpu_b200' is not mapped, skipped",
        "/prices/vpc: gpu_a30 in ru-7a: bad value or group, skipped",
    ]


def test_cloud_flavor_arithmetic_from_the_research():
    """GL10.8-32768-0-1GPU = RTX 4090 + 8 vCPU + 32768 MB RAM ≈ 113.5 ₽/h (research §6.1)."""
    rows = {(row["resource"], row["group"]): row["value"] for row in load("prices_vpc.json")}
    gpu = parse_prices_vpc(load("prices_vpc.json")).offers
    gpu_rub = next(o for o in gpu if o.sku == "cloud:gpu_rtx4090:ru-7a").price.rub_per_hour
    kopecks = 8 * rows["compute_cores", "ru-7a"] + 32768 * rows["compute_ram", "ru-7a"]
    assert gpu_rub + kopecks / 100 == pytest.approx(113.49, abs=0.01)


@pytest.mark.parametrize(
    ("doc", "error"),
    [
        ({"error": {"code": 500, "message": "internal"}}, ApiError),
        ({"result": "nope"}, LayoutError),
        ([], LayoutError),
    ],
)
def test_server_list_shape_errors(locations, doc, error):
    with pytest.raises(error):
        parse_servers(doc, locations)


def test_prices_shape_errors():
    with pytest.raises(ApiError):
        parse_prices_vpc({"error": "bad currency"})
    with pytest.raises(LayoutError):
        parse_prices_vpc({"result": []})
    with pytest.raises(LayoutError):
        parse_locations({"result": [{"name": "MSK-1"}]})


@pytest.mark.parametrize(
    ("raw", "value"),
    [(23200, 23200.0), ("41 900,00", 41900.0), ("69900.5", 69900.5), (0, None), ("n/a", None),
     (None, None), (True, None), (float("nan"), None), (-5, None)],
)  # fmt: skip
def test_money(raw, value):
    assert money(raw) == value


# ----------------------------------------------------------------------------- over HTTP


@pytest.fixture
async def site() -> AsyncIterator[FakeSite]:
    fake = FakeSite("selectel", routes())
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


async def fetch(site: FakeSite, http: Http) -> ScrapeResult:
    return await SelectelScraper(base_url=site.base_url).fetch(http)


def all_expected() -> list[dict[str, Any]]:
    names = ("pub_service_server", "pub_service_serverchip", "prices_vpc")
    return [offer for name in names for offer in load(f"{name}.expected.json")]


def test_scraper_shape():
    scraper: Scraper = SelectelScraper()
    assert (scraper.name, scraper.default_interval_s) == ("selectel", 600)
    assert SelectelScraper().base_url == "https://api.selectel.ru"


async def test_normal(site, http):
    result = await fetch(site, http)
    assert result.provider == "selectel"
    assert dicts(result.offers) == all_expected()
    assert len({offer.key for offer in result.offers}) == len(result.offers)
    assert "GL12-1-A2-BAD: GPU config without gpu.name, skipped" in result.warnings
    assert not any("/pub/location" in warning for warning in result.warnings)


async def test_requests_go_to_the_real_paths(site, http):
    await fetch(site, http)
    assert [(r.method, r.path, r.query) for r in site.requests] == [
        ("GET", "/servers/v2/pub/service/server", {}),
        ("GET", "/servers/v2/pub/service/serverchip", {}),
        ("GET", "/prices/vpc", {"currency": "rub"}),
        ("GET", "/servers/v2/pub/location", {}),
    ]


async def test_changed(site, http):
    before = by_key((await fetch(site, http)).offers)
    site.mode = Mode.CHANGED
    after = by_key((await fetch(site, http)).offers)
    back = after[("GL31-4-4090", "SPB-4")]
    assert before[("GL31-4-4090", "SPB-4")].stock is StockState.OUT_OF_STOCK
    assert (back.stock, back.stock_count) == (StockState.IN_STOCK, 2)
    gone = after[("GL20-1-A4000", "MSK-2")]
    assert before[("GL20-1-A4000", "MSK-2")].stock is StockState.IN_STOCK
    assert (gone.stock, gone.stock_count) == (StockState.OUT_OF_STOCK, 0)
    a100 = ("GL50-1-A100", "MSK-1")
    assert (before[a100].price.rub_per_month, after[a100].price.rub_per_month) == (219000, 199000)
    h100 = ("cloud:gpu_h100:ru-9a", "ru-9a")
    assert (before[h100].price.rub_per_hour, after[h100].price.rub_per_hour) == (450, 420)
    same = set(before) - {a100, h100, ("GL31-4-4090", "SPB-4"), ("GL20-1-A4000", "MSK-2")}
    assert all(before[key] == after[key] for key in same)


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        (Mode.ERROR_500, HttpStatusError),
        (Mode.SLOW, NetworkError),
        (Mode.CAPTCHA, AntiBotError),
        (Mode.EMPTY, LayoutError),
        (Mode.TRUNCATED, LayoutError),
    ],
)
async def test_failures_are_typed(site, http, mode, error):
    site.mode = mode
    with pytest.raises(error) as caught:
        await fetch(site, http)
    assert caught.value.provider == "selectel"


async def test_empty_is_a_layout_error_not_empty_stock(site, http):
    site.mode = Mode.EMPTY
    with pytest.raises(LayoutError, match="no GPU offers"):
        await fetch(site, http)


def _failing_location(request: SiteRequest, mode: Mode) -> SiteResponse:
    return SiteResponse(b'{"error": "boom"}', status=503)


async def test_location_failure_falls_back_to_every_location(http):
    failing = routes() | {("GET", "/servers/v2/pub/location"): _failing_location}
    fake = FakeSite("selectel", failing)
    await fake.start()
    try:
        result = await SelectelScraper(base_url=fake.base_url).fetch(http)
    finally:
        await fake.stop()
    assert result.warnings[0] == (
        "/pub/location failed (HttpStatusError): counting stock in every location, named by uuid"
    )
    keys = by_key(result.offers)
    assert ("GL30-1-4090", NSK1_UUID) in keys
    assert ("cloud:gpu_h200:ru-9a", "ru-9a") in keys


async def test_location_failure_keeps_the_last_good_list(site, http):
    scraper = SelectelScraper(base_url=site.base_url)
    first = await scraper.fetch(http)
    site.routes[("GET", "/servers/v2/pub/location")] = _failing_location
    second = await scraper.fetch(http)
    assert second.warnings[0] == "/pub/location failed (HttpStatusError): using the last good list"
    assert dicts(second.offers) == dicts(first.offers)
