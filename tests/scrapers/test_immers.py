"""immers.cloud: the HTML parsers against the fixtures, and the scraper over real HTTP."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.offers import StockState, Vat
from monitor.scrape import (
    AntiBotError,
    HttpStatusError,
    LayoutError,
    NetworkError,
    ScrapeResult,
    Skip,
)
from scrapers.http import Http
from scrapers.immers import ImmersScraper
from scrapers.immers_parse import (
    ASSUMED,
    PageOffers,
    heading_vram,
    parse_index,
    parse_model_page,
    parse_ru_number,
)
from scrapers.records import offer_record
from tests.fakes.providers import FakeSite, Mode, SiteResponse
from tests.fakes.sites import immers as site

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "immers"
SLUGS = ["t4", "3080", "3090", "a10", "4090", "a100", "h100"]
# fixture -> (slug, expected JSON, skipped rows)
PAGES = {
    "gpu_t4.html": ("t4", "gpu_t4.expected.json", 0),
    "gpu_3080.html": ("3080", "gpu_3080.expected.json", 1),  # the row with 3 cells
    "gpu_3090.html": ("3090", "gpu_3090.expected.json", 0),
    "gpu_a10.html": ("a10", "gpu_a10.expected.json", 0),
    "gpu_4090.html": ("4090", "gpu_4090.expected.json", 1),  # the "—" price
    "gpu_a100.html": ("a100", "gpu_a100.expected.json", 0),
    "gpu_h100.html": ("h100", "gpu_h100.expected.json", 0),
    "gpu_4090.reordered.html": ("4090", "gpu_4090.expected.json", 1),  # the same offers
    "gpu_3090.changed.html": ("3090", "gpu_3090.changed.expected.json", 0),
    "gpu_4090.changed.html": ("4090", "gpu_4090.changed.expected.json", 1),
}


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def expected(name: str) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(fixture(name))
    return data


def all_expected(changed: bool = False) -> list[dict[str, Any]]:
    names = {slug: f"gpu_{slug}.expected.json" for slug in SLUGS}
    if changed:
        names |= {
            "3090": "gpu_3090.changed.expected.json",
            "4090": "gpu_4090.changed.expected.json",
        }
    return [offer for slug in SLUGS for offer in expected(names[slug])]


def page(name: str, slug: str = "4090") -> PageOffers:
    return parse_model_page(fixture(name), slug)


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("82,76 ₽", 82.76),
        ("1\u00a0045,10 ₽", 1045.10),  # NBSP thousands
        ("1\u2009045,10\u00a0₽", 1045.10),  # thin space thousands
        ("1\u202f045,10", 1045.10),  # narrow NBSP thousands
        ("670,97\u202f₽", 670.97),
        ("38 ₽", 38.0),
        ("229,50 ₽/час", 229.5),
        ("342,00 руб.", 342.0),
        ("16384", 16384.0),
        ("131 072", 131072.0),
        (" 8 ", 8.0),
    ],
)
def test_russian_numbers(text: str, value: float) -> None:
    assert parse_ru_number(text) == pytest.approx(value)


@pytest.mark.parametrize(
    "text", ["—", "", "abc", "10 45", "от 82,76 ₽", "82,76 $", "1,2,3", "9" * 400 + ",27 ₽"]
)
def test_not_numbers(text: str) -> None:
    assert parse_ru_number(text) is None


def test_heading_vram() -> None:
    assert heading_vram("NVIDIA A100 80 ГБ") == 80
    assert heading_vram("NVIDIA A100 40GB PCIe") == 40
    assert heading_vram("NVIDIA A100") is None


# --------------------------------------------------------------------------- parsers


def test_index_lists_each_model_once_in_page_order() -> None:
    slugs: list[str] = json.loads(fixture("gpu_index.expected.json"))
    assert slugs == SLUGS
    assert parse_index(fixture("gpu_index.html")) == slugs


def test_index_skips_slugs_assumed_not_to_be_models() -> None:
    not_a10 = replace(ASSUMED, ignored_slugs=frozenset({"a10"}))
    assert parse_index(fixture("gpu_index.html"), not_a10) == [s for s in SLUGS if s != "a10"]


def test_index_ignores_broken_links() -> None:
    html = fixture("gpu_index.html").replace('href="/gpu/t4/"', 'href="http://[/gpu/t4/"', 1)
    assert parse_index(html) == SLUGS  # t4 is linked twice: the second link still counts


def test_markup_html_parser_chokes_on_is_a_layout_error() -> None:
    # html.parser raises a bare AssertionError on this declaration (found by the fuzzer).
    with pytest.raises(LayoutError, match="malformed markup"):
        parse_index("<html><body><![\x00CDATA[= </body></html>")


def test_index_without_models_is_a_layout_error() -> None:
    with pytest.raises(LayoutError, match="links no GPU model"):
        parse_index(fixture("gpu_index.empty.html"))


@pytest.mark.parametrize("name", sorted(PAGES))
def test_page_matches_expected(name: str) -> None:
    slug, expected_name, warnings = PAGES[name]
    parsed = parse_model_page((FIXTURES / name).read_bytes(), slug)
    assert [offer_record(offer) for offer in parsed.offers] == expected(expected_name)
    assert len(parsed.skips) == warnings


def test_offer_details() -> None:
    (first, *_) = page("gpu_4090.html").offers
    assert (first.vcpu, first.ram_gb, first.disk_gb) == (8, 16.0, 40.0)
    assert first.gpu_known
    assert first.vat is Vat.UNKNOWN
    assert first.price.source == "RUB/hour"
    assert not first.price.converted
    assert first.title == "NVIDIA GeForce RTX 4090 24 ГБ"


def test_stock_is_unknown_unless_marked() -> None:
    stocks = {o.sku: o.stock for o in page("gpu_3090.html", "3090").offers}
    assert stocks == {
        "rtx3090-1.8.32.80": StockState.UNKNOWN,
        "rtx3090-1.16.64.160": StockState.OUT_OF_STOCK,  # the "нет в наличии" badge
    }
    h100 = {o.sku: o.stock for o in page("gpu_h100.html", "h100").offers}
    assert h100 == {
        "teslah100-1.16.64.160": StockState.UNKNOWN,  # a «Запустить» button: still unknown
        "teslah100-1.16.64.240": StockState.UNKNOWN,
        "teslah100-1.16.64.320": StockState.OUT_OF_STOCK,  # the disabled button
    }


def test_skipped_rows_are_reported_by_name() -> None:
    assert page("gpu_4090.html").skips == (Skip("4090", "no price", "rtx4090-2.16.64.160"),)
    (skip,) = page("gpu_3080.html", "3080").skips
    assert skip.reason == "a row with 3 of 6 cells"
    assert "rtx3080-1.16.32.80" in skip.item


def test_cpu_flavor_is_filtered_silently() -> None:
    parsed = page("gpu_t4.html", "t4")
    assert "cpu.8.32.160" in fixture("gpu_t4.html")
    assert all(o.sku.startswith("teslat4-") for o in parsed.offers)
    assert not parsed.warnings
    assert not parsed.skips


def test_a100_memory_comes_from_the_heading() -> None:
    html = fixture("gpu_a100.html").replace("A100 80 ГБ", "A100 40 ГБ")
    (offer,) = parse_model_page(html, "a100").offers
    assert (offer.gpu, offer.vram_gb) == ("A100 40GB PCIe", 40)
    no_size = parse_model_page(fixture("gpu_a100.html").replace("A100 80 ГБ", "A100"), "a100")
    assert (no_size.offers[0].gpu, no_size.offers[0].vram_gb) == ("A100 PCIe", None)
    assert "GPU memory unknown" in no_size.warnings[0]


def test_unknown_prefix_is_kept_raw() -> None:
    html = fixture("gpu_h100.html").replace("teslah100-1.", "mystery9000-1.")
    (offer, *_) = parse_model_page(html, "h100").offers
    assert (offer.gpu, offer.gpu_raw, offer.gpu_known) == ("mystery9000", "mystery9000", False)
    assert offer.vram_gb == 80  # from the heading


@pytest.mark.parametrize(
    ("prefix", "gpu"),
    [
        ("teslah100", "H100 PCIe"),  # seen in real use; the PCIe form is a hint (ASSUMED)
        ("h100", "H100 PCIe"),  # the older spelling still reads
        ("teslaa10", "A10"),
        ("teslat4", "T4"),
        ("rtx4090", "RTX 4090"),
        ("rtx5090", "RTX 5090"),  # no table entry needed: read from the text
        ("gtx1080ti", "GTX 1080 Ti"),
    ],
)
def test_the_gpu_is_read_from_the_flavor_text(prefix: str, gpu: str) -> None:
    html = fixture("gpu_h100.html").replace("teslah100-1.", f"{prefix}-1.")
    html = html.replace("NVIDIA H100 80 ГБ", "NVIDIA")  # no memory in the heading
    (offer, *_) = parse_model_page(html, "x").offers
    assert (offer.gpu, offer.gpu_known, offer.gpu_raw) == (gpu, True, prefix)


def test_page_without_a_table_is_a_layout_error() -> None:
    with pytest.raises(LayoutError, match="no tariff table"):
        page("gpu_empty.html")


def test_cut_off_page_is_a_layout_error() -> None:
    body = (FIXTURES / "gpu_4090.html").read_bytes()
    with pytest.raises(LayoutError, match="cut off"):
        parse_model_page(body[: len(body) // 2], "4090")
    with pytest.raises(LayoutError, match="cut off"):
        parse_index(fixture("gpu_index.html").replace("</html>", ""))


def test_table_contradicting_the_flavor_name_is_a_layout_error() -> None:
    # RAM swapped with disk, as if the columns moved under the same headers.
    html = fixture("gpu_4090.html").replace(
        "<td>16384</td><td>40</td>", "<td>40</td><td>16384</td>"
    )
    with pytest.raises(LayoutError, match=r"rtx4090-1\.8\.16\.40: RAM GB"):
        parse_model_page(html, "4090")


def test_ram_in_gb_under_an_mb_header_is_a_layout_error() -> None:
    html = fixture("gpu_4090.reordered.html").replace("RAM,&nbsp;ГБ", "RAM, МБ")
    with pytest.raises(LayoutError, match="columns changed"):
        parse_model_page(html, "4090")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("<th>vCPU</th>", "<th>Процессор</th>", "no vcpu column"),
        ("<th>Цена за час</th>", "<th>Цена за месяц</th>", "per month"),
        ("<th>Диск, ГБ</th>", "<th>RAM, ГБ</th>", "two columns"),
    ],
)
def test_header_changes_are_layout_errors(old: str, new: str, message: str) -> None:
    html = fixture("gpu_4090.html").replace(old, new)
    with pytest.raises(LayoutError, match=message):
        parse_model_page(html, "4090")


def test_a_table_of_only_unreadable_rows_is_a_layout_error() -> None:
    html = fixture("gpu_t4.html").replace("24,90 ₽", "n/a").replace("31,60 ₽", "n/a")
    with pytest.raises(LayoutError, match="no row of the tariff table reads"):
        parse_model_page(html, "t4")


def test_an_unreadable_price_is_skipped_with_the_reason() -> None:
    parsed = parse_model_page(fixture("gpu_t4.html").replace("24,90 ₽", "по запросу"), "t4")
    assert [o.sku for o in parsed.offers] == ["teslat4-1.8.32.80"]
    assert parsed.skips == (Skip("t4", "unreadable price 'по запросу'", "teslat4-1.4.16.40"),)


def test_assumed_facts_in_one_place() -> None:
    assert ASSUMED.location == "ru"
    assert ASSUMED.vat is Vat.UNKNOWN
    assert ASSUMED.model_hints["h100"].form == "PCIe"
    assert ASSUMED.max_model_pages == 40


def _index_of(slugs: list[str]) -> str:
    cards = "".join(f'<a href="/gpu/{slug}/">{slug}</a>\n' for slug in slugs)
    return f"<!DOCTYPE html><html><body>{cards}</body></html>"


def test_an_index_with_more_model_pages_than_the_cap_is_refused() -> None:
    with pytest.raises(LayoutError, match="40000 model pages, more than the 40"):
        parse_index(_index_of([f"m{i}" for i in range(40_000)]))


def test_many_links_to_few_models_read_as_those_models() -> None:
    assert parse_index(_index_of(SLUGS * 6_000)) == SLUGS


@settings(max_examples=150, deadline=None)
@given(cut=st.integers(min_value=0, max_value=10_000), junk=st.text(max_size=40))
def test_damaged_pages_give_offers_or_a_layout_error(cut: int, junk: str) -> None:
    """Whatever a page turns into, the parser answers with offers or a LayoutError."""
    html = fixture("gpu_4090.html")
    damaged = html[: cut % len(html)] + junk + html[cut % len(html) :]
    try:
        parsed = parse_model_page(damaged, "4090")
    except LayoutError:
        return
    assert all(offer.price.rub_per_hour > 0 for offer in parsed.offers)


# --------------------------------------------------------------------------- over HTTP


@pytest.fixture
async def fake() -> AsyncIterator[FakeSite]:
    server = FakeSite("immers", site.routes())
    await server.start()
    yield server
    await server.stop()


async def scrape(fake: FakeSite, http: Http, mode: Mode = Mode.NORMAL) -> ScrapeResult:
    fake.mode = mode
    return await ImmersScraper(http, base_url=fake.base_url + "/").fetch()


async def test_normal_scrape(fake: FakeSite, http: Http) -> None:
    result = await scrape(fake, http)
    assert result.provider == "immers"
    assert [offer_record(offer) for offer in result.offers] == all_expected()
    assert len(result.offers) == 15
    assert list(result.parts) == SLUGS  # one part per model page
    assert result.failures == {}
    assert len(result.skipped) == 2
    # The real paths, index first, each model page once, plain GETs without parameters.
    paths = ["/gpu/"] + [f"/gpu/{slug}/" for slug in SLUGS]
    assert [(r.method, r.path, r.query, r.form) for r in fake.requests] == [
        ("GET", path, {}, {}) for path in paths
    ]


async def test_changed_scrape(fake: FakeSite, http: Http) -> None:
    before = {o.sku: o for o in (await scrape(fake, http)).offers}
    after = {o.sku: o for o in (await scrape(fake, http, Mode.CHANGED)).offers}
    assert [offer_record(offer) for offer in after.values()] == all_expected(changed=True)
    back = "rtx3090-1.16.64.160"
    assert (before[back].stock, after[back].stock) == (StockState.OUT_OF_STOCK, StockState.UNKNOWN)
    for sku, old, new in [("rtx3090-1.8.32.80", 58.40, 54.90), ("rtx4090-1.8.16.40", 82.76, 77.50)]:
        assert before[sku].price.rub_per_hour == pytest.approx(old)
        assert after[sku].price.rub_per_hour == pytest.approx(new)
    same = set(before) - {back, "rtx3090-1.8.32.80", "rtx4090-1.8.16.40"}
    assert all(before[sku] == after[sku] for sku in same)


async def test_reordered_columns_give_the_same_offers(fake: FakeSite, http: Http) -> None:
    result = await scrape(fake, http, Mode.REORDERED)
    assert [offer_record(offer) for offer in result.offers] == all_expected()


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
async def test_an_index_failure_fails_the_scrape(
    fake: FakeSite, http: Http, mode: Mode, error: type[Exception]
) -> None:
    with pytest.raises(error) as raised:
        await scrape(fake, http, mode)
    assert getattr(raised.value, "provider", None) == "immers"
    if mode is Mode.EMPTY:
        assert "links no GPU model" in str(raised.value)


async def test_one_model_page_without_a_table_fails_that_part(fake: FakeSite, http: Http) -> None:
    fake.routes[("GET", "/gpu/4090/")] = site.page_handler("4090", normal="gpu_empty.html")
    result = await scrape(fake, http)
    assert set(result.failures) == {"4090"}
    assert "/gpu/4090/: no tariff table" in result.failures["4090"].detail
    assert [o.sku for o in result.offers if o.url.endswith("/t4/")] == [
        "teslat4-1.4.16.40",
        "teslat4-1.8.32.80",
    ]


async def test_a_linked_page_that_is_gone_fails_that_part(fake: FakeSite, http: Http) -> None:
    del fake.routes[("GET", "/gpu/h100/")]
    result = await scrape(fake, http)
    failure = result.failures["h100"]
    assert isinstance(failure, HttpStatusError)
    assert failure.status == 404
    assert set(result.failures) == {"h100"}


async def test_a_captcha_on_one_page_fails_that_part(fake: FakeSite, http: Http) -> None:
    fake.path_modes["/gpu/a10/"] = Mode.CAPTCHA
    result = await scrape(fake, http)
    assert set(result.failures) == {"a10"}
    assert isinstance(result.failures["a10"], AntiBotError)


def test_scraper_api(http: Http) -> None:
    scraper = ImmersScraper(http)
    assert (scraper.name, scraper.default_interval_s) == ("immers", 900)
    assert scraper.base_url == "https://immers.cloud"


async def test_a_90_kb_page_that_loads_recaptcha_parses_normally(
    fake: FakeSite, http: Http
) -> None:
    """The page's own feedback form loads reCAPTCHA; the tariff table is there: not a bot
    check. A challenge page (no table) on the same path is one."""
    normal = fixture("gpu_4090.html")
    script = '<script src="https://www.google.com/recaptcha/api.js" async defer></script>'
    form = '<form class="feedback"><div class="g-recaptcha" data-sitekey="x"></div></form>'
    filler = "<p>" + "Облачные серверы с GPU для обучения и инференса. " * 30 + "</p>\n"
    page = normal.replace("</head>", script + "</head>").replace("<main", form + "<main")
    page = page.replace("</main>", "</main>" + filler * 50)
    assert len(page.encode()) > 90_000
    fake.routes[("GET", "/gpu/4090/")] = lambda r, m: SiteResponse(page.encode(), "text/html")
    result = await scrape(fake, http)
    assert result.failures == {}
    assert [offer_record(o) for o in result.offers] == all_expected()
    fake.path_modes["/gpu/4090/"] = Mode.CAPTCHA
    result = await scrape(fake, http)
    assert isinstance(result.failures["4090"], AntiBotError)
