"""Matching cost: random subscriptions over the GPU catalog against one refresh of events.

For 10k and 100k subscriptions (a mix of exact GPUs, families, fits and "any GPU with at
least N GB", most with a price cap, some tied to a provider, location or GPU count) and 1k
random events, prints the milliseconds of one `MatchIndex.match` (the median of several runs),
the alerts it produced, and a naive scan of every subscription for the same events as the
baseline (timed on a sample of events and scaled to 1k, since the full scan takes minutes).

A third row keeps the 10k subscriptions and adds 90k that wait for prices the market never
reaches: if matching grows with the matches and not with the subscriptions, that row costs
about what the 10k row costs.

Then, on a real SQLite store with 100k subscriptions: how long one refresh
that queues ~20k alerts takes to load what it decides on (snapshot, part runs, live cooldowns,
held chats; no lock held after it) and holds the write transaction of its commit (snapshot,
history, parts, health, the outbox rows), and again when all 20k are cooling down; and how
long the live index takes to follow one subscription change, beside the full rebuild it
replaced.

    .venv/bin/python -m bench.match [--events 1000] [--seed 7] [--runs 5] [--alerts 20000]

Targets: < 200 ms for 100k x 1k in memory, growing with the matches; the refresh's write
transaction < 300 ms at 20k alerts, a subscription change < 5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import partial

from bench.backends import Backend, add_backend_option, chosen_backends, scratch_database
from estimator.gpus import get, load_gpus
from estimator.specs import GpuSpec
from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.match_index import MatchIndex
from monitor.match_rules import naive_match
from monitor.matcher import LiveMatcher
from monitor.offers import Offer, Price, StockState
from monitor.pipeline import refresh
from monitor.plan import RefreshState
from monitor.providers import PROVIDERS as REGISTRY
from monitor.scrape import ScrapeResult
from monitor.subscriptions import AlertKind, Subscription, WatchEdit, WatchFilter
from monitor.watch_words import parse_watch
from storage import Store
from storage.migrations import migrate
from storage.sql import Connection, Database, Dialect, WriteFault, moment_value
from storage.subscriptions import filter_to_json
from tests.factories import FixedSource

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
PROVIDERS = REGISTRY.ids
LOCATIONS = ("MSK-1", "MSK-2", "SPB-1", "Novosibirsk")
FIT_QUERIES = (
    "7b qlora",
    "8b lora ctx=4096",
    "13b lora",
    "13b full",
    "34b qlora",
    "70b qlora ctx=8192",
    "70b lora",
    "8b full ctx=8192",
)
RAW_NAMES = ("A100 80GB", "H100", "A100", "Tesla V100 32GB")  # offers the catalog can't pin
# A refresh is mostly price moves and stock going out; arrivals are the rarer, valuable part.
EVENT_KINDS = (
    (EventKind.APPEARED, 10),
    (EventKind.NEW_OFFER, 5),
    (EventKind.PRICE_DROP, 20),
    (EventKind.PRICE_RISE, 20),
    (EventKind.SOLD_OUT, 25),
    (EventKind.REMOVED, 20),
)
# Most price alerts wait for a deal. An uncapped one ("any H100 in stock") hears of every
# restock of its card, which is why few people keep them: each is a stream of messages.
CAPPED = 0.95
NAIVE_SAMPLE = 50  # events the naive scan is timed on
ALERTABLE = (EventKind.APPEARED, EventKind.NEW_OFFER, EventKind.PRICE_DROP)


def market_price(gpu: GpuSpec) -> float:
    """A rough ₽ per GPU-hour for a card, so caps and prices land in the same range."""
    return 20.0 + 2.8 * gpu.vram_gb


class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.gpus = load_gpus()
        self.families = sorted({g.family for g in self.gpus})
        # A fit table takes the estimator a few ms: compute the handful of queries once.
        self.fits = [parse_watch(query) for query in FIT_QUERIES]

    def subscription(self, sub_id: int, *, below_market: bool = False) -> Subscription:
        """A plausible subscription: mostly one card or family, most waiting for a deal."""
        rng = self.rng
        gpu = rng.choice(self.gpus)
        roll = rng.random()
        if roll < 0.60:
            watch = WatchFilter(gpu=gpu.id)
        elif roll < 0.85:
            watch = WatchFilter(family=gpu.family)
        elif roll < 0.97:
            watch = rng.choice(self.fits)
            # Priced against the cheapest card that holds the run: that is the deal awaited.
            gpu = min((get(gpu_id) for gpu_id in watch.fit_need or {}), key=market_price)
        else:
            vram = rng.choice((24, 48, 80))
            watch = WatchFilter(min_vram_gb=vram)
            gpu = min((g for g in self.gpus if g.vram_gb >= vram), key=market_price)
        cap: float | None = None
        if below_market:  # waits for a price no offer here ever has (< 0.8 x the cheapest)
            cap = round(rng.uniform(5, 25))
        elif rng.random() < CAPPED:  # a deal: somewhere under today's market
            cap = round(market_price(gpu) * rng.uniform(0.5, 1.05))
        kinds = {AlertKind.IN_STOCK} | ({AlertKind.BELOW_TARGET} if cap else set())
        if rng.random() < 0.15:
            kinds.add(AlertKind.PRICE_DROP)
        watch = replace(
            watch,
            max_rub_per_gpu_hour=cap,
            kinds=frozenset(kinds),
            providers=frozenset({rng.choice(PROVIDERS)}) if rng.random() < 0.3 else frozenset(),
            location=rng.choice(("msk", "spb")) if rng.random() < 0.05 else None,
            min_count=rng.choice((2, 4, 8)) if rng.random() < 0.1 else None,
        )
        return Subscription(sub_id, chat_id=sub_id // 3, filter=watch)

    def event(self, number: int) -> Event:
        rng = self.rng
        gpu = rng.choice(self.gpus)
        raw = rng.random() < 0.1
        name = rng.choice(RAW_NAMES) if raw else gpu.id
        count = rng.choice((1, 1, 1, 2, 4, 8))
        per_gpu = market_price(gpu) * rng.uniform(0.8, 1.3)
        kind = rng.choices([k for k, _ in EVENT_KINDS], [w for _, w in EVENT_KINDS])[0]
        stock = StockState.UNKNOWN if kind is EventKind.NEW_OFFER else StockState.IN_STOCK
        if kind in (EventKind.SOLD_OUT, EventKind.REMOVED):
            stock = StockState.OUT_OF_STOCK
        offer = Offer(
            provider=rng.choice(PROVIDERS),
            sku=f"sku-{number}",
            location=rng.choice(LOCATIONS),
            gpu=name,
            gpu_raw=name,
            gpu_known=not raw,
            gpu_count=count,
            vram_gb=None if raw else gpu.vram_gb,
            price=Price.per_hour(per_gpu * count, "RUB/hour"),
            stock=stock,
            url="https://example.test/",
        )
        old = per_gpu * count * (1.15 if kind is EventKind.PRICE_DROP else 0.9)
        return Event(kind, offer, NOW, old_price_hour=old, new_price_hour=per_gpu * count)


def median_ms(action: Callable[[], object], runs: int, *, gc_on: bool = False) -> float:
    """Median wall time; with the collector paused unless `gc_on`, as timeit does."""
    samples = []
    for _ in range(runs):
        gc.collect()
        if not gc_on:
            gc.disable()
        try:
            started = time.perf_counter()
            action()
            samples.append((time.perf_counter() - started) * 1000)
        finally:
            gc.enable()
    return statistics.median(samples)


def same(found: list[Alert], expected: list[Alert]) -> bool:
    """Identical alerts; the index leaves the order within one event unspecified."""
    return sorted(found, key=_alert_order) == sorted(expected, key=_alert_order)


def _alert_order(alert: Alert) -> tuple[str, int]:
    return (alert.event.key, alert.subscription_id)


HEADER = (
    f"{'refresh = MatchIndex.match(1k events)':<38} {'subs':>8} {'alerts':>9} {'ms':>7}"
    f" {'ms(gc)':>7} {'µs/alert':>8} {'naive ms':>9} {'naive/ms':>8} {'build ms':>8}  same"
)


def measure(label: str, subs: list[Subscription], events: Sequence[Event], runs: int) -> float:
    started = time.perf_counter()
    index = MatchIndex(subs)
    build_ms = (time.perf_counter() - started) * 1000
    index.match(events, NOW)  # warm (caches of the GPU catalog)
    alerts = index.match(events, NOW)
    ms = median_ms(lambda: index.match(events, NOW), runs)
    ms_gc = median_ms(lambda: index.match(events, NOW), runs, gc_on=True)

    sample = events[:NAIVE_SAMPLE]
    naive_ms = median_ms(lambda: naive_match(subs, sample, NOW), 1) * len(events) / len(sample)
    agree = same(index.match(sample, NOW), naive_match(subs, sample, NOW))
    per_alert = ms * 1000 / len(alerts) if alerts else float("nan")
    print(
        f"{label:<38} {len(subs):>8,} {len(alerts):>9,} {ms:>7.1f} {ms_gc:>7.1f}"
        f" {per_alert:>8.2f} {naive_ms:>9,.0f} {naive_ms / ms:>7.0f}x {build_ms:>8.0f}"
        f"  {'yes' if agree else 'NO'}"
    )
    return ms


def main(n_events: int, seed: int, runs: int) -> None:
    gen = Generator(seed)
    events = [gen.event(i) for i in range(n_events)]
    subs_100k = [gen.subscription(i) for i in range(1, 100_001)]
    subs_10k = subs_100k[:10_000]
    cold = [gen.subscription(i, below_market=True) for i in range(100_001, 190_001)]
    alertable = sum(e.kind in ALERTABLE for e in events)

    print(f"{n_events:,} events ({alertable} arrivals or drops), seed {seed}\n")
    print(HEADER)
    ms_10k = measure("10k subscriptions", subs_10k, events, runs)
    ms_100k = measure("100k subscriptions", subs_100k, events, runs)
    ms_cold = measure("10k + 90k waiting below market", subs_10k + cold, events, runs)
    print(
        f"\n100k x {n_events:,}: {ms_100k:.1f} ms per refresh (target < 200 ms):"
        f" {'met' if ms_100k < 200 else 'NOT met'}."
        f"\n10x the subscriptions and 10x the matches: {ms_100k / ms_10k:.1f}x the time;"
        f" 10x the subscriptions and the same matches: {ms_cold / ms_10k:.1f}x."
        f"\nms: collector paused during the call (as timeit does); ms(gc): collector on."
        f"\nnaive: every subscription against every event, timed on {NAIVE_SAMPLE} events"
        f" and scaled to {n_events:,}. same: index and naive give identical alerts."
    )


# --- on the store ----------------------------------------------------------------------------

PROVIDER = "selectel"


class TimedDatabase:
    """A database of either backend, timing each write transaction from BEGIN to COMMIT."""

    def __init__(self, inner: Database) -> None:
        self._inner = inner
        self.held_ms: list[float] = []

    @property
    def dialect(self) -> Dialect:
        return self._inner.dialect

    @property
    def write_error(self) -> str | None:
        return self._inner.write_error

    @property
    def write_fault(self) -> WriteFault | None:
        return self._inner.write_fault

    @write_fault.setter
    def write_fault(self, fault: WriteFault | None) -> None:
        self._inner.write_fault = fault

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        started = time.perf_counter()
        async with self._inner.transaction() as connection:
            yield connection
        self.held_ms.append((time.perf_counter() - started) * 1000)

    def write(self) -> AbstractAsyncContextManager[Connection]:
        return self._inner.write()

    def access(self) -> AbstractAsyncContextManager[Connection]:
        return self._inner.access()

    async def probe_write(self) -> None:
        await self._inner.probe_write()

    async def close(self) -> None:
        await self._inner.close()


class TimedStore(Store):
    """The real store, timing each refresh's load; its database times the commit."""

    load_ms: list[float]

    async def load(self, provider: str, now: datetime) -> RefreshState:
        started = time.perf_counter()
        try:
            return await super().load(provider, now)
        finally:
            self.load_ms.append((time.perf_counter() - started) * 1000)


