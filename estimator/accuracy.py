"""What the answer may claim about its own accuracy, and the band it puts around a figure.

Both come from estimator/data/accuracy.csv, which `python -m bench.estimator_accuracy
--write-claim` generates from the published measurements in
tests/fixtures/estimator/vram_calibration.csv, each scored with the constants fitted on
every *other* repository (leave one repository out: a user's run comes from a setup the
calibration has not seen). tests/bench/test_calibration.py regenerates the file and compares:
a change to the model or to the table that moves a figure fails until the file is rewritten.

One line of the file per scope (a training stack, or every row) and metric (allocated,
reserved, nvidia-smi, or all three): how many rows and independent repositories, the median
absolute error, the share within 25 %, the share under-sized by more than 15 %, the median
signed error (its direction) and the 10th and 90th percentiles of the signed error
(estimate / measured - 1), from which `band` makes the range an answer prints.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

from estimator.query import Stack

ACCURACY_CSV = Path(__file__).resolve().parent / "data" / "accuracy.csv"
# Scope and metric of the lines that pool every stack, or every metric.
ALL = "all"
# A stack's own figures are claimed only from this many independent repositories; with
# fewer, the answer says so and its band is the pooled one.
MIN_REPOSITORIES = 3
# The band: from the 10th to the 90th percentile of the signed error.
BAND_LOW_PERCENTILE = 10
BAND_HIGH_PERCENTILE = 90


@dataclass(frozen=True)
class AccuracyLine:
    scope: str  # a Stack value, or ALL
    metric: str  # a Metric value, or ALL
    rows: int
    repositories: int
    median_abs: float  # fractions: 0.087 is 8.7 %
    within_25: float
    under_15: float  # share of rows whose estimate is more than 15 % below the measurement
    median_signed: float  # < 0: the estimate tends to be low
    p10: float  # signed error percentiles
    p90: float

    @property
    def independent(self) -> bool:
        return self.repositories >= MIN_REPOSITORIES


def percentile(values: Sequence[float], share: float) -> float:
    """The `share` quantile (0..1) of `values`, linear between the sorted values."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = share * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def line_from(scope: str, metric: str, errors: Sequence[float], repositories: int) -> AccuracyLine:
    """The figures of one scope and metric from its rows' signed errors."""
    absolute = [abs(error) for error in errors]
    return AccuracyLine(
        scope=scope,
        metric=metric,
        rows=len(errors),
        repositories=repositories,
        median_abs=round(percentile(absolute, 0.5), 4),
        within_25=round(sum(error <= 0.25 for error in absolute) / len(errors), 4),
        under_15=round(sum(error < -0.15 for error in errors) / len(errors), 4),
        median_signed=round(percentile(errors, 0.5), 4),
        p10=round(percentile(errors, BAND_LOW_PERCENTILE / 100), 4),
        p90=round(percentile(errors, BAND_HIGH_PERCENTILE / 100), 4),
    )


def write_lines(lines: Iterable[AccuracyLine], path: Path = ACCURACY_CSV) -> None:
    names = [field.name for field in fields(AccuracyLine)]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(names)
        for line in lines:
            writer.writerow([getattr(line, name) for name in names])


def read_lines(path: Path = ACCURACY_CSV) -> list[AccuracyLine]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [
            AccuracyLine(
                scope=record["scope"],
                metric=record["metric"],
                rows=int(record["rows"]),
                repositories=int(record["repositories"]),
                median_abs=float(record["median_abs"]),
                within_25=float(record["within_25"]),
                under_15=float(record["under_15"]),
                median_signed=float(record["median_signed"]),
                p10=float(record["p10"]),
                p90=float(record["p90"]),
            )
            for record in csv.DictReader(handle)
        ]


@cache
def _table() -> dict[tuple[str, str], AccuracyLine]:
    return {(line.scope, line.metric): line for line in read_lines()}


def overall(metric: str = ALL) -> AccuracyLine:
    return _table()[(ALL, metric)]


def for_stack(stack: Stack, metric: str = ALL) -> AccuracyLine | None:
    """The stack's own figures, or None where no published measurement scored it."""
    return _table().get((stack.value, metric))


def band_line(stack: Stack) -> AccuracyLine:
    """The errors a figure of this stack's is banded with: its own rows (every metric, each
    row scored against what it measured) where they come from enough independent
    repositories, else every row."""
    own = for_stack(stack)
    return own if own is not None and own.independent else overall()


@dataclass(frozen=True)
class Band:
    """Where the true figure lies, from the measured error: an estimate `e` whose signed
    error is between p10 and p90 means the truth is between e / (1 + p90) and e / (1 + p10)."""

    low: float
    high: float


def band(estimate: float, stack: Stack, must_fit: float | None = None, floor: float = 0.0) -> Band:
    """The range around `estimate` (GiB). `must_fit`, when smaller, is the part that cannot
    leave the card (paged optimizer state can): the low end is banded from it. `floor` is what
    the card holds for certain (the stored weights: exact bytes, no model of ours in them): the
    measured errors widen what is modelled, never below that."""
    line = band_line(stack)
    low_base = estimate if must_fit is None else must_fit
    # Never narrower than the estimate itself on either side.
    low = max(low_base / (1 + max(line.p90, 0.0)), min(floor, low_base))
    high = estimate / (1 + min(line.p10, 0.0))
    return Band(low=low, high=high)
