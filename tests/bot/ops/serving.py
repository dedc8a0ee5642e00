"""The open data's routes on a test server over a store, at a fixed time (the tests' clients
stand for the proxy's: deploy/compose.yaml's Caddy)."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.ops.open_data import ClientBuckets, OpenData, OpenDataStore
from monitor.providers import PROVIDERS


@asynccontextmanager
async def open_data_server(
    store: OpenDataStore, *, started: datetime, now: datetime, clock: Callable[[], float]
) -> AsyncIterator[TestServer]:
    intervals = {provider.id: float(provider.interval_s) for provider in PROVIDERS}
    open_data = OpenData(
        store,
        lambda: intervals,
        started_at=lambda: started,
        now=lambda: now,
        buckets=ClientBuckets(clock),
        trusted_proxies=(ipaddress.ip_network("127.0.0.1/32"),),
    )
    app = web.Application()
    open_data.add_routes(app)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        yield server
    finally:
        await server.close()
