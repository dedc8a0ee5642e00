"""The open data under load: one client asking /api/v1/offers 1 000 times a second must be
limited without slowing the bot's replies; a revalidation (If-None-Match) must cost < 1 ms.

Part 1, against the running bot (polling the in-process fake Bot API, its ops server on
127.0.0.1, SQLite with OFFERS offers): /help latency (push to sendMessage, milliseconds)
with no API load as the baseline, then while a second process fires /api/v1/offers at the
rate asked, open loop, from one address. Prints each run's median and p99, the ratio, and
what the load got: answered 200, limited 429, failed.

Part 2, in this process: the server time (inside the aiohttp handler, by a timing
middleware) of a revalidated answer (304) beside a made one (200 for a query not asked
before, so the answer is built: offers read, JSON, hash), median and p99.

    .venv/bin/python -m bench.open_data_load [--rate 1000] [--seconds 9] [--n 150]

Targets: /help p99 under load within 1.5x of its baseline (and < 50 ms); 304 median < 1 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.app import build_application
from bot.config import Settings
from bot.fake_telegram import FakeBotApi
from bot.ops.open_data import BURST, REFILL_S, ClientBuckets, OpenData
from monitor.offers import StockState
from monitor.scrape import ScrapeResult
from storage import Store
from tests.factories import make_offer, store_snapshot

TOKEN = "777:bench"
CHAT = 42
OFFERS = 120  # the three providers list ~75 offers today; a margin for growth
SLOT_S = 1 / Settings.model_validate({}).send_rate
GPUS = ("H100 SXM", "A100 80GB", "RTX 4090", "L40S", "RTX A5000", "Tesla T4")


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def seed(db_path: Path) -> None:
    store = await Store.open(db_path)
    try:
        at = datetime.now(UTC) - timedelta(minutes=3)
        for number, provider in enumerate(("selectel", "hostkey", "immers")):
            offers = tuple(
                make_offer(
                    f"{provider}-{i}",
                    50.0 + 37 * i + number,
                    StockState.IN_STOCK if i % 3 else StockState.OUT_OF_STOCK,
                    provider=provider,
                    gpu=GPUS[i % len(GPUS)],
                    gpu_count=1 + i % 4,
                )
                for i in range(OFFERS // 3)
            )
            await store_snapshot(store, ScrapeResult(provider, offers, at))
    finally:
        await store.close()


async def help_latency(api: FakeBotApi, n: int) -> list[float]:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        await api.wait_confirmed(api.push_message(CHAT, "/help"))
        samples.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(SLOT_S)  # one per send slot: measure the bot, not the pacing
    return samples


def start_load(url: str, rate: float, seconds: float) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "bench.open_data_load", "--client", url]
    command += ["--rate", str(rate), "--seconds", str(seconds)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


async def client(url: str, rate: float, seconds: float) -> None:
    """The load: `rate` requests a second for `seconds`, each started on its own schedule
    (open loop: a slow answer does not slow the asking), from one address."""
    statuses: Counter[str] = Counter()

    async def one(session: aiohttp.ClientSession) -> None:
        try:
            async with session.get(url) as response:
                await response.read()
                statuses[str(response.status)] += 1
        except aiohttp.ClientError as error:
            statuses[type(error).__name__] += 1

    connector = aiohttp.TCPConnector(limit=200)
    async with aiohttp.ClientSession(connector=connector) as session:
        tasks = []
        started = time.perf_counter()
        total = int(rate * seconds)
        for i in range(total):
            delay = started + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(session)))
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - started
    print(json.dumps({"sent": total, "seconds": round(elapsed, 2), "statuses": statuses}))


async def part_one(n: int, rate: float, seconds: float) -> None:
    api = FakeBotApi()
    await api.start()
    with tempfile.TemporaryDirectory() as folder:
        db_path = Path(folder) / "load.sqlite3"
        await seed(db_path)
        settings = Settings.model_validate(
            {"db_path": db_path, "monitor": False, "ops_host": "127.0.0.1", "ops_port": 0}
        )
        app = await build_application(
            settings, token=TOKEN, api_url=api.base_url, throttle_interval=0.0
        )
        polling = asyncio.create_task(app.run_polling(handle_signals=False))
        await api.wait_for_call("getMe")
        try:
            await api.wait_confirmed(api.push_message(CHAT, "/start"))
            await help_latency(api, 20)  # warm-up
            baseline = await help_latency(api, n)
            assert app.ops is not None
            url = f"http://127.0.0.1:{app.ops.port}/api/v1/offers"
            load = start_load(url, rate, seconds)
            await asyncio.sleep(0.5)  # the client is up and firing
            loaded = await help_latency(api, n)
            out, _ = await asyncio.to_thread(load.communicate)
        finally:
            await app.stop()
            await polling
            await app.close()
            await api.stop()
    got = json.loads(out)
    print(f"/help latency, n={n} each; load: {rate:g} req/s of /api/v1/offers from one client")
    print(f"{'run':<28}{'median ms':>10}{'p99 ms':>9}")
    for name, samples in (("no API load (baseline)", baseline), ("under API load", loaded)):
        print(f"{name:<28}{statistics.median(samples):>10.2f}{percentile(samples, 0.99):>9.2f}")
    ratio = percentile(loaded, 0.99) / percentile(baseline, 0.99)
    print(f"p99 under load / baseline p99: {ratio:.2f}x")
    statuses = got["statuses"]
    print(
        f"load: {got['sent']} sent in {got['seconds']} s ({got['sent'] / got['seconds']:.0f}/s);"
        f" 200: {statuses.get('200', 0)}, 429: {statuses.get('429', 0)},"
        f" other: {sum(v for k, v in statuses.items() if k not in ('200', '429'))}"
    )


async def part_two(runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        db_path = Path(folder) / "etag.sqlite3"
        await seed(db_path)
        store = await Store.open(db_path)
        server_ms: list[float] = []

        @web.middleware
        async def timing(
            request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
        ) -> web.StreamResponse:
            started = time.perf_counter()
            response = await handler(request)
            server_ms.append((time.perf_counter() - started) * 1000)
            return response

        # A clock that jumps a full bucket's refill at every look: this part times answers,
        # not the limit.
        ticks = itertools.count(0.0, BURST * REFILL_S)
        buckets = ClientBuckets(lambda: next(ticks))
        open_data = OpenData(store, dict, started_at=lambda: datetime.now(UTC), buckets=buckets)
        app = web.Application(middlewares=[timing])
        open_data.add_routes(app)
        server = TestServer(app, host="127.0.0.1")
        await server.start_server()
        try:
            async with aiohttp.ClientSession() as session:
                base = str(server.make_url("/api/v1/offers"))
                async with session.get(base) as response:
                    etag = response.headers["ETag"]
                made, revalidated = [], []
                for i in range(runs):
                    # A cap no offer reaches: the whole list, a query not asked before.
                    async with session.get(f"{base}?max={100_000 + i}") as response:
                        assert response.status == 200
                    made.append(server_ms[-1])
                    async with session.get(base, headers={"If-None-Match": etag}) as response:
                        assert response.status == 304
                    revalidated.append(server_ms[-1])
        finally:
            await server.close()
            await store.close()
    print(f"\nserver time of /api/v1/offers ({OFFERS} offers, SQLite), n={runs} each")
    print(f"{'answer':<28}{'median ms':>10}{'p99 ms':>9}")
    for name, samples in (("made (200, baseline)", made), ("revalidated (304)", revalidated)):
        print(f"{name:<28}{statistics.median(samples):>10.3f}{percentile(samples, 0.99):>9.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=1000.0)
    # Longer than the loaded /help run (150 x ~40 ms), which starts half a second in.
    parser.add_argument("--seconds", type=float, default=9.0)
    parser.add_argument("--n", type=int, default=150, help="/help samples per run")
    parser.add_argument("--runs", type=int, default=500, help="answers timed in part 2")
    parser.add_argument("--client", help=argparse.SUPPRESS)  # the load process
    args = parser.parse_args()
    if args.client:
        asyncio.run(client(args.client, args.rate, args.seconds))
        return
    asyncio.run(part_one(args.n, args.rate, args.seconds))
    asyncio.run(part_two(args.runs))


if __name__ == "__main__":
    main()
