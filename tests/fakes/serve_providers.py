"""Serve the three fake provider sites until interrupted, for trying things by hand:

    .venv/bin/python -m tests.fakes.serve_providers > /tmp/fake-urls &
    env $(cat /tmp/fake-urls) .venv/bin/python -m scrapers --json

`--h100-after SECONDS` starts with Selectel's 8× H100 server out of stock and puts it in
stock after that many seconds: an alert to try by hand (`make demo` scripts the same:
tests/fakes/demo.py).

`--replay DIR` serves a recording (`python -m scrapers --record DIR`) instead of the fixtures,
on the real paths: the bot or the scrapers can then run against what the live sites said.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from pathlib import Path

from scrapers.recording import RecordingError, ReplayServer
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


async def serve_recording(folder: Path) -> None:
    async with ReplayServer(folder) as server:
        for name, value in server.env().items():
            print(f"{name}={value}", flush=True)
        await asyncio.Event().wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--h100-after", type=float, default=None)
    parser.add_argument("--replay", type=Path, metavar="DIR")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        try:
            if args.replay is not None:
                asyncio.run(serve_recording(args.replay))
            else:
                asyncio.run(serve(args.h100_after))
        except RecordingError as error:
            print(f"serve_providers: {error}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
