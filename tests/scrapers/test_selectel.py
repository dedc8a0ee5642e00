"""Selectel scraper: the pure parsers against fixtures shaped like the real data
(docs/providers.md §Selectel), then real HTTP to a fake site, part by part."""

from __future__ import annotations

import json
import logging
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
    RedirectError,
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
METERS = ("compute_cores_gpu_", "compute_ram_gpu_", "volume_gigabytes_local_gpu_")


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
    ("fixture", "part", "expected"),
    [
        ("pub_service_server.json", "server", "pub_service_server.expected.json"),
        ("pub_service_server.changed.json", "server", "pub_service_server.changed.expected.json"),
        ("pub_service_serverchip.json", "serverchip", "pub_service_serverchip.expected.json"),
    ],
)
def test_servers_match_expected(locations, fixture, part, expected):
    parsed = parse_servers(load(fixture), locations, part=part)
    assert dicts(parsed.offers) == load(expected)


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("prices_vpc.json", "prices_vpc.expected.json"),
        ("prices_vpc.list.json", "prices_vpc.expected.json"),  # the bare-list envelope
        ("prices_vpc.changed.json", "prices_vpc.changed.expected.json"),
    ],
)
def test_prices_vpc_match_expected(fixture, expected):
    assert dicts(parse_prices_vpc(load(fixture)).offers) == load(expected)


def _storefront_units(locations: Any, config: dict[str, Any]) -> dict[str, int]:
    """Location name -> units, by the storefront rule, straight from the raw row."""
    units: dict[str, int] = {}
    for entry in config["available"]:
        place = locations[entry["location"]]
        count = entry.get("count")
        if count is None:
            count = sum(plan["count"] for plan in entry["plan_count"])
        if place.visible:
            units[place.name] = count
    return units


@pytest.mark.parametrize(
    ("fixture", "part"),
    [("pub_service_server.json", "server"), ("pub_service_serverchip.json", "serverchip")],
)
def test_every_config_in_stock_at_a_storefront_location_is_an_in_stock_offer(
    locations, fixture, part
):
    """Whatever the state (Active, EOL, Discount): is_order and units are what count."""
    doc = load(fixture)
    offers = by_key(parse_servers(doc, locations, part=part).offers)
    checked = set()
    for config in doc["result"]:
        gpu = config.get("gpu") or {}
        if not gpu.get("name") or not gpu.get("count") or config["is_order"] is not True:
            continue
        for name, count in _storefront_units(locations, config).items():
            if count <= 0 or money(config["price_collection"]["RUB"]["month"]) is None:
                continue  # empty there, or unpriced (a skip, tested below)
            offer = offers[(config["name"], name)]
            assert (offer.stock, offer.stock_count) == (StockState.IN_STOCK, count)
            assert offer.gpu_count == gpu["count"]
            uuid = next(u for u, loc in locations.items() if loc.name == name)
            local = (config.get("location_price_collection") or {}).get(uuid) or {}
            month = money((local or config["price_collection"])["RUB"]["month"])
            assert offer.price.rub_per_month == month
            checked.add(config["state"])
    assert checked >= ({"Active", "EOL", "Discount"} if part == "server" else {"EOL", "Discount"})


def test_gpu_names_are_normalised(locations):
    offers = by_key(parse_servers(load("pub_service_server.json"), locations).offers)
    identity: dict[str, tuple[object, ...]] = {
        sku: (o.gpu, o.gpu_known, o.gpu_count, o.vram_gb) for (sku, _), o in offers.items()
    }
    assert identity["GL60-8-H100"] == ("H100 SXM", True, 8, 80)  # "GPU Nvidia H100 SXM5 80 GB"
    assert identity["GL61-2-H200NVL"] == ("H200 NVL", True, 2, 141)  # two spaces
    assert identity["AR40-1G-4090-48"] == ("RTX 4090 48GB", True, 1, 48)  # not the 24 GB card
    assert identity["GL50-1-A100"] == ("A100 40GB", False, 1, 40)  # PCIe or SXM: not said
    assert identity["CL25-2G-2080Ti"] == ("RTX 2080 Ti", True, 2, 11)
    assert identity["GL10-1-T4"] == ("T4", True, 1, 16)
    assert offers[("GL61-2-H200NVL", "MSK-1")].gpu_raw == "GPU Nvidia  H200 NVL 141 GB"


