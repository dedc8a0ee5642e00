"""Reverse questions: the largest ctx, micro-batch or LoRA rank that fits a named card.

    solve(understand("8b qlora ctx=max gpu=3090"), load_gpus())
        -> Solution(lever=CTX, value=4864, next_value=6144, tight_value=6144, ...)

The solver asks the answer's own verdict (`estimator.fit.judge_run`: the estimate on that
card, the range its measured error puts around it, the grade of that range) on the card and
count the question names. The solved value is the largest one whose normal answer says
«помещается» (Verdict.FITS: the range's high end leaves the headroom the verdict asks for,
`estimator.fit.TIGHT_HEADROOM`, free); a value the verdict calls «впритык» may peak on the
card's last memory or past it once the estimate's own error is counted (estimator.accuracy).
The largest tight value above it, when there is one, is reported beside it. The peak grows
with each lever (activations and logits with ctx and micro-batch, the adapters with the rank;
an adaptive loss at its worst batch of the run, estimator.memory), so an
exponential search up the lever's grid brackets each edge and a binary search finds it with a
few dozen estimates.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from estimator.fit import Verdict, judge_run, least_card_of_size
from estimator.parsing.result import ParsedQuery
from estimator.query import FitQuery
from estimator.specs import GpuSpec, ModelSpec


class Lever(StrEnum):
    """What a reverse question solves for, named as the command's key."""

    CTX = "ctx"
    BS = "bs"
    RANK = "rank"


# The FitQuery field each lever sets.
FIELDS: dict[Lever, str] = {Lever.CTX: "ctx", Lever.BS: "micro_batch", Lever.RANK: "lora_rank"}

# Context lengths are solved in multiples of 256: trainers' caps are such round numbers
# (2048, 12288), and a finer answer would promise a precision the estimate does not have.
CTX_STEP = 256
# A model whose config gives no max_position_embeddings (a bare size mapped to a synthetic
# model) is capped at 131072: Llama 3.1's and Qwen2.5's long window, the longest the
# catalogue's current families train with.
CTX_CAP_UNKNOWN = 131_072
# The next step a reverse answer says would not fit with headroom: a quarter more context
# (the next size people try: 8k -> 10k, 12k -> 15k), one more sample per micro-batch, twice
# the rank (LoRA ranks are powers of two).
CTX_NEXT_SHARE = 0.25
# The same ranges the command grammar accepts (estimator.parsing.build.LIMITS).
BS_CAP = 1024
RANK_CAP = 1024


class Outcome(StrEnum):
    SOLVED = "solved"  # `value` fits with headroom, `next_value` does not
    AT_CAP = "at_cap"  # even the lever's cap fits with headroom: `value` is the cap
    NONE_FITS = "none_fits"  # not even the smallest value fits with headroom: `value` is it
    NO_GPU = "no_gpu"  # the question names no card: nothing to solve against


@dataclass(frozen=True)
class Solution:
    lever: Lever
    outcome: Outcome
    gpu: GpuSpec | None
    gpus: int  # the card count it was solved on
    value: int | None  # the largest that fits with headroom; the smallest when none does
    cap: int  # the largest value the lever may take for this model
    next_value: int | None = None  # the next step up, which does not fit with headroom
    # How far the peak exceeds the card's usable memory, GiB (< 0: tight, not over): at
    # `next_value` when solved, at `value` (the smallest) when none fits.
    over_gib: float | None = None
    # The largest value the verdict calls tight (under the card, without the headroom): above
    # `value` when solved, from `value` (the smallest) on when none fits. None when there is
    # none: the grid's value after the last roomy one is already over the card.
    tight_value: int | None = None

    @property
    def fits(self) -> bool:
        return self.outcome in (Outcome.SOLVED, Outcome.AT_CAP)


