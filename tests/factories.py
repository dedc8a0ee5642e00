"""Small builders for domain objects that many tests need."""

from __future__ import annotations

from monitor.offers import Offer, Price, StockState


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
        vram_gb=24,
        price=price,
        stock=stock,
        stock_count=2 if stock is StockState.IN_STOCK else None,
        url=f"https://example.test/{sku}",
    )
