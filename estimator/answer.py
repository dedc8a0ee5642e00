"""The whole answer to a sizing question: memory, fit table, time, cost, advice."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from estimator.accuracy import Band, band
from estimator.advice import Advice, Caution, cautions_for, memory_advice
from estimator.asked import Comparison, Variant, compare_levers
from estimator.checkpoint import CheckpointSize, checkpoint_size
from estimator.cost import PriceQuote
from estimator.fit import (
    RENTED_CARDS,
    GpuFit,
    Judged,
    Verdict,
    fewest_across_servers,
    fewest_cards,
    fit_table,
    judge_run,
    least_card_of_size,
    smallest_fitting,
)
from estimator.gpus import family_members, family_of, resolve_for_sizing
from estimator.hardware import runs_unsloth
from estimator.measurement import Measurement
from estimator.memory import MemoryEstimate, estimate_memory
from estimator.offload import OffloadCost, offload_cost
from estimator.parse import Assumption, ParsedQuery
from estimator.parsing.market import Constraints as StatedConstraints
from estimator.planner import (
    BreakEven,
    BudgetVerdict,
    Constraints,
    Plan,
    Sizing,
    admits,
    break_even_for,
    plan_runs,
    within,
    within_budget,
)
from estimator.query import Checkpointing, FitQuery, Method, Offload, Sharding, Stack
from estimator.solve import Solution, solve, solved_json, solved_query
from estimator.specs import GIB, GpuSpec, ModelSpec
from estimator.stacks import COMMON_STACKS
from estimator.timing import TrainingTime, training_time


@dataclass(frozen=True)
class FitAnswer:
    query: FitQuery
    model: ModelSpec
    model_from_size: bool
    assumptions: tuple[Assumption, ...]
    memory: MemoryEstimate
    band: Band  # where the nvidia-smi peak lies, from the estimate's measured error
    table: list[GpuFit]
    target: GpuFit | None  # the GPU the user asked about
    # The smallest single card people rent (or that is on offer) that holds the run; when no
    # single card does, `fewest` is the smallest set: the fewest cards, then the smallest.
    smallest: GpuFit | None
    fewest: GpuFit | None = None
    times: dict[str, TrainingTime] = field(default_factory=dict)  # by GPU id, at min_gpus
    plans: list[Plan] = field(default_factory=list)  # live offers that hold it, best first
    prices_known: bool = False  # the caller had live prices at all
    # What the user said about the offers that left no plan ("russia_only", "min_vram",
    # "gpus", "max_rate"): the answer says so instead of quietly dropping it.
    unmet: tuple[str, ...] = ()
    advice: list[Advice] = field(default_factory=list)
    cautions: list[Caution] = field(default_factory=list)
    # Peak per common stack when the user named none (the assumed one included).
    stack_peaks: dict[Stack, float] = field(default_factory=dict)
    # Another member of the family asked about that holds the run when the target does not
    # ("A100": the 40GB does not, the 80GB does).
    also: GpuFit | None = None
    # The asked card that no server of 8 holds the run on: the fewest of it, in whole
    # servers, sharded across them (estimator.fit.fewest_across_servers); None otherwise.
    across_servers: int | None = None
    # The other cards the question named («a6000 или 4090?»): each gets its own verdict.
    compared: tuple[GpuFit, ...] = ()
    asked_size: float | None = None  # the bare size asked, echoed as asked ("7B")
    notes: tuple[str, ...] = ()  # the parser's notes (text_tokens:<lang>:<bytes per token>)
    checkpoint: CheckpointSize | None = None
    break_even: BreakEven | None = None
    budget: BudgetVerdict | None = None
    hours_per_month: float | None = None  # the user's use a month, for the break-even
    time_budget_hours: float | None = None  # «успею за 5 часов?»: the most the run may take
    # «хватит ли 24 гб?» with no card named: the run on a card sold with that memory.
    capacity: Capacity | None = None
    constraints: StatedConstraints = field(default_factory=StatedConstraints)  # as said
    solved: Solution | None = None  # a reverse question's answer; the run is sized at it
    # The levers asked about («нужен ли offload?») and the unstated defaults that decide the
    # verdict, each sized both ways (estimator.asked); the run itself is as read.
    levers: tuple[Comparison, ...] = ()
    offload: OffloadCost | None = None  # host RAM and CPU time of the run's own offload
    # No plan because every server whose cards hold the run publishes less RAM than its
    # offload needs.
    ram_short: bool = False
    # The words that set each slot, by FitQuery field (the reader's record): the header shows
    # them beside what was read. Empty until the reader records them.
    words: dict[str, str] = field(default_factory=dict)
    # The person's own measured speed the times are scaled by (estimator.measurement).
    measured: Measurement | None = None

    def row(self, gpu_id: str) -> GpuFit | None:
        return next((row for row in self.table if row.gpu.id == gpu_id), None)


@dataclass(frozen=True)
class Capacity:
    """A card's memory asked about by its size: the run judged on what such a card gives."""

    gb: float  # as sold
    usable_gib: float  # the least the catalogue's cards of that size give (the safe side)
    judged: Judged
    # Several such cards that each hold the whole model (DDP) and do not: the same count
    # sharded with FSDP («у меня 4 карты по 24 гб» for a 32B LoRA).
    sharded: Judged | None = None


