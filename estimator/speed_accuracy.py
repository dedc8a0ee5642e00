"""What the answer may claim about its training time, and the range it puts around the hours.

Both come from estimator/data/speed_accuracy.csv, which `python -m bench.estimator_speed
--write-claim` generates from the published throughputs in
tests/fixtures/estimator/throughput.csv, each repository scored with the time model's constants
fitted on every *other* repository (a person's run comes from a setup the model has not seen).
tests/bench/test_speed.py regenerates the file and compares: a change to the model or the data
that moves a figure fails until the file is rewritten.

The file has the memory claim's lines (estimator.accuracy: `AccuracyLine`, read and written by
the same code), one per scope (a training stack as the estimator costs it, or every row) and,
in the `metric` column, method (full, LoRA, QLoRA, or all): rows, independent repositories, the
median absolute error of the hours quoted, the share within 25 %, the share quoted more than
15 % short (the run takes longer than said), the median signed error and its 10th and 90th
percentiles (estimated hours / measured hours - 1), from which `band` makes the range an answer
prints.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from estimator.accuracy import ALL, AccuracyLine, Band, read_lines
from estimator.query import Method, Stack

ACCURACY_CSV = Path(__file__).resolve().parent / "data" / "speed_accuracy.csv"


@cache
def _table() -> dict[tuple[str, str], AccuracyLine]:
    return {(line.scope, line.metric): line for line in read_lines(ACCURACY_CSV)}


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


def band(hours: float, stack: Stack, method: Method) -> Band:
    """Where the true hours lie: an estimate whose signed error is between p10 and p90 means
    the truth is between hours / (1 + p90) and hours / (1 + p10); never narrower than the
    estimate itself on either side."""
    line = band_line(stack, method)
    return Band(low=hours / (1 + max(line.p90, 0.0)), high=hours / (1 + min(line.p10, 0.0)))
