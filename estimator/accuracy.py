"""What the answer may claim about its own accuracy: the leave-one-source-out figures that
bench/estimator_accuracy.py prints (`claim_from` turns them into these numbers), on
tests/fixtures/estimator/vram_calibration.csv.

Out of sample, because a user's run comes from a setup the calibration has not seen. Errors
are rounded up and the share within 25 % down, so the answer never promises more than was
measured; the range across training stacks is given beside the median, so one figure is not
dressed as certain. tests/bench/test_calibration.py recomputes them: a change to the model or
to the table that moves them fails until this file says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class AccuracyClaim:
    rows: int  # published measurements scored
    sources: int  # repositories or sites they came from
    median_pct: int  # median |error| on a source left out, rounded up
    stack_low_pct: int  # the best and worst training stack's median, rounded up
    stack_high_pct: int
    within_25_pct: int  # the share of measurements within 25 %, rounded down


def claim_from(
    rows: int,
    sources: int,
    median: float,
    stack_medians: list[float],
    within_25: float,
) -> AccuracyClaim:
    """Fractions (0.087) in, the rounded claim out."""

    def up(fraction: float) -> int:
        return math.ceil(round(fraction * 100, 6))

    return AccuracyClaim(
        rows=rows,
        sources=sources,
        median_pct=up(median),
        stack_low_pct=up(min(stack_medians)),
        stack_high_pct=up(max(stack_medians)),
        within_25_pct=math.floor(round(within_25 * 100, 6)),
    )


# As `python -m bench.estimator_accuracy` printed it once the Liger-Kernel FSDP runs, the
# torchao low-bit AdamW table and torchtitan's FSDP2 tables were added and the optimizer step
# became a peak of its own ("claim:" line).
CLAIM = AccuracyClaim(
    rows=158, sources=15, median_pct=7, stack_low_pct=4, stack_high_pct=13, within_25_pct=90
)