async def fill_store(store: Store, subs: Sequence[Subscription]) -> None:
    """Users and subscriptions as rows, in one transaction (sign-ups are not measured)."""
    moment = moment_value(store.dialect, NOW)
    chats = sorted({sub.chat_id for sub in subs})
    async with store.database.transaction() as connection:
        await connection.executemany(
            "INSERT INTO users (chat_id, language, timezone, created_at, last_seen_at)"
            " VALUES (?, 'ru', 'Europe/Moscow', ?, ?)",
            [(chat, moment, moment) for chat in chats],
        )
        await connection.executemany(
            "INSERT INTO subscriptions (id, chat_id, gpu, family, filter, cooldown_s, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    s.id,
                    s.chat_id,
                    s.filter.gpu,
                    s.filter.family,
                    filter_to_json(s.filter),
                    s.cooldown_s,
                    moment,
                )
                for s in subs
            ],
        )


def arrivals(gen: Generator, index: MatchIndex, wanted: int) -> list[Offer]:
    """Offers of one provider whose arrival alerts about `wanted` subscriptions in all."""
    offers: list[Offer] = []
    total = 0
    number = 0
    while total < wanted:
        number += 1
        event = gen.event(number)
        offer = replace(event.offer, provider=PROVIDER, stock=StockState.IN_STOCK)
        total += len(index.match([Event(EventKind.APPEARED, offer, NOW)], NOW))
        offers.append(offer)
    return offers


