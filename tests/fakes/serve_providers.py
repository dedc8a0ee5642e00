"""Serve the three fake provider sites until interrupted, for trying the CLI by hand:

.venv/bin/python -m tests.fakes.serve_providers      # prints the GPURADAR_*_URL lines
env $(cat /tmp/fake-urls) .venv/bin/python -m scrapers --json
"""

from __future__ import annotations

import asyncio
import contextlib

from tests.fakes.providers import FakeProviders, all_sites


async def serve() -> None:
    async with FakeProviders(all_sites()) as sites:
        for name, value in sites.env().items():
            print(f"{name}={value}", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
