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


@dataclass(frozen=True)
class BreakEven:
    """When a month of dedicated rent beats paying by the hour, for one GPU configuration."""

    hourly: PriceQuote
    monthly: PriceQuote
    hours: float  # rent-hours after which the month is cheaper
    job_hours: float | None  # this run's length, when the dataset is known

    @property
    def monthly_wins(self) -> bool | None:
        return None if self.job_hours is None else self.job_hours > self.hours


def break_even(
    quotes: Iterable[PriceQuote], need_by_gpu: dict[str, int], job_hours: dict[str, float]
) -> BreakEven | None:
    """The cheapest hourly and the cheapest monthly offer for the same card, among the cards
    that hold the run: the month pays off after monthly / hourly rent-hours."""
    usable = [
        q
        for q in quotes
        if q.in_stock and q.gpu_id in need_by_gpu and q.gpus >= need_by_gpu[q.gpu_id]
    ]
    best: BreakEven | None = None
    for gpu_id in {q.gpu_id for q in usable}:
        hourly = [q for q in usable if q.gpu_id == gpu_id and q.rub_per_hour is not None]
        monthly = [q for q in usable if q.gpu_id == gpu_id and q.rub_per_month is not None]
        if not hourly or not monthly:
            continue
        h = min(hourly, key=lambda q: q.rub_per_hour or 0.0)
        m = min(monthly, key=lambda q: q.rub_per_month or 0.0)
        assert h.rub_per_hour is not None
        assert m.rub_per_month is not None
        candidate = BreakEven(h, m, m.rub_per_month / h.rub_per_hour, job_hours.get(gpu_id))
        if best is None or (candidate.hourly.rub_per_hour or 0) < (best.hourly.rub_per_hour or 0):
            best = candidate
    return best


@dataclass(frozen=True)
class BudgetVerdict:
    budget_rub: float
    run: RunCost | None  # the cheapest run that fits and finishes within the budget
    cheapest: RunCost | None  # the cheapest run at all (when none is within budget)
    rate: PriceQuote | None  # without a run length: the cheapest hourly rate that fits
    hours_for_budget: float | None  # how many hours of that rate the budget buys


def within_budget(
    budget_rub: float,
    costs: list[RunCost],
    rates: list[PriceQuote],
) -> BudgetVerdict:
    """The cheapest live option that fits and finishes within the budget, or, with no run
    length known, how many hours of the cheapest fitting card the budget buys."""
    ordered = sorted(costs, key=lambda cost: cost.best_rub)
    fitting = [cost for cost in ordered if cost.best_rub <= budget_rub]
    hourly = [q for q in rates if q.rub_per_hour is not None]
    rate = min(hourly, key=lambda q: q.rub_per_hour or 0.0) if hourly else None
    hours = budget_rub / rate.rub_per_hour if rate is not None and rate.rub_per_hour else None
    return BudgetVerdict(
        budget_rub=budget_rub,
        run=fitting[0] if fitting else None,
        cheapest=ordered[0] if ordered else None,
        rate=rate if not ordered else None,
        hours_for_budget=hours if not ordered else None,
    )
