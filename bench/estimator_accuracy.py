"""Estimator accuracy against published measured peaks: in-sample and leave-one-source-out.

The memory model has three fitted constants (`estimator.memory.Calibration`). For every
source (a repository or site that published measurements) the bench fits them on every other
source and scores the held-out one: that is the out-of-sample figure, the one the targets
apply to, because new measurements come from sources the estimator has not seen. The
in-sample figure (constants fitted on everything, as shipped) is printed beside it, and so
are two rules of thumb scored on the same rows.

Rows marked OOM are lower bounds (an estimate at or above them is right); "fits within"
budgets marked UPPER BOUND are upper bounds; rows the file marks SUSPECT are listed but not
scored.

    .venv/bin/python -m bench.estimator_accuracy [--csv FILE] [--quiet] [--fit]

The default CSV is tests/fixtures/estimator/vram_calibration.csv (provenance in the README
beside it); --fit prints the in-sample constants estimator/memory.py ships.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.calibration import DEFAULT_CSV, Bound, CalibrationRow, Metric, read_rows
from estimator.accuracy import CLAIM, AccuracyClaim, claim_from
from estimator.gpus import get, resolve_for_sizing
from estimator.memory import CALIBRATION, Calibration, MemoryParts, memory_parts
from estimator.models import match_model
from estimator.query import Method, Precision
from estimator.specs import GIB

GB_PER_GIB = 2**30 / 1e9
TARGET_MEDIAN = 0.10
TARGET_WITHIN_25 = 0.85
# Search ranges for the fit: the brackets of docs/estimator.md §Overheads (CUDA context
# 0.5-1.5 GB; allocator slack 1-12 %) and, for autograd's extras, from none beyond the
# counted tensors to 60 % more (or 30 % fewer, where storage is shared).
RANGES = {
    "activation_factor": (0.7, 1.6),
    "cuda_context_gib": (0.5, 1.5),
    "allocator_slack": (0.01, 0.12),
}
# Errors past this (in log terms, ~65 %) count as this much in the fit, so that one odd row
# cannot drag the constants for all the others.
ROBUST_CAP = 0.5


@dataclass(frozen=True)
class Prepared:
    """A row with its estimate's parts computed once; the constants are applied cheaply."""

    row: CalibrationRow
    parts: MemoryParts
    card_gib: float | None

    def estimate(self, calibration: Calibration) -> float:
        parts = self.parts
        activations = parts.layer_activations * calibration.activation_factor + parts.logits
        allocated = parts.allocated(activations) / GIB
        value = {
            Metric.ALLOCATED: allocated,
            Metric.RESERVED: allocated * (1 + calibration.allocator_slack),
            Metric.NVIDIA_SMI: allocated * (1 + calibration.allocator_slack)
            + calibration.cuda_context_gib,
        }[self.row.metric]
        peak = allocated * (1 + calibration.allocator_slack) + calibration.cuda_context_gib
        budget = self.row.metric is Metric.NVIDIA_SMI
        if parts.loss_room and self.card_gib is not None and not budget:
            # An adaptive fused loss (Unsloth) spreads into what the measured card had left.
            room = min(parts.loss_room / GIB, max(0.0, self.card_gib - peak))
            value += room * (1 + calibration.allocator_slack)
        if self.row.pageable_optimizer and self.card_gib is not None and peak > self.card_gib:
            # bitsandbytes' paged optimizers spill their state to CPU RAM once the card is full.
            value = min(value, self.card_gib)
        return value


@dataclass(frozen=True)
class Scored:
    row: CalibrationRow
    estimate: float
    error: float  # signed, relative to the measured figure; 0 inside a bound


def prepare(rows: Iterable[CalibrationRow]) -> list[Prepared]:
    prepared = []
    for row in rows:
        model = match_model(row.model_name)
        if model is None:
            raise LookupError(f"row {row.index}: no catalog model for {row.model_name!r}")
        prepared.append(Prepared(row, memory_parts(row.query, model), _card_gib(row.gpu_text)))
    return prepared


def _card_gib(gpu_text: str) -> float | None:
    gpu_id = resolve_for_sizing(re.sub(r"^\s*\d+\s*x\s*", "", gpu_text.split("(")[0]))
    if gpu_id is not None:
        return get(gpu_id).usable_gib
    size = re.search(r"(\d+)\s*GB", gpu_text)
    return int(size.group(1)) / GB_PER_GIB * 0.98 if size else None


def _error(row: CalibrationRow, estimate: float) -> float:
    error = (estimate - row.measured_gib) / row.measured_gib
    if (row.bound is Bound.LOWER and estimate >= row.measured_gib) or (
        row.bound is Bound.UPPER and estimate <= row.measured_gib
    ):
        return 0.0
    return error


