"""What a run costs at live prices, and when a month of dedicated rent beats paying by the hour.

Prices come from the caller (the monitor's offers); the estimator itself knows none.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

HOURS_PER_MONTH = 720


@dataclass(frozen=True)
class PriceQuote:
    """One rentable configuration: `gpus` cards of `gpu_id` at a provider."""

    gpu_id: str
    gpus: int
    provider: str
    rub_per_hour: float | None  # None: rented by the month only
    rub_per_month: float | None  # None: no monthly plan
    label: str = ""  # the provider's name for it (tariff, server config)
    url: str = ""
    in_stock: bool = True


@dataclass(frozen=True)
class RunCost:
    quote: PriceQuote
    hours: float
    hourly_total_rub: float | None
    monthly_total_rub: float | None  # whole months needed to cover the run

    @property
    def best_rub(self) -> float:
        options = [x for x in (self.hourly_total_rub, self.monthly_total_rub) if x is not None]
        return min(options)

    @property
    def monthly_is_cheaper(self) -> bool:
        return (
            self.monthly_total_rub is not None
            and self.hourly_total_rub is not None
            and self.monthly_total_rub < self.hourly_total_rub
        )


def run_cost(quote: PriceQuote, hours: float) -> RunCost | None:
    hourly = quote.rub_per_hour * hours if quote.rub_per_hour is not None else None
    months = max(1, math.ceil(hours / HOURS_PER_MONTH))
    monthly = quote.rub_per_month * months if quote.rub_per_month is not None else None
    if hourly is None and monthly is None:
        return None
    return RunCost(quote=quote, hours=hours, hourly_total_rub=hourly, monthly_total_rub=monthly)


def cheapest_rates(
    quotes: Iterable[PriceQuote], need_by_gpu: dict[str, int], limit: int = 3
) -> list[PriceQuote]:
    """Without a dataset there is no run length: the cheapest in-stock quotes with enough
    cards, by their hourly price (a monthly plan counts as its price over 720 hours)."""
    usable = [
        quote
        for quote in quotes
        if quote.in_stock
        and quote.gpu_id in need_by_gpu
        and quote.gpus >= need_by_gpu[quote.gpu_id]
        and (quote.rub_per_hour is not None or quote.rub_per_month is not None)
    ]
    return sorted(usable, key=_hourly_equivalent)[:limit]


def _hourly_equivalent(quote: PriceQuote) -> float:
    if quote.rub_per_hour is not None:
        return quote.rub_per_hour
    assert quote.rub_per_month is not None
    return quote.rub_per_month / HOURS_PER_MONTH


def cheapest_runs(
    quotes: Iterable[PriceQuote], hours_by_gpu: dict[str, tuple[float, int]], limit: int = 3
) -> list[RunCost]:
    """The cheapest in-stock quotes that have enough cards; `hours_by_gpu` maps a GPU id to
    (training hours, cards needed)."""
    costs = []
    for quote in quotes:
        need = hours_by_gpu.get(quote.gpu_id)
        if need is None or not quote.in_stock or quote.gpus < need[1]:
            continue
        cost = run_cost(quote, need[0])
        if cost is not None:
            costs.append(cost)
    return sorted(costs, key=lambda cost: cost.best_rub)[:limit]
