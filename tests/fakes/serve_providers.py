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

from tests.fakes.providers import (
    FakeProviders,
    all_sites,
)
from tests.fakes.sites.selectel import H100Control


async def serve(h100_after: float | None) -> None:
    async with FakeProviders(all_sites()) as sites:
        h100 = H100Control(count=0)
        if h100_after is not None:
            h100.install(sites["selectel"])
        for name, value in sites.env().items():
            print(f"{name}={value}", flush=True)
        if h100_after is not None:
            await asyncio.sleep(h100_after)
            h100.count = 1
        await asyncio.Event().wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--h100-after", type=float, default=None)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(parser.parse_args().h100_after))