def test_stock_states_per_location(locations):
    offers = by_key(parse_servers(load("pub_service_server.json"), locations).offers)

    def state(sku: str, location: str) -> tuple[StockState, int | None]:
        return offers[(sku, location)].stock, offers[(sku, location)].stock_count

    # In stock at one location, empty at another: out of stock there, not "pre-order".
    assert state("GL10-1-T4", "MSK-1") == (StockState.IN_STOCK, 6)
    assert state("GL10-1-T4", "NSK-1") == (StockState.OUT_OF_STOCK, 0)
    assert state("AR40-1G-4090-48", "NSK-1") == (StockState.OUT_OF_STOCK, 0)
    # is_preorder with units is in stock (real rows carry the flag almost everywhere).
    assert state("CL11-1G-A2", "MSK-2") == (StockState.IN_STOCK, 38)
    # No units at any storefront location, is_preorder: pre-order wherever it is listed.
    assert state("GL30-1-4090", "MSK-1") == (StockState.PREORDER, None)
    assert state("GL30-1-4090", "SPB-2") == (StockState.PREORDER, None)
    # Foreign and admin-only stock never counts.
    assert {loc for sku, loc in offers if sku == "PBL60-2G-A5000"} == {"MSK-7"}
    assert {loc for sku, loc in offers if sku == "GL61-2-H200NVL"} == {"MSK-1"}


def test_per_location_prices(locations):
    offers = by_key(parse_servers(load("pub_service_server.json"), locations).offers)
    assert offers[("GL10-1-T4", "SPB-3")].price.rub_per_month == 27300
    assert offers[("GL10-1-T4", "SPB-3")].price.source == "SPB-3 RUB/month"
    assert offers[("GL10-1-T4", "MSK-1")].price.rub_per_month == 25400  # its local entry is {}
    assert offers[("AR40-1G-4090-48", "MSK-3")].price.rub_per_month == 89900
    assert offers[("AR40-1G-4090-48", "NSK-1")].price.rub_per_month == 94900
    assert offers[("GL20-1-A4000", "SPB-5")].price.rub_per_month == 41900  # "41 900,00"
    h100 = offers[("GL60-8-H100", "MSK-7")]
    assert (h100.vcpu, h100.ram_gb, h100.disk_gb) == (112, 2048, 30720)
    assert h100.vat is ASSUMED.dedicated_vat
    assert h100.url == "https://selectel.ru/services/dedicated/#GL60-8-H100"


def test_gpu_rows_that_make_no_offer_are_skips_with_reasons(locations):
    parsed = parse_servers(load("pub_service_server.json"), locations)
    assert {(skip.item, skip.reason) for skip in parsed.skips} == {
        ("GL62-1-H200", "listed at no storefront location"),
        ("GL70-1-T4-OLD", "not orderable (is_order is not true)"),
        ("GL71-1-A6000", "GPU field without a name or a count"),
        ("GL72-1-L40S", "no price_collection.RUB price"),
    }
    plain = {"EL42-NVMe", "EL10-SSD", "BL21-R"}  # gpu {"name": "", "count": 0} or null
    assert not plain & {offer.sku for offer in parsed.offers}
    assert not plain & {skip.item for skip in parsed.skips}


def test_a_gpu_row_is_recognised_by_its_gpu_field_not_its_name(locations):
    row = load("pub_service_server.json")["result"][2]  # GL10-1-T4
    renamed = {**row, "name": "XYZ-1"}
    plain = {**row, "name": "GL99-1-T4", "gpu": {"name": "", "count": 0}}
    parsed = parse_servers({"result": [renamed, plain]}, locations)
    assert {offer.sku for offer in parsed.offers} == {"XYZ-1"}
    assert parsed.skips == []


def test_every_regular_cloud_gpu_in_a_russian_pool_is_an_offer_at_value_over_100():
    rows = load("prices_vpc.json")["prices"]
    regular = {
        (row["resource"], row["group"]): row["value"]
        for row in rows
        if row["resource"].startswith("compute_pci_gpu_")
        and not row["resource"].endswith("_preemptible")
        and row["group"].startswith("ru-")
        and row["value"] is not None
    }
    parsed = parse_prices_vpc(load("prices_vpc.json"))
    offers = {(o.gpu_raw, o.location): o.price.rub_per_hour for o in parsed.offers}
    assert offers == {key: value / 100 for key, value in regular.items()}
    assert len(offers) == 16
    cloud = by_key(parsed.offers)
    t4 = cloud[("cloud:compute_pci_gpu_t4:ru-1a", "ru-1a")]
    assert (t4.gpu, t4.price.rub_per_hour, t4.stock) == ("T4", 38.4, StockState.UNKNOWN)
    assert (t4.vat, t4.note, t4.url) == (
        Vat.INCLUDED,
        "cpu_ram_extra",
        "https://selectel.ru/services/cloud/servers/gpu/",
    )
    assert cloud[("cloud:compute_pci_gpu_h200:ru-9a", "ru-9a")].price.rub_per_hour == 534.25
    assert cloud[("cloud:compute_pci_gpu_a5000:ru-6a", "ru-6a")].price.rub_per_hour == 68.5