def score_with(prepared: Sequence[Prepared], calibration: Calibration) -> list[Scored]:
    return [
        Scored(item.row, est, _error(item.row, est))
        for item in prepared
        for est in (item.estimate(calibration),)
    ]


def _loss(prepared: Sequence[Prepared], calibration: Calibration) -> float:
    total = 0.0
    for item in prepared:
        estimate = item.estimate(calibration)
        if _error(item.row, estimate) == 0.0:
            continue
        total += min(abs(math.log(estimate / item.row.measured_gib)), ROBUST_CAP)
    return total / max(1, len(prepared))


def fit(prepared: Sequence[Prepared], rounds: int = 5, steps: int = 16) -> Calibration:
    """Coordinate search over the three constants, narrowing the range each round."""
    current = {
        "activation_factor": 1.0,
        "cuda_context_gib": 0.8,
        "allocator_slack": 0.05,
    }
    spans = {name: high - low for name, (low, high) in RANGES.items()}
    for _ in range(rounds):
        for name, (low, high) in RANGES.items():
            lo = max(low, current[name] - spans[name] / 2)
            hi = min(high, current[name] + spans[name] / 2)
            candidates = [lo + (hi - lo) * i / steps for i in range(steps + 1)]
            losses = [
                (_loss(prepared, Calibration(**{**current, name: value})), value)
                for value in candidates
            ]
            current[name] = min(losses)[1]
            spans[name] /= 2
    return Calibration(**{name: round(value, 3) for name, value in current.items()})


def leave_one_source_out(
    prepared: Sequence[Prepared],
) -> tuple[list[Scored], dict[str, Calibration]]:
    """Each source scored with constants fitted on all the other sources."""
    by_source: dict[str, list[Prepared]] = defaultdict(list)
    for item in prepared:
        by_source[item.row.source].append(item)
    scored: list[Scored] = []
    fits: dict[str, Calibration] = {}
    for source, held_out in by_source.items():
        rest = [item for item in prepared if item.row.source != source]
        fits[source] = fit(rest)
        scored += score_with(held_out, fits[source])
    order = {item.row.index: n for n, item in enumerate(prepared)}
    return sorted(scored, key=lambda s: order[s.row.index]), fits


def accuracy_claim(out_of_sample: Sequence[Scored], sources: int) -> AccuracyClaim:
    """What the answer may say of itself, from the leave-one-source-out scores."""
    median, _, _, within25 = summary(out_of_sample)
    stacks = {item.row.query.stack for item in out_of_sample}
    stack_medians = [
        summary([s for s in out_of_sample if s.row.query.stack is stack])[0] for stack in stacks
    ]
    return claim_from(len(out_of_sample), sources, median, stack_medians, within25)


def by_metric(scored: Sequence[Scored]) -> dict[Metric, list[Scored]]:
    """The scores of each measured quantity (allocated, reserved, nvidia-smi), in that order."""
    groups = {metric: [s for s in scored if s.row.metric is metric] for metric in Metric}
    return {metric: held for metric, held in groups.items() if held}


def summary(scored: Sequence[Scored]) -> tuple[float, float, float, float]:
    errors = [abs(item.error) for item in scored]
    return (
        statistics.median(errors),
        max(errors),
        sum(error <= 0.10 for error in errors) / len(errors),
        sum(error <= 0.25 for error in errors) / len(errors),
    )


# --- rules of thumb, scored on the same rows ------------------------------------------------


def llama_factory(row: CalibrationRow) -> float:
    """LLaMA-Factory's README table: GB per billion parameters by method."""
    params_b = _params_b(row)
    if row.query.method is Method.FULL:
        per_b = 18.0 if row.query.precision in (Precision.MIXED, Precision.FP32) else 8.0
    elif row.query.method is Method.LORA:
        per_b = 2.0
    else:
        per_b = 0.5
    return params_b * per_b / GB_PER_GIB


def seeds_rule(row: CalibrationRow) -> float:
    """The seed guide's "VRAM ≈ 4× the parameters in fp16" (8 GB per billion; docs/estimator.md)."""
    return _params_b(row) * 4 * 2 / GB_PER_GIB


def _params_b(row: CalibrationRow) -> float:
    model = match_model(row.model_name)
    assert model is not None
    return model.params_b


def score_rule(rows: Sequence[CalibrationRow], rule: Callable[[CalibrationRow], float]):
    return [Scored(row, est, _error(row, est)) for row in rows for est in (rule(row),)]


# --- report ---------------------------------------------------------------------------------


def _line(name: str, scored: Sequence[Scored]) -> str:
    median, worst, within10, within25 = summary(scored)
    return f"{name:<34}{len(scored):>4}{median:>9.1%}{worst:>8.0%}{within10:>7.0%}{within25:>7.0%}"