def snapshot(offers: Sequence[Offer], stock: StockState, at: datetime) -> ScrapeResult:
    return ScrapeResult(PROVIDER, tuple(replace(o, stock=stock) for o in offers), at)


@dataclass(frozen=True)
class StoreFigures:
    """One backend's figures: ms of the index's first load, of each refresh's load and write
    transaction, and of following one subscription change (and the rebuild it replaced)."""

    backend: Backend
    offers: int
    index_ms: float
    queued: int
    cooled: int
    load_ms: tuple[float, float]  # arrivals, the same again within their cooldown
    held_ms: tuple[float, float]
    pending: int
    change_ms: float
    rebuild_ms: float


async def on_the_store(
    backend: Backend, subs: list[Subscription], offers: Sequence[Offer]
) -> StoreFigures:
    async with scratch_database(backend) as inner:
        await migrate(inner)
        database = TimedDatabase(inner)
        store = TimedStore(database)
        store.load_ms = []
        await fill_store(store, subs)
        database.held_ms = []  # the refreshes' commits from here on
        matcher = LiveMatcher(store)
        started = time.perf_counter()
        await matcher.prepare()
        index_ms = (time.perf_counter() - started) * 1000

        outcomes = []
        for step, stock in enumerate(
            (
                StockState.OUT_OF_STOCK,
                StockState.IN_STOCK,
                StockState.OUT_OF_STOCK,
                StockState.IN_STOCK,
            )
        ):
            at = NOW + timedelta(minutes=10 * step)
            source = FixedSource(snapshot(offers, stock, at))
            outcomes.append(await refresh(source, store, matcher, now=partial(clock, at)))
        pending = await store.pending_count()
        change_ms, rebuild_ms = await subscription_changes(store, matcher, subs)
    held, loads = database.held_ms, store.load_ms
    return StoreFigures(
        backend,
        len(offers),
        index_ms,
        outcomes[1].alerts,
        outcomes[3].alerts,
        (loads[1], loads[3]),
        (held[1], held[3]),
        pending,
        change_ms,
        rebuild_ms,
    )


