"""Price and stock history: the change points an offer's history is made of."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from monitor.offers import StockState


@dataclass(frozen=True)
class HistoryPoint:
    """An offer's price and stock from `at` until its next change point."""

    provider: str
    sku: str
    location: str
    gpu: str
    gpu_count: int
    at: datetime
    price_hour: float
    stock: StockState
    stock_count: int | None

    @property
    def price_per_gpu_hour(self) -> float:
        return self.price_hour / max(1, self.gpu_count)
