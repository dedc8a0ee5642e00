"""The whole answer to a sizing question: memory, fit table, time, cost, advice."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from estimator.advice import Advice, Caution, cautions_for, memory_advice
from estimator.checkpoint import CheckpointSize, checkpoint_size
from estimator.cost import (
    BreakEven,
    BudgetVerdict,
    PriceQuote,
    RunCost,
    break_even,
    cheapest_rates,
    cheapest_runs,
    within_budget,
)
from estimator.fit import GpuFit, Verdict, fit_table, smallest_fitting, trains_in_bf16
from estimator.memory import MemoryEstimate, estimate_memory
from estimator.parse import Assumption, ParsedQuery
from estimator.parsing.market import Constraints
from estimator.query import Checkpointing, FitQuery, Method, Stack
from estimator.specs import GpuSpec, ModelSpec
from estimator.stacks import COMMON_STACKS
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
    # Peak per common stack when the user named none (the assumed one included).
    stack_peaks: dict[Stack, float] = field(default_factory=dict)
    # Another member of the family asked about that holds the run when the target does not
    # ("A100": the 40GB does not, the 80GB does).
    also: GpuFit | None = None
    asked_size: float | None = None  # the bare size asked, echoed as asked ("7B")
    notes: tuple[str, ...] = ()  # the parser's notes (text_tokens:<lang>:<bytes per token>)
    checkpoint: CheckpointSize | None = None
    break_even: BreakEven | None = None
    budget: BudgetVerdict | None = None
    constraints: Constraints = field(default_factory=Constraints)  # as the user said them

    def row(self, gpu_id: str) -> GpuFit | None:
        return next((row for row in self.table if row.gpu.id == gpu_id), None)


def build_answer(
    parsed: ParsedQuery, gpus: Sequence[GpuSpec], quotes: Iterable[PriceQuote] = ()
) -> FitAnswer:
    query, model = parsed.query, parsed.model
    memory = estimate_memory(query, model)
    table = fit_table(query, model, gpus, memory, asked=parsed.target_gpu)
    target = _target_row(parsed, table)
    smallest = smallest_fitting(table)
    # Stacks compared when the user named none: the same run on each common stack.
    stack_peaks: dict[Stack, float] = {}
    if parsed.assumed("stack") is not None and query.method is not Method.FULL:
        for stack in COMMON_STACKS:
            other = replace(
                query, stack=stack, grad_checkpointing=_stack_gc(query, stack), loss=None
            )
            stack_peaks[stack] = estimate_memory(other, model).peak

    times: dict[str, TrainingTime] = {}
    for row in table:
        count = row.min_gpus
        if count is None:
            continue
        estimate = training_time(query, model, row.gpu, count)
        if estimate is not None:
            times[row.gpu.id] = estimate
    # fp16-only cards are priced only when asked about: they are never the advice.
    priced = {
        row.gpu.id for row in table if trains_in_bf16(row.gpu) or row.gpu.id == parsed.target_gpu
    }
    hours_by_gpu = {
        gpu_id: (t.hours, _count(table, gpu_id)) for gpu_id, t in times.items() if gpu_id in priced
    }
    quotes = list(quotes)
    need_by_gpu = {
        row.gpu.id: row.min_gpus
        for row in table
        if row.min_gpus is not None and row.gpu.id in priced
    }
    checked = target.gpu if target else (smallest.gpu if smallest else None)
    costs = cheapest_runs(quotes, hours_by_gpu, limit=50) if hours_by_gpu else []
    rates = [] if hours_by_gpu else cheapest_rates(quotes, need_by_gpu, limit=50)
    budget = (
        within_budget(parsed.budget_rub, costs, rates) if parsed.budget_rub is not None else None
    )
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
        costs=costs,
        rates=rates,
        prices_known=bool(quotes),
        advice=advice,
        cautions=cautions_for(
            query,
            checked,
            tight=target is not None and target.verdict is Verdict.TIGHT,
            model=model,
        ),
        stack_peaks=stack_peaks,
        also=_also_fits(parsed, target, table),
        asked_size=parsed.asked_size,
        notes=parsed.notes,
        checkpoint=checkpoint_size(query, model),
        break_even=break_even(
            quotes, need_by_gpu, {gpu_id: hours for gpu_id, (hours, _) in hours_by_gpu.items()}
        ),
        budget=budget,
        constraints=parsed.constraints,
    )


def _target_row(parsed: ParsedQuery, table: list[GpuFit]) -> GpuFit | None:
    if parsed.target_gpu:
        return next((row for row in table if row.gpu.id == parsed.target_gpu), None)
    if parsed.target_family:
        return conservative_member([row for row in table if row.gpu.family == parsed.target_family])
    return None


def conservative_member(rows: list[GpuFit]) -> GpuFit | None:
    """The member a bare family name means when sizing: "H100" is the 80 GB card on offer,
    SXM or PCIe, whichever is slower; NVL (94 GB) only when named. With two memory sizes
    ("A100": 40 or 80 GB) the smaller one, so that "fits" is never optimistic."""
    usual = [row for row in rows if row.gpu.form != "NVL"] or rows
    return min(usual, key=lambda row: (row.usable_gib, row.gpu.tflops), default=None)


def _also_fits(parsed: ParsedQuery, target: GpuFit | None, table: list[GpuFit]) -> GpuFit | None:
    if target is None or parsed.target_family is None or target.verdict is not Verdict.NO:
        return None
    bigger = [
        row
        for row in table
        if row.gpu.family == target.gpu.family
        and row.verdict is not Verdict.NO
        and row.gpu.form != "NVL"
    ]
    return min(bigger, key=lambda row: (row.usable_gib, row.gpu.tflops), default=None)


def _stack_gc(query: FitQuery, stack: Stack) -> Checkpointing:
    """The stack's own checkpointing unless the user chose one (Unsloth's is offloaded)."""
    if query.grad_checkpointing is Checkpointing.ON and stack is Stack.UNSLOTH:
        return Checkpointing.UNSLOTH
    return query.grad_checkpointing


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
        "stack_peaks_gb": {
            stack.value: round(peak, 2) for stack, peak in answer.stack_peaks.items()
        }
        or None,
        "checkpoint_bytes": None
        if answer.checkpoint is None
        else {
            "adapter": answer.checkpoint.adapter_bytes,
            "model": answer.checkpoint.model_bytes,
            "resume": answer.checkpoint.resume_bytes,
        },
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