def _header(first: str) -> str:
    return f"{first:<34}{'rows':>4}{'median':>9}{'max':>8}{'<=10%':>7}{'<=25%':>7}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    parser.add_argument("--quiet", action="store_true", help="summaries only")
    parser.add_argument("--fit", action="store_true", help="print the in-sample constants")
    args = parser.parse_args()
    if not args.csv.exists():
        sys.exit(f"bench.estimator_accuracy: {args.csv} not found; pass --csv FILE")
    rows = read_rows(args.csv)
    scored_rows = [row for row in rows if row.excluded is None]
    prepared = prepare(scored_rows)
    in_sample = score_with(prepared, CALIBRATION)
    out_of_sample, fits = leave_one_source_out(prepared)

    if not args.quiet:
        print(
            f"{'#':>3} {'model':<24}{'method':<7}{'stack':<10}{'metric':<10}{'bound':<6}"
            f"{'meas':>7}{'in':>7}{'err':>6}{'LOSO':>7}{'err':>6}"
        )
        for inside, outside in zip(in_sample, out_of_sample, strict=True):
            row = inside.row
            print(
                f"{row.index:>3} {row.model_name[:23]:<24}{row.query.method.value:<7}"
                f"{row.query.stack.value:<10}{row.metric.value:<10}{row.bound.value:<6}"
                f"{row.measured_gib:>7.2f}{inside.estimate:>7.2f}{inside.error:>+6.0%}"
                f"{outside.estimate:>7.2f}{outside.error:>+6.0%}"
            )
        for row in rows:
            if row.excluded:
                print(f"{row.index:>3} {row.model_name[:23]:<24}not scored: {row.excluded}")

    print(f"\n{len(scored_rows)} rows scored of {len(rows)} ({args.csv.name}), {len(fits)} sources")
    print(_header("estimator"))
    print(_line("gpuradar, leave-one-source-out", out_of_sample))
    print(_line("gpuradar, in-sample (as shipped)", in_sample))
    print(_line("LLaMA-Factory table", score_rule(scored_rows, llama_factory)))
    print(_line("seeds: 4x params fp16", score_rule(scored_rows, seeds_rule)))

    print("\nleave-one-source-out, by source (constants fitted without it)")
    print(_header("source") + "   act   ctx  slack")
    for source, calibration in fits.items():
        held = [s for s in out_of_sample if s.row.source == source]
        print(
            _line(source[:33], held)
            + f"  {calibration.activation_factor:.2f}  {calibration.cuda_context_gib:.2f}"
            f"  {calibration.allocator_slack:.3f}"
        )
    print("\nleave-one-source-out, by metric (each row scored against what it measured)")
    print(_header("metric"))
    for metric, held in by_metric(out_of_sample).items():
        print(_line(metric.value, held))
    print(_line("overall", out_of_sample))
    print("\nleave-one-source-out, by method")
    print(_header("method"))
    for method in Method:
        held = [s for s in out_of_sample if s.row.query.method is method]
        if held:
            print(_line(method.value, held))
    print("\nleave-one-source-out, by stack")
    print(_header("stack"))
    stacks = sorted({s.row.query.stack for s in out_of_sample}, key=lambda s: s.value)
    for stack in stacks:
        held = [s for s in out_of_sample if s.row.query.stack is stack]
        print(_line(stack.value, held))

    if args.fit:
        print(f"\nin-sample fit: {fit(prepared)} (shipped: {CALIBRATION})")
    claim = accuracy_claim(out_of_sample, len(fits))
    shipped = "the shipped CLAIM" if claim == CLAIM else "NOT the shipped CLAIM"
    print(f"\nclaim: {claim} ({shipped}, estimator/accuracy.py)\n")
    median, _, _, within25 = summary(out_of_sample)
    for metric, held in by_metric(out_of_sample).items():
        m_median, _, _, m_within25 = summary(held)
        print(
            f"targets, {metric.value:<10} ({len(held):>3} rows): median "
            f"{'met' if m_median <= TARGET_MEDIAN else 'MISSED'} ({m_median:.1%}), within 25% "
            f"{'met' if m_within25 >= TARGET_WITHIN_25 else 'MISSED'} ({m_within25:.0%})"
        )
    print(
        f"targets (out of sample): median <= {TARGET_MEDIAN:.0%} "
        f"({'met' if median <= TARGET_MEDIAN else 'MISSED'}: {median:.1%}), "
        f">= {TARGET_WITHIN_25:.0%} within 25% "
        f"({'met' if within25 >= TARGET_WITHIN_25 else 'MISSED'}: {within25:.0%})"
    )


if __name__ == "__main__":
    main()
