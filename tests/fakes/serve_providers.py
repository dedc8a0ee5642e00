"""Serve the three fake provider sites until interrupted, for trying things by hand:

    .venv/bin/python -m tests.fakes.serve_providers > /tmp/fake-urls &
    env $(cat /tmp/fake-urls) .venv/bin/python -m scrapers --json

`--h100-after SECONDS` starts with Selectel's 8× H100 server out of stock and puts it in
stock after that many seconds: the console demo of an alert (see README).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json

from tests.fakes.providers import (
    FIXTURES,
    FakeProviders,
    Mode,
    SiteRequest,
    SiteResponse,
    all_sites,
)

H100_CONFIG = "GL60-8-H100"


class FlippingH100:
    def __init__(self) -> None:
        self.in_stock = False

    def __call__(self, request: SiteRequest, mode: Mode) -> SiteResponse:
        document = json.loads((FIXTURES / "selectel" / "pub_service_server.json").read_text())
        for config in document["result"]:
            if config["name"] == H100_CONFIG:
                count = 1 if self.in_stock else 0
                config["available"][0]["count"] = count
                config["available"][0]["plan_count"][0]["count"] = count
        return SiteResponse(json.dumps(document).encode())


async def serve(h100_after: float | None) -> None:
    async with FakeProviders(all_sites()) as sites:
        flipper = FlippingH100()
        if h100_after is not None:
            sites["selectel"].routes[("GET", "/servers/v2/pub/service/server")] = flipper
        for name, value in sites.env().items():
            print(f"{name}={value}", flush=True)
        if h100_after is not None:
            await asyncio.sleep(h100_after)
            flipper.in_stock = True
        await asyncio.Event().wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--h100-after", type=float, default=None)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(parser.parse_args().h100_after))