def test_preemptible_prices_never_mix_with_regular_ones():
    rows = load("prices_vpc.json")["prices"]
    cheap = {
        (row["resource"].removesuffix("_preemptible"), row["group"]): row["value"] / 100
        for row in rows
        if row["resource"].endswith("_preemptible")
    }
    parsed = parse_prices_vpc(load("prices_vpc.json"))
    assert cheap
    for offer in parsed.offers:
        assert "preemptible" not in offer.sku
        assert cheap.get((offer.gpu_raw, offer.location)) != offer.price.rub_per_hour
    reasons = {skip.reason for skip in parsed.skips if "preemptible" in skip.item}
    assert reasons == {"preemptible price (its own billing kind, not offered)"}


def test_meter_rows_are_neither_offers_nor_skips():
    parsed = parse_prices_vpc(load("prices_vpc.json"))
    assert not [o for o in parsed.offers if o.gpu_raw.startswith(METERS)]
    assert not [s for s in parsed.skips if s.item.startswith(METERS)]
    assert not [w for w in parsed.warnings if any(m in w for m in METERS)]


def test_cloud_skips_and_notes():
    parsed = parse_prices_vpc(load("prices_vpc.json"))
    regular = {(s.reason, s.item) for s in parsed.skips if "preemptible" not in s.item}
    assert regular == {
        ("not a ru-* pool (abroad or private)", "compute_pci_gpu_a5000 @ kz-1a"),
        ("not a ru-* pool (abroad or private)", "compute_pci_gpu_a100_80 @ uz-2a"),
        ("not a ru-* pool (abroad or private)", "compute_pci_gpu_h200 @ gis-2a"),
        ("not a ru-* pool (abroad or private)", "compute_pci_gpu_t4 @ ke-1a"),
        ("not a ru-* pool (abroad or private)", "compute_pci_gpu_rtx4090 @ private-ru-msk-1"),
        ("no price (value)", "compute_pci_gpu_a30 @ ru-7a"),
    }
    assert parsed.warnings == [
        "cloud: compute_pci_gpu_b200: a model the table does not know, read as 'B200'"
    ]


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
    with pytest.raises(ApiError):
        parse_prices_vpc({"status": "error", "message": "no such currency"})
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
    return await SelectelScraper(http, base_url=site.base_url).fetch()


def part_expected(part: str) -> list[dict[str, Any]]:
    name = {"server": "pub_service_server", "serverchip": "pub_service_serverchip"}
    expected: list[dict[str, Any]] = load(f"{name.get(part, 'prices_vpc')}.expected.json")
    return expected


def test_scraper_shape(http):
    scraper: Scraper = SelectelScraper(http)
    assert (scraper.name, scraper.default_interval_s) == ("selectel", 600)
    assert SelectelScraper(http).base_url == "https://api.selectel.ru"


async def test_normal(site, http):
    result = await fetch(site, http)
    assert result.provider == "selectel"
    assert list(result.parts) == ["server", "serverchip", "cloud"]
    for part, offers in result.parts.items():
        assert dicts(offers) == part_expected(part)
    assert result.failures == {}
    assert len({offer.key for offer in result.offers}) == len(result.offers)
    assert {s.part for s in result.skipped} == {"server", "cloud"}


async def test_requests_go_to_the_real_paths(site, http):
    await fetch(site, http)
    assert sorted((r.method, r.path, tuple(r.query.items())) for r in site.requests) == [
        ("GET", "/prices/vpc", (("currency", "rub"),)),
        ("GET", "/servers/v2/pub/location", ()),
        ("GET", "/servers/v2/pub/service/server", ()),
        ("GET", "/servers/v2/pub/service/serverchip", ()),
    ]


async def test_changed(site, http):
    before = by_key((await fetch(site, http)).offers)
    site.mode = Mode.CHANGED
    after = by_key((await fetch(site, http)).offers)
    back = ("AR40-1G-4090-48", "NSK-1")
    assert (before[back].stock, after[back].stock, after[back].stock_count) == (
        StockState.OUT_OF_STOCK,
        StockState.IN_STOCK,
        2,
    )
    gone = ("GL20-1-A4000", "MSK-2")
    assert (before[gone].stock, after[gone].stock) == (StockState.IN_STOCK, StockState.OUT_OF_STOCK)
    a100 = ("GL50-1-A100", "SPB-2")
    assert (before[a100].price.rub_per_month, after[a100].price.rub_per_month) == (219000, 199000)
    h200 = ("cloud:compute_pci_gpu_h200:ru-9a", "ru-9a")
    assert (before[h200].price.rub_per_hour, after[h200].price.rub_per_hour) == (534.25, 499)
    moved = {back, gone, a100, ("GL50-1-A100", "MSK-1"), h200}
    assert all(before[key] == after[key] for key in set(before) - moved)