# What torch reports of a card sold as N GB when no catalogue card has that size: ECC on, as
# datacenter boards ship (0.923 × GB, estimator/data/gpus.csv's est-ECC rule).
UNKNOWN_CARD_SHARE = 0.923


def _capacity(parsed: ParsedQuery, gpus: Sequence[GpuSpec]) -> Capacity | None:
    if parsed.card_gb is None:
        return None
    least = least_card_of_size(parsed.card_gb, gpus)
    usable = least.usable_gib if least else parsed.card_gb * 1e9 / GIB * UNKNOWN_CARD_SHARE
    judged = judge_run(parsed.query, parsed.model, usable)
    sharded = None
    query = parsed.query
    if query.gpus > 1 and query.shard is Sharding.DDP and judged.verdict is Verdict.NO:
        sharded = judge_run(replace(query, shard=Sharding.FSDP), parsed.model, usable)
    return Capacity(parsed.card_gb, usable, judged, sharded)


def build_answer(
    parsed: ParsedQuery,
    gpus: Sequence[GpuSpec],
    quotes: Iterable[PriceQuote] = (),
    measured: Measurement | None = None,
) -> FitAnswer:
    """`measured`: the person's own measured speed, which scales every time in the answer."""
    solution = solve(parsed, gpus)  # ctx=max: the rest of the answer is for the solved value
    parsed = solved_query(parsed, solution)
    query, model = parsed.query, parsed.model
    table = fit_table(query, model, gpus, asked=parsed.target_gpu)
    target = _target_row(parsed, table)
    # The figure printed is the run on the card asked (what an adaptive loss takes and what
    # paged state stays resident depend on it); with no card, on a card with room.
    memory = estimate_memory(query, model, card_gib=target.usable_gib if target else None)
    # Stacks compared when the user named none: the same run on each common stack.
    stack_peaks: dict[Stack, float] = {}
    if parsed.assumed("stack") is not None and query.method is not Method.FULL:
        for stack in COMMON_STACKS:
            other = replace(
                query, stack=stack, grad_checkpointing=_stack_gc(query, stack), loss=None
            )
            stack_peaks[stack] = estimate_memory(other, model).peak

    speed = measured.factor if measured is not None else 1.0
    times: dict[str, TrainingTime] = {}
    for row in table:
        count = row.min_gpus
        if count is None:
            continue
        estimate = training_time(query, model, row.gpu, count, speed=speed)
        if estimate is not None:
            times[row.gpu.id] = estimate
    quotes = list(quotes)
    constraints = constraints_of(parsed)
    sizing = Sizing(query, model, speed)
    plans = plan_runs(sizing, quotes, constraints)
    offered = {quote.gpu_id for quote in quotes if quote.in_stock}
    rented = frozenset(RENTED_CARDS) | offered
    smallest = smallest_fitting(table, rented)
    checked = target.gpu if target else (smallest.gpu if smallest else None)
    budget = within_budget(parsed.budget_rub, plans) if parsed.budget_rub is not None else None
    # Always offered: even a run that fits somewhere may be meant for a smaller card.
    advice = memory_advice(query, model)
    if checked is not None and not runs_unsloth(checked):
        advice = [item for item in advice if item.code != "unsloth"]
    if _h200_would_do(target, table):
        advice.insert(0, Advice("h200", 0.0))
    fewest = None if smallest is not None else fewest_cards(table, rented)
    levers = compare_levers(parsed, gpus, rented, target, target or smallest or fewest, speed)
    # Servers whose cards hold the run but whose published RAM cannot take what it offloads.
    ram_short = (
        not plans
        and query.offload is not Offload.NONE
        and bool(plan_runs(sizing, quotes, constraints, check_ram=False))
    )
    return FitAnswer(
        query=query,
        model=model,
        model_from_size=parsed.model_from_size,
        assumptions=parsed.assumptions,
        memory=memory,
        band=band(memory.peak, query.stack, memory.must_fit, floor=memory.weights),
        table=table,
        target=target,
        across_servers=_across_servers(target, query, model),
        smallest=smallest,
        fewest=fewest,
        times=times,
        plans=plans,
        prices_known=bool(quotes),
        unmet=_unmet(quotes, constraints, plans),
        ram_short=ram_short,
        advice=advice,
        cautions=cautions_for(
            query,
            checked,
            tight=target is not None and target.verdict is Verdict.TIGHT,
            model=model,
        ),
        stack_peaks=stack_peaks,
        also=_also_fits(parsed, target, table),
        compared=_compared(parsed, table, target),
        asked_size=parsed.asked_size,
        notes=parsed.notes,
        checkpoint=checkpoint_size(query, model),
        break_even=break_even_for(plans, quotes, parsed.hours_per_month),
        budget=budget,
        hours_per_month=parsed.hours_per_month,
        time_budget_hours=parsed.time_budget_hours,
        capacity=_capacity(parsed, gpus) if parsed.target_gpu is None else None,
        constraints=parsed.constraints,
        solved=solution,
        levers=levers,
        offload=offload_cost(query, model),
        measured=measured,
    )


