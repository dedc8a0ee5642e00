"""Fake HOSTKEY InvAPI: form POSTs to /presets.php and /stocks.php, served from fixtures.

Like the real API it answers everything with HTTP 200, errors included (`result: "ERROR"`).
Locations without a fixture get a well-formed empty list. Content modes:
* CHANGED: `<name>.changed.json` where one exists (prices and stock differ), else normal;
* EMPTY: no presets and no stock servers anywhere (info stays normal: it only prices);
* API_ERROR: every call answers the error body.
"""

from __future__ import annotations

import json

from tests.fakes.providers import FIXTURES, Mode, Routes, SiteRequest, SiteResponse

PROVIDER = "hostkey"
_ERROR = "presets_list.error.json"


def routes() -> Routes:
    return {("POST", "/presets.php"): _presets, ("POST", "/stocks.php"): _stocks}


def _presets(request: SiteRequest, mode: Mode) -> SiteResponse:
    action = request.form.get("action")
    if mode is Mode.API_ERROR:
        return _fixture(_ERROR, mode)
    if action == "info":
        return _fixture("presets_info_RUB_EUR.json", mode)
    if action == "list":
        location = request.form.get("location", "")
        if mode is Mode.EMPTY:
            return _fixture("presets_list.empty.json", mode)
        return _fixture(f"presets_list_{location}.json", mode, "presets_list.empty.json")
    return _error(f"presets: unknown action {action!r}" if action else "presets: action required")


def _stocks(request: SiteRequest, mode: Mode) -> SiteResponse:
    form = request.form
    if mode is Mode.API_ERROR:
        return _fixture(_ERROR, mode)
    if form.get("action") != "list":
        return _error("stocks: action required")
    if form.get("group") not in {"ALL", "1CPU", "2CPU", "GPU", "AMD", "AMD-MODERN", "INTEL"}:
        return _error(f"stocks: unknown group {form.get('group')!r}")
    if mode is Mode.EMPTY:
        return _fixture("stocks_list.empty.json", mode)
    name = f"stocks_list_{form['group']}_{form.get('location', '')}.json"
    return _fixture(name, mode, "stocks_list.empty.json")


def _fixture(name: str, mode: Mode, fallback: str = "") -> SiteResponse:
    """`name`, its `.changed` twin in CHANGED mode, or `fallback` when there is no such file."""
    folder = FIXTURES / PROVIDER
    changed = name.removesuffix(".json") + ".changed.json"
    if mode is Mode.CHANGED and (folder / changed).exists():
        return SiteResponse.fixture(PROVIDER, changed)
    if not (folder / name).exists() and fallback:
        return SiteResponse.fixture(PROVIDER, fallback)
    return SiteResponse.fixture(PROVIDER, name)


def _error(message: str) -> SiteResponse:
    return SiteResponse(json.dumps({"result": "ERROR", "code": -1, "message": message}).encode())
