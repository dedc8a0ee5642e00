"""The whole answer to a sizing question: memory, fit table, time, cost, advice."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from estimator.advice import Advice, Caution, cautions_for, memory_advice
from estimator.cost import PriceQuote, RunCost, cheapest_rates, cheapest_runs
from estimator.fit import GpuFit, Verdict, fit_table, smallest_fitting
from estimator.memory import MemoryEstimate, estimate_memory
from estimator.parse import Assumption, ParsedQuery
from estimator.query import FitQuery
from estimator.specs import GpuSpec, ModelSpec
from estimator.timing import TrainingTime, training_time


@dataclass(frozen=True)
class FitAnswer:
    query: FitQuery
    model: ModelSpec
    model_from_size: bool
    assumptions: tuple[Assumption, ...]
    memory: MemoryEstimate
    table: list[GpuFit]
    target: GpuFit | None  # the GPU the user asked about
    smallest: GpuFit | None  # the smallest single card that holds the run
    times: dict[str, TrainingTime] = field(default_factory=dict)  # by GPU id, at min_gpus
    costs: list[RunCost] = field(default_factory=list)
    rates: list[PriceQuote] = field(default_factory=list)  # when there is no run length
    prices_known: bool = False  # the caller had live prices at all
    advice: list[Advice] = field(default_factory=list)
    cautions: list[Caution] = field(default_factory=list)

    def row(self, gpu_id: str) -> GpuFit | None:
        return next((row for row in self.table if row.gpu.id == gpu_id), None)


def build_answer(
    parsed: ParsedQuery, gpus: Sequence[GpuSpec], quotes: Iterable[PriceQuote] = ()
) -> FitAnswer:
    query, model = parsed.query, parsed.model
    memory = estimate_memory(query, model)
    table = fit_table(query, model, gpus, memory)
    target = _target_row(parsed, table)
    smallest = smallest_fitting(table)

    times: dict[str, TrainingTime] = {}
    for row in table:
        count = row.min_gpus
        if count is None:
            continue
        estimate = training_time(query, model, row.gpu, count)
        if estimate is not None:
            times[row.gpu.id] = estimate
    hours_by_gpu = {gpu_id: (t.hours, _count(table, gpu_id)) for gpu_id, t in times.items()}
    quotes = list(quotes)
    need_by_gpu = {row.gpu.id: row.min_gpus for row in table if row.min_gpus is not None}
    checked = target.gpu if target else (smallest.gpu if smallest else None)
    # Always offered: even a run that fits somewhere may be meant for a smaller card.
    advice = memory_advice(query, model)
    if _h200_would_do(target, table):
        advice.insert(0, Advice("h200", 0.0))
    return FitAnswer(
        query=query,
        model=model,
        model_from_size=parsed.model_from_size,
        assumptions=parsed.assumptions,
        memory=memory,
        table=table,
        target=target,
        smallest=smallest,
        times=times,
        costs=cheapest_runs(quotes, hours_by_gpu) if hours_by_gpu else [],
        rates=[] if hours_by_gpu else cheapest_rates(quotes, need_by_gpu),
        prices_known=bool(quotes),
        advice=advice,
        cautions=cautions_for(
            query, checked, tight=target is not None and target.verdict is Verdict.TIGHT
        ),
    )


def _target_row(parsed: ParsedQuery, table: list[GpuFit]) -> GpuFit | None:
    if parsed.target_gpu:
        return next((row for row in table if row.gpu.id == parsed.target_gpu), None)
    if parsed.target_family:
        family = [row for row in table if row.gpu.family == parsed.target_family]
        # The family's best member answers "does it fit on an H100?".
        return max(family, key=lambda row: row.headroom_gib, default=None)
    return None


def _h200_would_do(target: GpuFit | None, table: list[GpuFit]) -> bool:
    """The seeds' upgrade path: same Hopper chip, 141 GB instead of 80."""
    if target is None or target.gpu.family != "H100" or target.verdict is not Verdict.NO:
        return False
    return any(row.gpu.family == "H200" and row.verdict is not Verdict.NO for row in table)


def _count(table: list[GpuFit], gpu_id: str) -> int:
    row = next(row for row in table if row.gpu.id == gpu_id)
    return row.min_gpus or 1


def to_json(answer: FitAnswer) -> dict[str, Any]:
    query = answer.query
    return {
        "query": {
            "model": answer.model.id,
            "params_b": round(answer.model.params_b, 3),
            "method": query.method.value,
            "ctx": query.ctx,
            "micro_batch": query.micro_batch,
            "lora_rank": query.lora_rank,
            "targets": query.targets.value,
            "optimizer": query.optimizer.value,
            "precision": query.precision.value,
            "grad_checkpointing": query.grad_checkpointing.value,
            "gpus": query.gpus,
            "shard": query.shard.value,
            "stack": query.stack.value,
        },
        "target_gpu": answer.target.gpu.id if answer.target else None,
        "peak_gb": round(answer.memory.peak, 2),
        "breakdown": {key: round(value, 2) for key, value in answer.memory.breakdown().items()},
        "fits": [
            {
                "gpu": row.gpu.id,
                "vram_gb": round(row.usable_gib, 2),
                "headroom_gb": round(row.headroom_gib, 2),
                "verdict": row.verdict.value,
                "min_gpus": row.min_gpus,
            }
            for row in answer.table
        ],
        "hours": {gpu_id: round(t.hours, 2) for gpu_id, t in answer.times.items()} or None,
        "assumptions": [{"key": a.key, "value": a.value} for a in answer.assumptions],
        "warnings": [{"code": c.code, "value": c.value} for c in answer.cautions],
        "advice": [
            {"code": a.code, "saves_gb": round(a.saves_gib, 2), "value": a.value}
            for a in answer.advice
        ],
        "costs": [
            {
                "gpu": cost.quote.gpu_id,
                "provider": cost.quote.provider,
                "hours": round(cost.hours, 2),
                "hourly_rub": cost.hourly_total_rub,
                "monthly_rub": cost.monthly_total_rub,
                "monthly_is_cheaper": cost.monthly_is_cheaper,
            }
            for cost in answer.costs
        ],
    }
