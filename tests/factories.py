"""Small builders for domain objects that many tests need."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from monitor.alerts import Alert
from monitor.matcher import LiveMatcher
from monitor.offers import Offer, Price, StockState
from monitor.pipeline import PipelineOutcome, refresh
from monitor.queueing import queue
from monitor.scrape import ScrapeResult
from storage import Store
from storage.outbox_insert import insert_alerts, prepare_alerts


def make_offer(
    sku: str,
    rub_per_hour: float,
    stock: StockState = StockState.IN_STOCK,
    *,
    provider: str = "acme",
    gpu: str = "RTX 4090",
    gpu_count: int = 1,
    location: str = "MSK-1",
    monthly: bool = False,
    vram_gb: float | None = 24,
    vcpu: int | None = None,
    ram_gb: float | None = None,
) -> Offer:
    price = (
        Price.per_month(rub_per_hour * 720, "RUB/month")
        if monthly
        else Price.per_hour(rub_per_hour, "RUB/hour")
    )
    return Offer(
        provider=provider,
        sku=sku,
        location=location,
        gpu=gpu,
        gpu_raw=gpu,
        gpu_known=True,
        gpu_count=gpu_count,
        vram_gb=vram_gb,
        price=price,
        stock=stock,
        stock_count=2 if stock is StockState.IN_STOCK else None,
        url=f"https://example.test/{sku}",
        vcpu=vcpu,
        ram_gb=ram_gb,
    )


class FixedSource:
    """An OfferSource that returns one prepared scrape result."""

    def __init__(self, result: ScrapeResult) -> None:
        self.result = result

    @property
    def name(self) -> str:
        return self.result.provider

    async def fetch(self) -> ScrapeResult:
        return self.result


async def store_snapshot(store: Store, result: ScrapeResult) -> PipelineOutcome:
    """Store a snapshot the way production does: through one refresh of the pipeline."""
    return await refresh(
        FixedSource(result), store, LiveMatcher(store), now=lambda: result.fetched_at
    )


async def enqueue(store: Store, alerts: Iterable[Alert], now: datetime) -> int:
    """Queue alerts as a refresh does, without a scrape: monitor.queueing's rules (no cooldown
    running) over the held chats Store.load reads, written as Store.commit writes them."""
    holds = (await store.load("", now)).holds  # the same for every provider
    queued = queue(alerts, now=now, last_alerts={}, holds=holds)
    async with store._db.transaction() as connection:
        return await insert_alerts(connection, prepare_alerts(queued, now))
