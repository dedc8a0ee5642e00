"""HOSTKEY scraper: the pure parsers against the fixtures, then real HTTP to a fake InvAPI."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.offers import Offer, StockState, Vat
from monitor.scrape import (
    AntiBotError,
    ApiError,
    HttpStatusError,
    LayoutError,
    NetworkError,
    ScrapeError,
    ScrapeResult,
    Skip,
)
from scrapers.base import Scraper
from scrapers.hostkey import HostkeyScraper, _without_duplicates
from scrapers.hostkey_parse import (
    ASSUMED,
    Parsed,
    Rates,
    parse_amount,
    parse_disk,
    parse_gpu,
    parse_info,
    parse_presets,
    parse_stocks,
    require_readable,
)
from scrapers.http import Http
from scrapers.records import offer_record
from tests.fakes.providers import FakeSite, Mode, SiteRequest, SiteResponse
from tests.fakes.sites.hostkey import routes

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "hostkey"
RATES = Rates()
ERROR_BODY = {"result": "ERROR", "code": -1, "message": "presets: action required"}


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def dicts(offers: Any) -> list[dict[str, Any]]:
    return [offer_record(offer) for offer in offers]


def by_key(offers: Any) -> dict[tuple[str, str], Offer]:
    return {(offer.sku, offer.location): offer for offer in offers}


def book(changed: bool = False) -> Any:
    suffix = ".changed" if changed else ""
    return parse_info(load(f"presets_info_RUB_EUR{suffix}.json"))


def presets(location: str, rates: Rates = RATES) -> Parsed:
    return parse_presets(load(f"presets_list_{location}.json"), location, book(), rates)


def stocks(location: str) -> Parsed:
    return parse_stocks(load(f"stocks_list_GPU_{location}.json"), location, RATES)


# ----------------------------------------------------------------------------- parsers


@pytest.mark.parametrize(
    ("fixture", "location", "changed"),
    [
        ("presets_list_RU.json", "RU", False),
        ("presets_list_NL.json", "NL", False),
        ("presets_list_FI.json", "FI", False),
        ("presets_list_RU.changed.json", "RU", True),
        ("presets_list_NL.changed.json", "NL", True),
    ],
)
def test_presets_match_expected(fixture, location, changed):
    parsed = parse_presets(load(fixture), location, book(changed), RATES)
    assert dicts(parsed.offers) == load(fixture.replace(".json", ".expected.json"))


@pytest.mark.parametrize(
    ("fixture", "location"),
    [
        ("stocks_list_GPU_NL.json", "NL"),
        ("stocks_list_GPU_FI.json", "FI"),
        ("stocks_list_GPU_IS.json", "IS"),
        ("stocks_list_GPU_RU.json", "RU"),
        ("stocks_list_GPU_IS.changed.json", "IS"),
    ],
)
def test_stocks_match_expected(fixture, location):
    parsed = parse_stocks(load(fixture), location, RATES)
    assert dicts(parsed.offers) == load(fixture.replace(".json", ".expected.json"))


def test_non_gpu_presets_are_filtered_out_silently():
    for location in ("RU", "NL", "FI"):
        parsed = presets(location)
        assert all(o.sku.startswith(("gpu.", "vgpu.")) for o in parsed.offers)
        assert not any("vm.pico" in warning for warning in parsed.warnings)


def test_retired_preset_without_price_is_dropped_without_a_warning():
    parsed = presets("NL")
    assert "gpu.v1-retired" not in {o.sku for o in parsed.offers}
    assert not any("retired" in warning for warning in parsed.warnings)
    assert Skip("NL", "retired (inactive and unpriced)", "gpu.v1-retired") in parsed.skips


def test_malformed_rows_are_skipped_with_their_reasons():
    assert presets("RU").skips == [Skip("RU", "no GPU named", "gpu.v3-custom")]
    assert presets("RU").messages == [
        "presets RU: gpu.v3-custom: no GPU named in 'Individual configuration, ask a manager',"
        " skipped"
    ]
    assert Skip("NL", "row without a preset name", "row 11") in presets("NL").skips
    nl = stocks("NL")
    assert [o.sku for o in nl.offers] == ["stock:70311", "stock:70312"]
    assert nl.skips == [Skip("stock", "no GPU named", "stock:70316")]
    assert presets("RU").warnings == nl.warnings == []


def test_active_decides_stock_and_available_counts_it():
    offers = by_key(presets("NL").offers) | by_key(presets("RU").offers)
    assert offers["gpu.v3-4090t", "NL"].stock is StockState.IN_STOCK
    assert offers["gpu.v3-4090t", "NL"].stock_count is None  # presence only
    assert offers["gpu.v3-4090x4", "NL"].stock is StockState.OUT_OF_STOCK
    assert offers["gpu.v3-h100", "RU"].stock is StockState.OUT_OF_STOCK
    counted = offers["gpu.v3-4090t", "RU"]  # `available: 3`
    assert (counted.stock, counted.stock_count) == (StockState.IN_STOCK, 3)


def test_available_zero_is_out_of_stock_whatever_active_says():
    body = load("presets_list_RU.json")
    for row in body["presets"]:
        if row["name"] == "gpu.v3-4090t":
            row["available"] = 0
    offer = by_key(parse_presets(body, "RU", book(), RATES).offers)["gpu.v3-4090t", "RU"]
    assert (offer.stock, offer.stock_count) == (StockState.OUT_OF_STOCK, 0)


def test_rur_and_flat_rouble_prices():
    offers = by_key(presets("RU").offers)
    rur = offers["gpu.v3-5090", "RU"]  # priced under "RUR" only
    assert (rur.price.rub_per_month, rur.price.source, rur.price.converted) == (
        79900,
        "RUR/month",
        False,
    )
    flat = offers["gpu.v3-a5000x2", "RU"]  # monthly_ru "74 900" beats monthly_com 790 (EUR)
    assert (flat.price.rub_per_month, flat.price.source) == (74900, "RUB/month")
    assert (flat.gpu, flat.gpu_count) == ("RTX A5000", 2)


def test_each_listed_location_is_its_own_offer():
    keys = {(o.sku, o.location) for loc in ("RU", "NL", "FI") for o in presets(loc).offers}
    assert {loc for sku, loc in keys if sku == "gpu.v2-a5000"} == {"RU", "NL", "FI"}
    # vgpu.v2-a5000 sells in NL only: the RU list does not carry it.
    assert {loc for sku, loc in keys if sku == "vgpu.v2-a5000"} == {"NL"}


def test_rub_prices_are_taken_as_is():
    offer = by_key(presets("RU").offers)["gpu.v3-4090t", "RU"]
    assert offer.price.rub_per_month == 54900
    assert offer.price.source == "RUB/month"
    assert not offer.price.converted


def test_eur_prices_are_converted_at_the_configured_rate():
    offer = by_key(presets("NL", Rates(eur_rub=95.5)).offers)["gpu.v3-4090t", "NL"]
    assert offer.price.rub_per_month == pytest.approx(510 * 95.5)
    assert offer.price.source == "EUR/month @ 95.5 ₽/EUR"
    assert offer.price.converted


def test_usd_prices_use_the_usd_rate():
    offer = by_key(presets("FI").offers)["gpu.v2-a5000", "FI"]
    assert offer.price.rub_per_month == pytest.approx(315 * 90.0)
    assert offer.price.source == "USD/month @ 90.0 ₽/USD"
    assert offer.price.converted


def test_flat_monthly_com_is_the_fallback_price():
    for location in ("NL", "FI"):
        offer = by_key(presets(location).offers)["gpu.v3-a100-80", location]
        assert offer.price.rub_per_month == 169000
        assert offer.price.source == "EUR/month @ 100.0 ₽/EUR"


def test_list_row_price_is_used_when_info_lacks_the_preset():
    offer = by_key(presets("NL").offers)["vgpu.v2-a5000", "NL"]
    assert offer.price.rub_per_month == 23900
    assert offer.url == ASSUMED.vgpu_url


def test_odd_price_string_parses():
    offer = by_key(presets("NL").offers)["gpu.v3-h200", "NL"]
    assert offer.price.rub_per_month == pytest.approx(298690)


def test_hdd_as_number_and_as_string_both_parse():
    offers = by_key(presets("RU").offers)
    assert offers["gpu.v3-3090", "RU"].disk_gb == 1000  # "hdd": 1000
    assert offers["gpu.v3-4090t", "RU"].disk_gb == 1920  # "hdd": "2x960"


def test_gpu_from_the_info_gpu_field_when_the_description_has_none():
    offer = by_key(presets("RU").offers)["gpu.v3-4090t", "RU"]
    assert (offer.gpu, offer.gpu_count, offer.vram_gb) == ("RTX 4090", 1, 24)
    assert offer.title == "Ryzen 9 7950X, 128 GB, 2x960 NVMe"
    assert (offer.vcpu, offer.ram_gb) == (16, 128)


def test_ambiguous_gpu_is_kept_raw():
    offer = by_key(presets("NL").offers)["gpu.v3-a100-80", "NL"]
    assert (offer.gpu, offer.gpu_known, offer.vram_gb) == ("A100 80GB", False, 80)


def test_every_offer_has_unknown_vat_and_a_site_url():
    offers = [o for loc in ("RU", "NL", "FI") for o in presets(loc).offers]
    offers += [o for loc in ("NL", "FI", "IS", "RU") for o in stocks(loc).offers]
    assert {o.vat for o in offers} == {Vat.UNKNOWN}
    assert {o.url for o in offers} == {ASSUMED.dedicated_url, ASSUMED.vgpu_url}
    assert all(o.provider == "hostkey" for o in offers)


def test_stock_servers_are_one_unit_each_with_hourly_prices():
    offers = by_key(o for loc in ("NL", "FI", "IS", "RU") for o in stocks(loc).offers)
    hourly = offers["stock:70311", "NL"]
    assert (hourly.stock, hourly.stock_count) == (StockState.IN_STOCK, 1)
    assert hourly.price.rub_per_hour == pytest.approx(19.0)
    assert hourly.price.source == "EUR/hour @ 100.0 ₽/EUR"
    no_status = offers["stock:70312", "NL"]  # status missing: available
    assert (no_status.stock, no_status.stock_count, no_status.gpu_count) == (
        StockState.IN_STOCK,
        1,
        2,
    )
    assert no_status.price.source == "EUR/month @ 100.0 ₽/EUR"
    reserved = offers["stock:70314", "IS"]
    assert (reserved.stock, reserved.stock_count) == (StockState.OUT_OF_STOCK, 0)
    pending = offers["stock:70315", "RU"]
    assert (pending.stock, pending.stock_count) == (StockState.UNKNOWN, None)
    assert pending.price.source == "RUB/month"
    assert stocks("RU").warnings == [
        "stocks RU: stock:70315: unknown status 'pending', stock unknown"
    ]
    assert stocks("RU").skips == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1× RTX A4000 16GB", ("RTX A4000", "RTX A4000 16GB", 1, 16.0)),
        ("2× RTX 3090", ("RTX 3090", "RTX 3090", 2, 24.0)),
        ("8× A100 80GB SXM4", ("A100 80GB SXM", "A100 80GB SXM4", 8, 80.0)),
        ("1xRTX 4090 24GB", ("RTX 4090", "RTX 4090 24GB", 1, 24.0)),
        ("Tesla T4", ("T4", "Tesla T4", 1, 16.0)),
        ("1× H200 141GB", ("H200", "H200 141GB", 1, 141.0)),
    ],
)
def test_parse_gpu(text, expected):
    gpu = parse_gpu(text)
    assert gpu is not None
    assert (gpu.id, gpu.raw, gpu.count, gpu.vram_gb) == expected


@pytest.mark.parametrize("text", ["", "N/A", "Individual configuration", "0× RTX 4090", "2×"])
def test_parse_gpu_rejects_what_names_no_gpu(text):
    assert parse_gpu(text) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (510, 510.0),
        (2986.9, 2986.9),
        ("2 986,90", 2986.9),
        ("2\u00a0986.90", 2986.9),
        ("1,690.00", 1690.0),
        ("7490 ₽", 7490.0),
        ("€ 79", 79.0),
        (0, None),
        (-5, None),
        ("", None),
        ("free", None),
        (None, None),
        (True, None),
        (float("nan"), None),
        ({"EUR": 1}, None),
    ],
)
def test_parse_amount(value, expected):
    assert parse_amount(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1000, 1000.0), ("2x960", 1920.0), ("960", 960.0), ("4×3840", 15360.0), (None, None)],
)
def test_parse_disk(value, expected):
    assert parse_disk(value) == expected


@pytest.mark.parametrize(
    "parse",
    [
        parse_info,
        lambda body: parse_presets(body, "NL", {}, RATES),
        lambda body: parse_stocks(body, "NL", RATES),
    ],
)
def test_result_error_is_an_api_error_naming_the_message(parse):
    with pytest.raises(ApiError, match="presets: action required"):
        parse(ERROR_BODY)


@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ("presets_list.error_code.json", "Location not found"),  # the docs' shape, no result
        ("presets_list.error_result.json", "Unknown action"),  # a terraform mock's result -1
    ],
)
def test_error_bodies_without_result_error_are_api_errors(fixture, message):
    with pytest.raises(ApiError, match=message):
        parse_presets(load(fixture), "RU", book(), RATES)
    with pytest.raises(ApiError, match=message):
        parse_info(load(fixture))


@pytest.mark.parametrize(
    "body",
    [
        [],
        "OK",
        {"presets": []},  # no result
        {"result": "FAIL", "presets": []},
        {"result": "OK"},  # no list
        {"result": "OK", "presets": {"108": {}}},
    ],
)
def test_other_shapes_are_layout_errors(body):
    with pytest.raises(LayoutError):
        parse_presets(body, "NL", {}, RATES)


def test_info_without_names_is_a_layout_error():
    with pytest.raises(LayoutError, match="none of 2 rows"):
        parse_info({"result": "OK", "presets": [{"id": 1}, {"id": 2}]})


def test_every_gpu_row_broken_is_a_layout_error():
    # Prices moved somewhere else: every active GPU preset loses its price.
    parsed = parse_presets(load("presets_list_RU.json"), "RU", {}, RATES)
    assert not parsed.offers
    with pytest.raises(LayoutError, match="none of 8 GPU rows"):
        require_readable(parsed, "presets")
    require_readable(presets("RU"), "presets")  # one bad row among good ones is fine


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
_row_values: st.SearchStrategy[Any] = st.sampled_from(
    [None, 0, 1, -1, "", "x", "2x960", "1× RTX 4090 24GB", [], {}]
)
_rows = st.lists(
    st.dictionaries(
        st.sampled_from(["name", "id", "active", "description", "gpu", "hdd", "price", "status"])
        | st.text(max_size=4),
        _row_values | _json,
        max_size=6,
    )
    | _json,
    max_size=5,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=_json, rows=_rows)
def test_parsers_raise_only_scrape_errors(body, rows):
    for candidate in (body, {"result": "OK", "presets": rows, "servers": rows}):
        for parse in (
            parse_info,
            lambda b: parse_presets(b, "NL", book(), RATES),
            lambda b: parse_stocks(b, "NL", RATES),
        ):
            with contextlib.suppress(ScrapeError):
                parse(candidate)


# ----------------------------------------------------------------------------- over HTTP


@pytest.fixture
async def site() -> AsyncIterator[FakeSite]:
    fake = FakeSite("hostkey", routes())
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


@pytest.fixture
def scraper(site: FakeSite, http: Http) -> HostkeyScraper:
    return HostkeyScraper(http, base_url=site.base_url)


def test_scraper_api(http):
    scraper: Scraper = HostkeyScraper(http)
    assert (scraper.name, scraper.default_interval_s) == ("hostkey", 900)
    assert scraper.base_url == "https://invapi.hostkey.ru"
    assert HostkeyScraper(http, eur_rub=95.0, usd_rub=85.0).rates == Rates(95.0, 85.0)


async def test_normal_scrape(site, http, scraper):
    result = await scraper.fetch()
    assert isinstance(result, ScrapeResult)
    assert result.provider == "hostkey"
    assert dicts(result.offers) == load("scrape.expected.json")
    assert len({o.key for o in result.offers}) == len(result.offers) == 24
    # Parts: the locations info prices GPU presets in, and the stock servers.
    assert list(result.parts) == ["RU", "NL", "FI", "stock"]
    assert result.failures == {}
    assert {skip.reason for skip in result.skipped} == {
        "no GPU named",
        "row without a preset name",
        "retired (inactive and unpriced)",
        "listed for a location its `locations` does not name",
    }
    assert result.warnings == ("stocks RU: stock:70315: unknown status 'pending', stock unknown",)


async def test_requests_are_form_posts_to_the_real_paths(site, http, scraper):
    await scraper.fetch()
    assert all(r.method == "POST" and r.query == {} for r in site.requests)
    assert (site.requests[0].path, site.requests[0].form) == (
        "/presets.php",
        {"action": "info", "currencies": "RUB,EUR"},
    )
    calls = [(r.path, r.form) for r in site.requests[1:]]
    lists = [("/presets.php", {"action": "list", "location": loc}) for loc in ("RU", "NL", "FI")]
    stock = [
        ("/stocks.php", {"action": "list", "group": "GPU", "location": location})
        for location in ASSUMED.locations
    ]
    assert calls == lists + stock
    assert {"RU", "NL", "FI", "IS"} <= set(ASSUMED.locations)


async def test_locations_are_configurable(site, http):
    result = await HostkeyScraper(http, base_url=site.base_url, locations=("FI",)).fetch()
    assert {o.location for o in result.offers} == {"FI"}
    assert list(result.parts) == ["FI", "stock"]
    assert len(site.requests) == 3


async def test_changed_scrape(site, http, scraper):
    before = by_key((await scraper.fetch()).offers)
    site.mode = Mode.CHANGED
    result = await scraper.fetch()
    after = by_key(result.offers)
    assert dicts(result.offers) == load("scrape.changed.expected.json")
    # Back in stock: a preset turned active, a reserved stock server freed.
    for key in (("gpu.v3-4090x4", "NL"), ("stock:70314", "IS")):
        assert before[key].stock is StockState.OUT_OF_STOCK
        assert after[key].stock is StockState.IN_STOCK
    # Sold out: a preset turned inactive; another is no longer listed at all.
    assert before["vgpu.v2-a4000", "RU"].stock is StockState.IN_STOCK
    assert after["vgpu.v2-a4000", "RU"].stock is StockState.OUT_OF_STOCK
    assert ("vgpu.v2-a5000", "NL") in before
    assert ("vgpu.v2-a5000", "NL") not in after
    # Price drops, in RUB and in EUR.
    assert before["gpu.v3-4090t", "RU"].price.rub_per_month == 54900
    assert after["gpu.v3-4090t", "RU"].price.rub_per_month == 49900
    assert before["gpu.v3-a100x8", "NL"].price.rub_per_month == 790000
    assert after["gpu.v3-a100x8", "NL"].price.rub_per_month == 740000


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        (Mode.ERROR_500, HttpStatusError),
        (Mode.SLOW, NetworkError),
        (Mode.CAPTCHA, AntiBotError),
        (Mode.TRUNCATED, LayoutError),
        (Mode.API_ERROR, ApiError),
    ],
)
async def test_failures_are_typed_errors_of_every_part(site, http, scraper, mode, error):
    await scraper.fetch()  # a good scrape first: its GPU locations are remembered
    site.mode = mode
    result = await scraper.fetch()
    assert set(result.failures) == {"RU", "NL", "FI", "stock"}
    assert all(isinstance(e, error) for e in result.failures.values())
    assert all(e.provider == "hostkey" for e in result.failures.values())


async def test_a_host_that_is_down_is_asked_once(site, http, scraper):
    site.mode = Mode.ERROR_500
    result = await scraper.fetch()
    # Info failed after its retries; nothing else was asked, and no location is known yet.
    assert list(result.parts) == ["presets", "stock"]
    assert {r.form.get("action") for r in site.requests} == {"info"}


async def test_api_error_names_the_message(site, http, scraper):
    site.mode = Mode.API_ERROR
    result = await scraper.fetch()
    assert all("presets: action required" in e.detail for e in result.failures.values())


async def test_empty_lists_are_empty_parts_not_empty_stock(site, http, scraper):
    site.mode = Mode.EMPTY
    result = await scraper.fetch()
    assert dict(result.parts) == {"RU": (), "NL": (), "FI": (), "stock": ()}
    # Every location was asked before concluding there is nothing.
    assert len(site.requests) == 1 + 3 + len(ASSUMED.locations)


async def test_one_location_failing_keeps_the_others(site, http, scraper):
    def nl_broken(request: SiteRequest, mode: Mode) -> SiteResponse:
        if request.form.get("action") == "list" and request.form.get("location") == "NL":
            return SiteResponse(b'{"code": -1, "message": "Location not found"}')
        answer: SiteResponse = presets_handler(request, mode)
        return answer

    presets_handler = site.routes[("POST", "/presets.php")]
    site.routes[("POST", "/presets.php")] = nl_broken
    result = await scraper.fetch()
    assert set(result.failures) == {"NL"}
    assert isinstance(result.failures["NL"], ApiError)
    expected = [
        o for o in load("scrape.expected.json") if o["location"] != "NL" or "stock:" in o["sku"]
    ]
    assert dicts(result.offers) == expected


async def test_fake_rejects_a_call_without_action(site, http):
    response = await http.post_form("hostkey", f"{site.base_url}/presets.php", {})
    assert response.json("hostkey") == ERROR_BODY


def test_preset_listed_for_a_location_it_is_not_sold_in_is_skipped():
    parsed = presets("FI")
    assert ("gpu.v3-a100x8", "FI") not in by_key(parsed.offers)
    assert parsed.skips == [
        Skip("FI", "listed for a location its `locations` does not name", "gpu.v3-a100x8")
    ]


def test_a_second_row_for_the_same_offer_is_dropped_with_a_warning():
    body = load("presets_list_RU.json")
    body["presets"].append(dict(body["presets"][1], description="1× RTX 3090 24GB"))
    merged = _without_duplicates(parse_presets(body, "RU", book(), RATES))
    skus = [o.sku for o in merged.offers]
    assert skus.count("vgpu.v1-1080ti") == 1
    assert by_key(merged.offers)["vgpu.v1-1080ti", "RU"].gpu == "GTX 1080 Ti"  # the first
    assert merged.skips[-1] == Skip("RU", "listed twice (the first kept)", "vgpu.v1-1080ti @ RU")


def test_preset_without_an_active_flag_has_unknown_stock():
    body = load("presets_list_RU.json")
    for row in body["presets"]:
        row.pop("active")
        row.pop("available", None)
    parsed = parse_presets(body, "RU", book(), RATES)
    assert {o.stock for o in parsed.offers} == {StockState.UNKNOWN}
    assert parsed.warnings[-1].startswith("presets RU: no active flag on vgpu.v1-1080ti, ")
