"""Estimator accuracy against published measured peaks, side by side with rules of thumb.

For every row of shared/data/vram_calibration.csv (or --csv FILE in the same format) it prints
our estimate in the row's own metric and unit (allocated, reserved or whole-card, in GiB), the
measured figure and the error; then, for ours and for two rules of thumb, the median and
maximum absolute error and the share of rows within 10 % and 25 %.

Rows marked OOM are lower bounds (an estimate at or above them is right); "fits within"
budgets marked UPPER BOUND are upper bounds; rows the file marks SUSPECT are listed but not
scored.

    .venv/bin/python -m bench.estimator_accuracy [--csv FILE] [--quiet]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.calibration import DEFAULT_CSV, Bound, CalibrationRow, Metric, read_rows
from estimator.gpus import get, resolve_for_sizing
from estimator.memory import estimate_memory
from estimator.models import match_model
from estimator.query import Method, Precision

GB_PER_GIB = 2**30 / 1e9


@dataclass(frozen=True)
class Scored:
    row: CalibrationRow
    estimate: float
    error: float  # signed, relative to the measured figure; 0 inside a bound


def ours(row: CalibrationRow) -> float:
    model = match_model(row.model_name)
    if model is None:
        raise LookupError(f"row {row.index}: no catalog model for {row.model_name!r}")
    memory = estimate_memory(row.query, model)
    value = {
        Metric.ALLOCATED: memory.allocated,
        Metric.RESERVED: memory.reserved,
        Metric.TOTAL: memory.peak,
    }[row.metric]
    card = _card_gib(row.gpu_text)
    if row.pageable_optimizer and card is not None and memory.peak > card:
        # bitsandbytes' paged optimizers spill their state to CPU RAM once the card is full.
        value = min(value, card)
    return value


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
    """The seed guide's "VRAM ≈ 4× the parameters in fp16" (8 GB per billion)."""
    return _params_b(row) * 4 * 2 / GB_PER_GIB


def _params_b(row: CalibrationRow) -> float:
    model = match_model(row.model_name)
    assert model is not None
    return model.params_b


def _card_gib(gpu_text: str) -> float | None:
    gpu_id = resolve_for_sizing(re.sub(r"^\s*\d+\s*x\s*", "", gpu_text.split("(")[0]))
    if gpu_id is not None:
        return get(gpu_id).usable_gib
    size = re.search(r"(\d+)\s*GB", gpu_text)
    return int(size.group(1)) / GB_PER_GIB * 0.98 if size else None


def score(rows: list[CalibrationRow], method: Callable[[CalibrationRow], float]) -> list[Scored]:
    scored = []
    for row in rows:
        estimate = method(row)
        error = (estimate - row.measured_gib) / row.measured_gib
        if (row.bound is Bound.LOWER and estimate >= row.measured_gib) or (
            row.bound is Bound.UPPER and estimate <= row.measured_gib
        ):
            error = 0.0
        scored.append(Scored(row, estimate, error))
    return scored


def summary(scored: list[Scored]) -> tuple[float, float, float, float]:
    errors = [abs(item.error) for item in scored]
    return (
        statistics.median(errors),
        max(errors),
        sum(error <= 0.10 for error in errors) / len(errors),
        sum(error <= 0.25 for error in errors) / len(errors),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    parser.add_argument("--quiet", action="store_true", help="summary only")
    args = parser.parse_args()
    if not args.csv.exists():
        # The measurements live in ../shared, beside the checkout, not in the repository.
        sys.exit(
            f"bench.estimator_accuracy: {args.csv} not found: it comes with ../shared"
            " (the project's shared data, checked out beside this repository), or pass --csv FILE"
        )
    rows = read_rows(args.csv)
    scored_rows = [row for row in rows if row.excluded is None]
    results = {
        "gpuradar": score(scored_rows, ours),
        "LLaMA-Factory table": score(scored_rows, llama_factory),
        "seeds: 4x params fp16": score(scored_rows, seeds_rule),
    }
    if not args.quiet:
        print(
            f"{'#':>3} {'model':<24}{'method':<7}{'metric':<10}{'bound':<6}"
            f"{'est GiB':>8}{'meas GiB':>9}{'error':>8}"
        )
        for item in results["gpuradar"]:
            row = item.row
            print(
                f"{row.index:>3} {row.model_name[:23]:<24}{row.query.method.value:<7}"
                f"{row.metric.value:<10}{row.bound.value:<6}{item.estimate:>8.2f}"
                f"{row.measured_gib:>9.2f}{item.error:>+8.0%}"
            )
        for row in rows:
            if row.excluded:
                print(f"{row.index:>3} {row.model_name[:23]:<24}not scored: {row.excluded}")
    print(f"\n{len(scored_rows)} rows scored of {len(rows)} ({args.csv.name})")
    print(f"{'estimator':<24}{'median |err|':>13}{'max |err|':>10}{'<=10%':>7}{'<=25%':>7}")
    for name, scored in results.items():
        median, worst, within10, within25 = summary(scored)
        print(f"{name:<24}{median:>13.1%}{worst:>10.0%}{within10:>7.0%}{within25:>7.0%}")
    median, _, _, within25 = summary(results["gpuradar"])
    baseline = summary(results["LLaMA-Factory table"])[0]
    print(
        f"\ntargets: median <= 10% ({'met' if median <= 0.10 else 'MISSED'}), "
        f">= 85% within 25% ({'met' if within25 >= 0.85 else 'MISSED'}); "
        f"median error is {baseline / median:.1f}x lower than LLaMA-Factory's table"
    )


if __name__ == "__main__":
    main()
