"""Fake immers.cloud: `GET /gpu/` and `GET /gpu/<slug>/` serving tests/fixtures/immers/.

Content modes: CHANGED serves the `.changed` pages (3090: a sold-out flavor is back, another
is cheaper; 4090: a price drop), EMPTY an index that links no model, REORDERED the 4090 page
with its columns in another order and RAM in GB. Anything else gets the normal pages.
"""

from __future__ import annotations

from collections.abc import Mapping

from tests.fakes.providers import Mode, RouteHandler, Routes, SiteRequest, SiteResponse

PROVIDER = "immers"
# slug -> fixture file, in the index's order
PAGES: Mapping[str, str] = {
    "t4": "gpu_t4.html",
    "3080": "gpu_3080.html",
    "3090": "gpu_3090.html",
    "a10": "gpu_a10.html",
    "4090": "gpu_4090.html",
    "a100": "gpu_a100.html",
    "h100": "gpu_h100.html",
}
OVERRIDES: Mapping[Mode, Mapping[str, str]] = {
    Mode.CHANGED: {"3090": "gpu_3090.changed.html", "4090": "gpu_4090.changed.html"},
    Mode.REORDERED: {"4090": "gpu_4090.reordered.html"},
}


def _index(request: SiteRequest, mode: Mode) -> SiteResponse:
    name = "gpu_index.empty.html" if mode is Mode.EMPTY else "gpu_index.html"
    return SiteResponse.fixture(PROVIDER, name)


def page_handler(slug: str, normal: str | None = None) -> RouteHandler:
    """The handler for `/gpu/<slug>/`; `normal` replaces the usual fixture (a test's drift)."""

    def handle(request: SiteRequest, mode: Mode) -> SiteResponse:
        name = OVERRIDES.get(mode, {}).get(slug) or normal or PAGES[slug]
        return SiteResponse.fixture(PROVIDER, name)

    return handle


def routes() -> Routes:
    table: Routes = {("GET", "/gpu/"): _index}
    for slug in PAGES:
        table[("GET", f"/gpu/{slug}/")] = page_handler(slug)
    return table