def print_store_figures(figures: Sequence[StoreFigures], subscriptions: int) -> None:
    """The backends side by side."""
    first = figures[0]
    print(
        f"\non the store: {subscriptions:,} subscriptions, one {PROVIDER} refresh of"
        f" {first.offers} offers coming into stock"
    )
    heads = "".join(f"{f.backend:>24}" for f in figures)
    print(f"{'':<44}{'':>9}{heads}")
    cells = "".join(f"{'load ms':>10}{'write tx ms':>14}" for _ in figures)
    print(f"{'refresh':<44}{'alerts':>9}{cells}")
    for number, label in enumerate(
        ("arrivals, none alerted before", "the same again, all within their cooldown")
    ):
        alerts = first.queued if number == 0 else first.cooled
        cells = "".join(f"{f.load_ms[number]:>10.0f}{f.held_ms[number]:>14.0f}" for f in figures)
        print(f"{label:<44}{alerts:>9,}{cells}")
    print(
        "(outbox rows pending: "
        + ", ".join(f"{f.backend} {f.pending:,}" for f in figures)
        + "; target: write transaction < 300 ms)"
    )
    print(f"\n{'median ms':<53}" + "".join(f"{f.backend:>24}" for f in figures))
    rows = (
        ("index loaded at start (all active subscriptions)", "index_ms", ".0f"),
        ("a subscription change, replayed into the index", "change_ms", ".2f"),
        ("a full rebuild of the index (before)", "rebuild_ms", ".0f"),
    )
    for label, name, shape in rows:
        print(f"{label:<53}" + "".join(f"{getattr(f, name):>24{shape}}" for f in figures))
    print("target: a change < 5 ms (the write itself, a /watch or a button, is not counted)")


async def store_part(
    backends: Sequence[Backend], subs: list[Subscription], gen: Generator, wanted: int
) -> None:
    offers = arrivals(gen, MatchIndex(subs), wanted)  # the same refresh on every backend
    figures = [await on_the_store(backend, subs, offers) for backend in backends]
    print_store_figures(figures, len(subs))


def clock(at: datetime) -> datetime:
    return at


async def subscription_changes(
    store: Store, matcher: LiveMatcher, subs: Sequence[Subscription]
) -> tuple[float, float]:
    """Median ms of `prepare()` after one change, and of the rebuild it replaced."""
    replayed = []
    for sub in subs[:: len(subs) // 20][:20]:
        await store.edit_watch(sub.chat_id, sub.id, WatchEdit(paused=True))  # not counted
        started = time.perf_counter()
        await matcher.prepare()
        replayed.append((time.perf_counter() - started) * 1000)
    rebuilt = []
    for _ in range(3):
        started = time.perf_counter()
        MatchIndex(await store.active_subscriptions())
        rebuilt.append((time.perf_counter() - started) * 1000)
    return statistics.median(replayed), statistics.median(rebuilt)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--alerts", type=int, default=20_000, help="alerts of the refresh")
    parser.add_argument("--store-only", action="store_true", help="only the store part")
    add_backend_option(parser)
    args = parser.parse_args()
    backends = chosen_backends(args.backend)
    if not args.store_only:
        main(args.events, args.seed, args.runs)
    generator = Generator(args.seed)
    subscriptions = [generator.subscription(i) for i in range(1, 100_001)]
    asyncio.run(store_part(backends, subscriptions, generator, args.alerts))
