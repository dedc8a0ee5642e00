"""Fake api.selectel.ru: the public servers API and the cloud price list, on the real paths.

Content modes: CHANGED serves the *.changed.json set (stock and prices moved), EMPTY serves
well-formed empty lists for the offer sources (the location list stays as it is). Every other
mode serves the normal fixtures; the generic modes are applied by FakeSite itself.
"""

from __future__ import annotations

from tests.fakes.providers import Mode, Routes, SiteRequest, SiteResponse

PROVIDER = "selectel"


def _variant(name: str, mode: Mode, *, empty: str, changed: str | None = None) -> SiteResponse:
    if mode is Mode.EMPTY:
        return SiteResponse.fixture(PROVIDER, empty)
    if mode is Mode.CHANGED and changed is not None:
        return SiteResponse.fixture(PROVIDER, changed)
    return SiteResponse.fixture(PROVIDER, name)


def location(request: SiteRequest, mode: Mode) -> SiteResponse:
    return SiteResponse.fixture(PROVIDER, "pub_location.json")


def server(request: SiteRequest, mode: Mode) -> SiteResponse:
    return _variant(
        "pub_service_server.json",
        mode,
        empty="pub_service_server.empty.json",
        changed="pub_service_server.changed.json",
    )


def serverchip(request: SiteRequest, mode: Mode) -> SiteResponse:
    return _variant("pub_service_serverchip.json", mode, empty="pub_service_server.empty.json")


def prices_vpc(request: SiteRequest, mode: Mode) -> SiteResponse:
    if request.query.get("currency") != "rub":
        # The scraper must ask for roubles; without it the test sees a 400, not a quiet pass.
        return SiteResponse(b'{"error": "currency is required"}', status=400)
    return _variant(
        "prices_vpc.json", mode, empty="prices_vpc.empty.json", changed="prices_vpc.changed.json"
    )


def routes() -> Routes:
    return {
        ("GET", "/servers/v2/pub/location"): location,
        ("GET", "/servers/v2/pub/service/server"): server,
        ("GET", "/servers/v2/pub/service/serverchip"): serverchip,
        ("GET", "/prices/vpc"): prices_vpc,
    }
