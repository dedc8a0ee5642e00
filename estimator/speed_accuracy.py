"""What the answer may claim about its training time, and the range it puts around the hours.

Both come from estimator/data/speed_accuracy.csv, which `python -m bench.estimator_speed
--write-claim` generates from the published throughputs in
tests/fixtures/estimator/throughput.csv, each repository scored with the time model's constants
fitted on every *other* repository (a person's run comes from a setup the model has not seen).
tests/bench/test_speed.py regenerates the file and compares: a change to the model or the data
that moves a figure fails until the file is rewritten.

One line per scope (a training stack as the estimator costs it, or every row) and method (full,
LoRA, QLoRA, or all): rows, independent repositories, the median absolute error of the hours
quoted, the share within 25 %, the share quoted more than 15 % short (the run takes longer than
said), the median signed error and its 10th and 90th percentiles (estimated hours / measured
hours - 1), from which `band` makes the range an answer prints. The fields and the band follow
the memory claim's (estimator/accuracy.py on the memory work) so that the two can share code.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

from estimator.query import Method, Stack

ACCURACY_CSV = Path(__file__).resolve().parent / "data" / "speed_accuracy.csv"
# Scope and method of the lines that pool every stack, or every method.
ALL = "all"
# A scope's own figures are used only from this many independent repositories; with fewer,
# the answer falls back to the wider scope (the method's, then every row's).
MIN_REPOSITORIES = 3
BAND_LOW_PERCENTILE = 10
BAND_HIGH_PERCENTILE = 90


@dataclass(frozen=True)
class AccuracyLine:
    scope: str  # a Stack value, or ALL
    metric: str  # a Method value, or ALL
    rows: int
    repositories: int
    median_abs: float  # fractions: 0.087 is 8.7 %
    within_25: float
    under_15: float  # share of rows whose hours are quoted more than 15 % short
    median_signed: float  # < 0: the hours tend to be quoted short
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


def overall() -> AccuracyLine:
    return _table()[(ALL, ALL)]


def band_line(stack: Stack, method: Method) -> AccuracyLine:
    """The errors the hours of a run are banded with: its stack and method's own where enough
    repositories measured them, else the method's over every stack, else every row's."""
    for key in ((stack.value, method.value), (ALL, method.value)):
        line = _table().get(key)
        if line is not None and line.independent:
            return line
    return overall()


@dataclass(frozen=True)
class Band:
    """Where the true hours lie, from the measured error: an estimate `e` whose signed error is
    between p10 and p90 means the truth is between e / (1 + p90) and e / (1 + p10)."""

    low: float
    high: float


def band(hours: float, stack: Stack, method: Method) -> Band:
    line = band_line(stack, method)
    # Never narrower than the estimate itself on either side.
    return Band(low=hours / (1 + max(line.p90, 0.0)), high=hours / (1 + min(line.p10, 0.0)))