def _answer(body: bytes, status: int = 200):
    return lambda request, mode: SiteResponse(body, status=status)


async def test_when_the_cloud_list_fails_the_dedicated_offers_still_arrive(site, http):
    site.routes[("GET", "/prices/vpc")] = _answer(b'{"prices": {"oops": 1}}')
    result = await fetch(site, http)
    assert set(result.failures) == {"cloud"}
    assert isinstance(result.failures["cloud"], LayoutError)
    assert dicts(result.parts["server"]) == part_expected("server")
    assert dicts(result.parts["serverchip"]) == part_expected("serverchip")


async def test_when_the_server_list_fails_the_cloud_offers_still_arrive(site, http):
    site.routes[("GET", "/servers/v2/pub/service/server")] = _answer(b"gateway", 502)
    result = await fetch(site, http)
    assert set(result.failures) == {"server"}
    assert isinstance(result.failures["server"], HttpStatusError)
    assert dicts(result.parts["cloud"]) == part_expected("cloud")
    assert dicts(result.parts["serverchip"]) == part_expected("serverchip")


async def test_an_empty_server_list_is_an_empty_part(site, http):
    site.path_modes["/servers/v2/pub/service/server"] = Mode.EMPTY
    result = await fetch(site, http)
    assert result.parts["server"] == ()
    assert dicts(result.parts["cloud"]) == part_expected("cloud")


async def test_a_server_list_redirected_to_another_host_fails_that_part(http):
    async with FakeSite("elsewhere", {}) as elsewhere, FakeSite("selectel", routes()) as home:
        home.path_modes["/servers/v2/pub/service/server"] = Mode.REDIRECT_AWAY
        home.away_url = elsewhere.base_url
        result = await SelectelScraper(http, base_url=home.base_url).fetch()
    assert set(result.failures) == {"server"}
    assert isinstance(result.failures["server"], RedirectError)
    assert elsewhere.requests == []
    assert result.parts["cloud"]


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        (Mode.ERROR_500, HttpStatusError),
        (Mode.SLOW, NetworkError),
        (Mode.CAPTCHA, AntiBotError),
        (Mode.TRUNCATED, LayoutError),
    ],
)
async def test_a_site_wide_failure_fails_every_part(site, http, mode, error):
    site.mode = mode
    result = await fetch(site, http)
    assert set(result.failures) == {"server", "serverchip", "cloud"}
    assert all(isinstance(e, error) for e in result.failures.values())
    assert all(e.provider == "selectel" for e in result.failures.values())


async def test_empty_everywhere_is_three_empty_parts(site, http):
    site.mode = Mode.EMPTY
    result = await fetch(site, http)
    assert dict(result.parts) == {"server": (), "serverchip": (), "cloud": ()}


def _failing_location(request: SiteRequest, mode: Mode) -> SiteResponse:
    return SiteResponse(b'{"error": "boom"}', status=503)


async def test_without_any_location_list_the_dedicated_parts_fail(http):
    failing = routes() | {("GET", "/servers/v2/pub/location"): _failing_location}
    async with FakeSite("selectel", failing) as fake:
        result = await SelectelScraper(http, base_url=fake.base_url).fetch()
    assert set(result.failures) == {"server", "serverchip"}
    assert "/servers/v2/pub/location" in result.failures["server"].detail
    assert dicts(result.parts["cloud"]) == part_expected("cloud")


async def test_location_failure_keeps_the_last_good_list(site, http):
    scraper = SelectelScraper(http, base_url=site.base_url)
    first = await scraper.fetch()
    site.routes[("GET", "/servers/v2/pub/location")] = _failing_location
    second = await scraper.fetch()
    assert second.warnings[0] == "/pub/location failed (HttpStatusError): using the last good list"
    assert dicts(second.offers) == dicts(first.offers)


async def test_unknown_gpu_names_are_logged_once_per_run(site, http, caplog):
    caplog.set_level(logging.WARNING, logger="scrapers.report")
    scraper = SelectelScraper(http, base_url=site.base_url)
    await scraper.fetch()
    await scraper.fetch()
    lines = [r.getMessage() for r in caplog.records if "does not pin" in r.getMessage()]
    assert len(lines) == 2  # one per run, naming every unknown name once
    assert lines[0].count("'compute_pci_gpu_a100' -> 'A100 40GB'") == 1
    assert "RTX 4090 48GB" not in lines[0]  # the modded board is a catalog card
    assert "H200 NVL" not in lines[0]  # a catalog card, once its noise is cleaned off
    assert "'A100 40 GB' -> 'A100 40GB'" in lines[0]
    assert not [r for r in caplog.records if "compute_cores_gpu" in r.getMessage()]