def ctx_cap(model: ModelSpec) -> int:
    """The longest context the solver tries: the model's native window, on the 256 grid."""
    native = model.native_ctx if model.native_ctx > 0 else CTX_CAP_UNKNOWN
    return max(CTX_STEP, native // CTX_STEP * CTX_STEP)


def grid(lever: Lever, model: ModelSpec) -> Sequence[int]:
    """Every value the lever may take, ascending."""
    if lever is Lever.CTX:
        return range(CTX_STEP, ctx_cap(model) + 1, CTX_STEP)
    if lever is Lever.BS:
        return range(1, BS_CAP + 1)
    return [1 << n for n in range(RANK_CAP.bit_length())]  # 1, 2, 4 ... 1024


def next_step(lever: Lever, value: int, cap: int) -> int | None:
    """The step after `value` the answer says would not fit; None at the cap."""
    if value >= cap:
        return None
    if lever is Lever.CTX:
        up = math.ceil(value * (1 + CTX_NEXT_SHARE) / CTX_STEP) * CTX_STEP
        return min(up, cap)
    if lever is Lever.BS:
        return value + 1
    return value * 2


def with_value(query: FitQuery, lever: Lever, value: int) -> FitQuery:
    """The run with the lever at `value`; examples longer than a solved ctx are cut to it."""
    if lever is Lever.CTX:
        changed = replace(query, ctx=value)
    elif lever is Lever.BS:
        changed = replace(query, micro_batch=value)
    else:
        changed = replace(query, lora_rank=value)
    tokens = changed.tokens_per_example
    if lever is Lever.CTX and tokens is not None and tokens > value:
        changed = replace(changed, tokens_per_example=value)
    return changed


def over_gib(query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> float:
    """How far even the low end of the run's range on `gpu` exceeds the card's usable
    memory, GiB (< 0: it may hold, tight or with room)."""
    return judge_run(query, model, gpu.usable_gib).band.low - gpu.usable_gib


def verdict(query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> Verdict:
    """The answer's own verdict on the run's range on `gpu` (estimator.fit.judge)."""
    return judge_run(query, model, gpu.usable_gib).verdict


def fits(query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> bool:
    """A fit with headroom by the answer's own verdict: «помещается», not «впритык»."""
    return verdict(query, model, gpu) is Verdict.FITS


def holds_at_all(query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> bool:
    """Fits or tight: the run stays under the card's usable memory."""
    return verdict(query, model, gpu) is not Verdict.NO


def largest(holds: Callable[[int], bool], values: Sequence[int]) -> int | None:
    """The largest of the ascending `values` for which `holds`, for a `holds` that is true up
    to some point and false after it; None when it fails at the first value. Exponential
    search brackets the edge, binary search closes on it: O(log n) calls."""
    if not values or not holds(values[0]):
        return None
    low, step = 0, 1  # values[low] holds
    high = len(values)  # values[high] fails (or is past the end)
    while low + step < high:
        if holds(values[low + step]):
            low += step
            step *= 2
        else:
            high = low + step
            break
    while high - low > 1:
        middle = (low + high) // 2
        if holds(values[middle]):
            low = middle
        else:
            high = middle
    return values[low]


def target_gpu(parsed: ParsedQuery, gpus: Sequence[GpuSpec]) -> GpuSpec | None:
    """The card the question names; for a bare family ("A100") the member the answer sizes
    against: the smaller memory, then the slower (estimator.answer.conservative_member)."""
    if parsed.target_gpu:
        return next((gpu for gpu in gpus if gpu.id == parsed.target_gpu), None)
    if parsed.target_family:
        members = [gpu for gpu in gpus if gpu.family == parsed.target_family]
        usual = [gpu for gpu in members if gpu.form != "NVL"] or members
        return min(usual, key=lambda gpu: (gpu.usable_gib, gpu.tflops), default=None)
    if parsed.card_gb is not None:  # "what batch fits a 24GB card?"
        return least_card_of_size(parsed.card_gb, gpus)
    return None


def solve_for(lever: Lever, query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> Solution:
    """The largest value of `lever` for which `query` fits `gpu` with headroom at the query's
    card count, and the largest tight one above it."""
    values = grid(lever, model)
    cap = values[-1]

    def roomy(value: int) -> bool:
        return fits(with_value(query, lever, value), model, gpu)

    def under(value: int) -> bool:
        return holds_at_all(with_value(query, lever, value), model, gpu)

    found = largest(roomy, values)
    # Tight values lie just above the roomy ones: search on from the last roomy value.
    start = 0 if found is None else values.index(found) + 1
    tight = largest(under, values[start:])
    base = Solution(lever, Outcome.SOLVED, gpu, query.gpus, found, cap, tight_value=tight)
    if found is None:
        over = over_gib(with_value(query, lever, values[0]), model, gpu)
        return replace(base, outcome=Outcome.NONE_FITS, value=values[0], over_gib=over)
    after = next_step(lever, found, cap)
    if after is None:
        return replace(base, outcome=Outcome.AT_CAP)
    over = over_gib(with_value(query, lever, after), model, gpu)
    return replace(base, next_value=after, over_gib=over)


def solve(parsed: ParsedQuery, gpus: Sequence[GpuSpec]) -> Solution | None:
    """The question's reverse answer, or None when it asks for no lever's maximum."""
    if parsed.solve is None:
        return None
    lever = Lever(parsed.solve)
    gpu = target_gpu(parsed, gpus)
    if gpu is None:
        cap = grid(lever, parsed.model)[-1]
        return Solution(lever, Outcome.NO_GPU, None, parsed.query.gpus, None, cap)
    return solve_for(lever, parsed.query, parsed.model, gpu)


def solved_query(parsed: ParsedQuery, solution: Solution | None) -> ParsedQuery:
    """The question with the solved value in its run: the normal answer is then sized at it
    (at the smallest value when none fits; unchanged when there is no card)."""
    if solution is None or solution.value is None:
        return parsed
    return replace(parsed, query=with_value(parsed.query, solution.lever, solution.value))


def solved_json(solution: Solution | None) -> dict[str, object]:
    """The JSON fields of a reverse answer: {"solved": {"ctx": 12288}, "solve": {...}}, or
    nothing for a plain question. `solved` holds the value only when it fits with headroom;
    `tight` is the largest value above it that fits without (null when none)."""
    if solution is None:
        return {}
    over = None if solution.over_gib is None else round(solution.over_gib, 2)
    return {
        "solved": {solution.lever.value: solution.value if solution.fits else None},
        "solve": {
            "lever": solution.lever.value,
            "outcome": solution.outcome.value,
            "gpu": solution.gpu.id if solution.gpu else None,
            "gpus": solution.gpus,
            "value": solution.value,
            "cap": solution.cap,
            "next": solution.next_value,
            "over_gb": over,
            "tight": solution.tight_value,
        },
    }