def constraints_of(parsed: ParsedQuery) -> Constraints:
    """The offers the question allows. Cards without bf16 only when named. The card count
    («2x 4090», `gpus=2`) is the run's, sized and judged on the card asked, not a wish about
    the offers: every server that holds the run is a plan on its own count (the planner tries
    the user's sharding on that count first), so no exact count is set here."""
    named = {parsed.target_gpu} if parsed.target_gpu else set()
    if parsed.target_family:
        named |= {gpu.id for gpu in family_members(parsed.target_family)}
    return within(parsed.constraints, allow_fp16=frozenset(named))


def _unmet(
    quotes: Sequence[PriceQuote], constraints: Constraints, plans: Sequence[Plan]
) -> tuple[str, ...]:
    """The constraints that left no plan although some offer would hold the run without
    them: each is named, so a dropped wish is said, never silent."""
    if plans or not quotes:
        return ()
    loose = replace(
        constraints,
        min_vram_gb=None,
        russia_only=False,
        max_rub_per_hour=None,
        max_rub_per_gpu_hour=None,
        max_rub_per_month=None,
        gpus=None,
    )
    if not any(admits(quote, loose) for quote in quotes):
        return ()
    found = []
    if constraints.russia_only:
        found.append("russia_only")
    if constraints.min_vram_gb is not None:
        found.append("min_vram")
    if constraints.max_rub_per_hour is not None:
        found.append("max_rate")
    if constraints.max_rub_per_gpu_hour is not None:
        found.append("max_gpu_rate")
    if constraints.max_rub_per_month is not None:
        found.append("max_month_rate")
    if constraints.gpus is not None:
        found.append("gpus")
    return tuple(found)


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


