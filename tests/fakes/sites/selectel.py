"""Fake api.selectel.ru: the public servers API and the cloud price list, on the real paths.

Content modes: CHANGED serves the *.changed.json set (stock and prices moved), EMPTY serves
well-formed empty lists for the offer sources (the location list stays as it is). Every other
mode serves the normal fixtures; the generic modes are applied by FakeSite itself.
"""

from __future__ import annotations

import json

from tests.fakes.providers import FIXTURES as ALL_FIXTURES
from tests.fakes.providers import FakeSite, Mode, Routes, SiteRequest, SiteResponse

PROVIDER = "selectel"
FIXTURES = ALL_FIXTURES / PROVIDER


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


H100_CONFIG = "GL60-8-H100"  # 8× H100 SXM in MSK-7 (and MSK-1), 3 950 000 ₽/month


class H100Control:
    """A /servers/v2/pub/service/server handler: the normal fixture, with the 8× H100 server's
    stock and monthly price set by the test (the issue's "a fixture flips an H100")."""

    def __init__(self, count: int = 0, month_rub: float = 3_950_000) -> None:
        self.count = count
        self.month_rub = month_rub

    def __call__(self, request: SiteRequest, mode: Mode) -> SiteResponse:
        if mode is Mode.EMPTY:
            return SiteResponse.fixture(PROVIDER, "pub_service_server.empty.json")
        document = json.loads((FIXTURES / "pub_service_server.json").read_text(encoding="utf-8"))
        for config in document["result"]:
            if config["name"] == H100_CONFIG:
                config["available"][0]["count"] = self.count
                config["available"][0]["plan_count"][0]["count"] = self.count
                config["price_collection"]["RUB"]["month"] = self.month_rub
        return SiteResponse(json.dumps(document).encode())

    def install(self, site: FakeSite) -> None:
        site.routes[("GET", "/servers/v2/pub/service/server")] = self
