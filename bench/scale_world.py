"""What bench.scale's bot process starts on: a database with a market, N subscriptions, a
fan-out waiting in the outbox, and a year-like history of a market that changes every 10
minutes. Made in this process, through the real pipeline where the bot would make it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bench.match import Generator, fill_store
from monitor.alerts import Alert
from monitor.matcher import LiveMatcher
from monitor.pipeline import refresh
from monitor.queueing import queue
from monitor.scrape import ScrapeResult
from monitor.subscriptions import Subscription
from monitor.watch_words import parse_watch
from scrapers.__main__ import live
from scrapers.config import ScraperSettings
from storage import Store
from storage.history_tiers import rebuild_tiers
from storage.outbox_insert import insert_alerts, prepare_alerts
from storage.sql import moment_value
from tests.factories import FixedSource
from tests.fakes.providers import FakeProviders
from tests.fakes.sites.selectel import H100Control

SEED = 7
# One subscriber in ten waits for any H100 in stock, each in a chat of their own: Selectel's
# 8x H100 server coming into stock is the popular event whose fan-out the late alert meets
# (10 000 messages at 100k subscriptions). The others are bench.match's mix, three a chat.
POPULAR_SHARE = 10
FAN_CHAT = 1_000_000
LATE_CHAT = 3_000_000


def subscriptions(n: int) -> list[Subscription]:
    generator = Generator(SEED)
    popular = parse_watch("h100")
    fans = n // POPULAR_SHARE
    subs = [Subscription(sub_id, FAN_CHAT + sub_id, popular) for sub_id in range(1, fans + 1)]
    subs += [generator.subscription(sub_id) for sub_id in range(fans + 1, n + 1)]
    return subs


@dataclass(frozen=True)
class Prepared:
    index_ms: float  # the match index loaded from the store, in this process
    refresh_ms: float  # the popular event's refresh: load, match, write
    queued: int  # the alerts it queued: the fan-out
    history_rows: int


async def prepare(store: Store, sites: FakeProviders, n: int, offers: int, days: int) -> Prepared:
    """The market as the bot last saw it, `n` subscriptions, the popular event's refresh
    (timed, with the fan-out it queues), and the high-change history market."""
    settings = ScraperSettings(**sites.urls())
    server = H100Control(count=0)  # the 8x H100 server: pre-order only, for now
    server.install(sites["selectel"])
    matcher = LiveMatcher(store)
    for outcome in await live(settings, None):  # the first snapshots: a baseline, no news
        if isinstance(outcome, ScrapeResult):
            await refresh(FixedSource(outcome), store, matcher)
    await fill_store(store, subscriptions(n))
    started = time.perf_counter()
    await matcher.prepare()
    index_ms = (time.perf_counter() - started) * 1000
    server.count = 1
    (scraped,) = await live(settings, "selectel")
    assert isinstance(scraped, ScrapeResult)
    started = time.perf_counter()
    popular = await refresh(FixedSource(scraped), store, matcher)
    refresh_ms = (time.perf_counter() - started) * 1000
    rows = await high_change_history(store, offers, days)
    return Prepared(index_ms, refresh_ms, popular.alerts, rows)


async def high_change_history(store: Store, offers: int, days: int) -> int:
    """`offers` H100 offers, each changing price every 10 minutes for `days` days, as change
    points (bulk: the summaries made from them after, as a scrape by scrape would have)."""
    now = datetime.now(UTC).replace(second=0, microsecond=0)
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
        await rebuild_tiers(connection)
        if dialect == "postgresql":
            await connection.execute("ANALYZE")
    return len(rows)


async def late_alert(store: Store, event_at: datetime) -> None:
    """One more alert for one new chat, as a refresh queues it (the popular event's kind,
    another moment): it must not wait behind the fan-out."""
    from bench.fanout import the_event

    event = the_event(event_at)
    event = type(event)(event.kind, event.offer, event_at, old_stock=event.old_stock)
    async with store.database.transaction() as connection:
        seen = moment_value(connection.dialect, event_at)
        await connection.execute(
            "INSERT INTO users (chat_id, language, timezone, created_at, last_seen_at)"
            " VALUES (?, 'ru', 'Europe/Moscow', ?, ?)",
            (LATE_CHAT, seen, seen),
        )
        queued = queue(
            [Alert(LATE_CHAT, 10**9, event, cooldown_s=0)], now=event_at, last_alerts={}, holds={}
        )
        await insert_alerts(connection, prepare_alerts(queued, event_at))