def _compared(
    parsed: ParsedQuery, table: list[GpuFit], target: GpuFit | None
) -> tuple[GpuFit, ...]:
    """Rows of the other GPUs the question named, in the order named; one named with its own
    count («сравни 2x a100 и 1x h100») is judged at that count."""
    rows: list[GpuFit] = []
    for note in parsed.notes:
        if not note.startswith("extra_gpu:"):
            continue
        name, _, count = note.split(":", 1)[1].partition(":")
        gpu_id = resolve_for_sizing(name)
        family = None if gpu_id else family_of(name)
        if gpu_id is not None:
            row = next((r for r in table if r.gpu.id == gpu_id), None)
        elif family is not None:
            row = conservative_member([r for r in table if r.gpu.family == family])
        else:
            row = None
        if row is not None and count and int(count) != row.gpus:
            query = replace(parsed.query, gpus=int(count))
            row = fit_table(query, parsed.model, [row.gpu], asked=row.gpu.id)[0]
        if row is not None and row is not target and row not in rows:
            rows.append(row)
    return tuple(rows)


def _across_servers(target: GpuFit | None, query: FitQuery, model: ModelSpec) -> int | None:
    if target is None or target.verdict is not Verdict.NO or target.min_gpus is not None:
        return None
    return fewest_across_servers(query, model, target.gpu)


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
    """The seed guide's upgrade path (docs/estimator.md): same Hopper chip, 141 GB, not 80."""
    if target is None or target.gpu.family != "H100" or target.verdict is not Verdict.NO:
        return False
    return any(row.gpu.family == "H200" and row.verdict is not Verdict.NO for row in table)


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
            "offload": query.offload.value,
        },
        "target_gpu": answer.target.gpu.id if answer.target else None,
        **solved_json(answer.solved),
        "peak_gb": round(answer.memory.peak, 2),
        "peak_range_gb": [round(answer.band.low, 2), round(answer.band.high, 2)],
        "breakdown": {key: round(value, 2) for key, value in answer.memory.breakdown().items()},
        "fits": [
            {
                "gpu": row.gpu.id,
                "vram_gb": round(row.usable_gib, 2),
                "peak_gb": round(row.peak_gib, 2),
                "peak_range_gb": [round(row.low_gib, 2), round(row.high_gib, 2)],
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
        "offload": None
        if answer.offload is None
        else {
            "host_ram_gb": round(answer.offload.ram_gb, 1),
            "cpu_step_s": round(answer.offload.step_seconds, 2),
            "stream_s": round(answer.offload.stream_seconds, 2),
        },
        "levers": [_comparison_json(comparison) for comparison in answer.levers],
        "plans": [
            {
                "gpu": plan.quote.gpu_id,
                "gpus": plan.gpus,
                "provider": plan.quote.provider,
                "location": plan.quote.location,
                "billing": "month" if plan.monthly else "hour",
                "shard": plan.shard.value if plan.shard else None,
                "hours": None if plan.hours is None else round(plan.hours, 2),
                "months": plan.months,
                "cost_rub": None if plan.cost_rub is None else round(plan.cost_rub, 2),
                "caveats": [caveat.value for caveat in plan.caveats],
            }
            for plan in answer.plans
        ],
    }


def _comparison_json(comparison: Comparison) -> dict[str, Any]:
    def variant(item: Variant) -> dict[str, Any]:
        card = item.card
        return {
            "setting": item.setting,
            "peak_gb": round(item.peak_gib, 2),
            "gpu": None if card is None else card.gpu.id,
            "gpus": None if card is None else card.min_gpus,
            "verdict": None if card is None else card.verdict.value,
            "host_ram_gb": round(item.host_ram_gb, 1),
            "cpu_step_s": round(item.step_seconds, 2),
            "hours": None if item.hours is None else round(item.hours, 2),
        }

    return {
        "lever": comparison.lever,
        "asked": comparison.asked,
        "as_read": variant(comparison.current),
        "others": [variant(other) for other in comparison.others],
    }
