"""Scale: what a hundred thousand subscribers cost the parts that grow with them, each figure
printed beside the 1k baseline of the same run.

* Fan-out: N subscribers match one popular change; a minute in, one more change arrives for
  one chat. Printed: one claim's time (the sender's pass, 500 rows) with N pending, and how
  many messages go before the late alert (with the delay that means at Telegram's 28 msg/s).
  Before fair claims it waited behind the whole backlog: N messages, N / 28 s.
* History: a high-change market (every offer of one GPU changes every 10 minutes), the 90-day
  answer of /api/v1/history as bot.ops.open_data builds it: the query's time, the JSON's bytes
  and gzipped bytes (the ops server compresses when asked), beside what the raw change points
  would have weighed.

    .venv/bin/python -m bench.scale [--sizes 1000,10000,100000] [--backend sqlite|postgresql|both]
        [--offers 20] [--days 120]

Refresh time at scale is bench.match's (`--store-only` for the write).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import time
from datetime import UTC, datetime, timedelta

from bench.backends import Backend, add_backend_option, chosen_backends, scratch_store
from bench.fanout import FIRST_CHAT, fill, the_event
from bot.ops.open_data import _json, _point_row
from monitor.alerts import Alert
from monitor.cards import CardFilter
from monitor.queueing import queue
from storage import Store
from storage.history_tiers import rebuild_tiers
from storage.outbox_insert import insert_alerts, prepare_alerts
from storage.sql import moment_value

RATE = 28.0  # messages per second: the sender's limiter
BATCH = 500  # the sender's claim (Sender batch_size)
LEASE = timedelta(minutes=5)
H100_80 = CardFilter(family="H100", min_vram_gb=80)  # what «/history h100 80gb» asks


async def fan_out(backend: Backend, n: int) -> tuple[float, int]:
    """(one claim's ms with n pending, messages sent before the late alert)."""
    now = datetime.now(UTC)
    async with scratch_store(backend) as store:
        await fill(store, n, now)
        if backend == "postgresql":
            async with store.database.transaction() as connection:
                await connection.execute("ANALYZE")
        started = time.perf_counter()
        first = await store.claim(
            now, limit=BATCH, per_chat=20, lease=LEASE, chat_gap=timedelta(seconds=1)
        )
        claim_ms = (time.perf_counter() - started) * 1000
        await store.mark_sent([row.id for row in first], now)
        late_chat = FIRST_CHAT + n
        later = now + timedelta(minutes=1)
        await late_alert(store, late_chat, later)
        ahead = len(first)
        while True:
            rows = await store.claim(
                later, limit=BATCH, per_chat=20, lease=LEASE, chat_gap=timedelta(seconds=1)
            )
            chats = [row.chat_id for row in rows]
            if late_chat in chats or not rows:
                return claim_ms, ahead + chats.index(late_chat) if late_chat in chats else ahead
            ahead += len(rows)
            await store.mark_sent([row.id for row in rows], later)


async def late_alert(store: Store, chat: int, at: datetime) -> None:
    event = the_event(at)
    event = type(event)(event.kind, event.offer, at, old_stock=event.old_stock)
    async with store.database.transaction() as connection:
        seen = moment_value(connection.dialect, at)
        await connection.execute(
            "INSERT INTO users (chat_id, language, timezone, created_at, last_seen_at)"
            " VALUES (?, 'ru', 'Europe/Moscow', ?, ?)",
            (chat, seen, seen),
        )
        queued = queue([Alert(chat, 10**9, event, cooldown_s=0)], now=at, last_alerts={}, holds={})
        await insert_alerts(connection, prepare_alerts(queued, at))


async def history(backend: Backend, offers: int, days: int) -> tuple[int, float, int, int, int]:
    """(rows stored, ms of the 90-day answer, its bytes, gzipped, the raw points' bytes)."""
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    async with scratch_store(backend) as store:
        dialect = store.dialect
        rows = [
            (
                f"h100-{offer}",
                moment_value(dialect, now - timedelta(minutes=ago)),
                300.0 + (ago * 7 + offer) % 50,
            )
            for offer in range(offers)
            for ago in range(10, days * 1440, 10)
        ]
        async with store.database.transaction() as connection:
            await connection.executemany(
                "INSERT INTO offer_history (provider, sku, location, gpu, gpu_count, at,"
                " price_hour, stock, stock_count, card_family, card_vram_gb) VALUES"
                " ('selectel', ?, 'MSK-1', 'H100 80GB', 1, ?, ?, 'in_stock', 1, 'H100', 80)",
                rows,
            )
            await rebuild_tiers(connection)  # as if written scrape by scrape
            if backend == "postgresql":
                await connection.execute("ANALYZE")
        since = now - timedelta(days=90)
        started = time.perf_counter()
        points = await store.price_series(H100_80, since)
        low = await store.lowest_price(H100_80, since)
        body = _json(
            {
                "points": [_point_row(point) for point in points],
                "low": None if low is None else _point_row(low),
            }
        )
        took = (time.perf_counter() - started) * 1000
        start = moment_value(dialect, since)
        raw_points = sum(1 for row in rows if str(row[1]) >= str(start))
        per_point = len(body) / max(1, len(points))
        return len(rows), took, len(body), len(gzip.compress(body)), int(raw_points * per_point)


async def main(sizes: list[int], backends: list[Backend], offers: int, days: int) -> None:
    for backend in backends:
        print(f"== {backend}")
        baseline: tuple[float, int] | None = None
        for n in sizes:
            claim_ms, ahead = await fan_out(backend, n)
            baseline = baseline or (claim_ms, ahead)
            print(
                f"fan-out {n:>7}: claim {claim_ms:6.1f} ms (1k: {baseline[0]:.1f});"
                f" late alert after {ahead} messages = {ahead / RATE:5.1f} s at {RATE:.0f} msg/s"
                f" (1k: {baseline[1]}); oldest-first order: {n} = {n / RATE:.0f} s"
            )
        stored, took, size, zipped, raw = await history(backend, offers, days)
        print(
            f"history 90 days, {offers} offers changing every 10 min ({stored} rows):"
            f" {took:.0f} ms, {size / 1000:.0f} KB JSON, {zipped / 1000:.0f} KB gzipped"
            f" (every change point: ~{raw / 1e6:.1f} MB)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="subscribers per run")
    parser.add_argument("--offers", type=int, default=20, help="offers in the history market")
    parser.add_argument("--days", type=int, default=120, help="days of history stored")
    add_backend_option(parser)
    options = parser.parse_args()
    asyncio.run(
        main(
            [int(size) for size in options.sizes.split(",")],
            chosen_backends(options.backend),
            options.offers,
            options.days,
        )
    )
