"""The claim and the band come from estimator/data/accuracy.csv, worded as measured."""

from __future__ import annotations

import math

import pytest

from estimator.accuracy import (
    ALL,
    MIN_REPOSITORIES,
    band,
    band_line,
    for_stack,
    line_from,
    overall,
    percentile,
    read_lines,
)
from estimator.answer import build_answer
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.query import Stack
from estimator.sizing_text import render_details


def test_percentiles_and_lines_are_computed_from_the_signed_errors():
    errors = [-0.3, -0.1, 0.0, 0.05, 0.2]
    assert percentile(errors, 0.5) == 0.0
    assert percentile(errors, 0.1) == pytest.approx(-0.3 + 0.4 * 0.2)
    line = line_from("hf", ALL, errors, repositories=4)
    assert (line.rows, line.median_abs, line.median_signed) == (5, 0.1, 0.0)
    assert line.under_15 == pytest.approx(0.2)  # one row more than 15 % low
    assert line.within_25 == pytest.approx(0.8)
    assert line.independent


def test_the_band_puts_the_truth_between_the_percentiles():
    """An estimate whose error lies between p10 and p90 means a true peak between
    estimate / (1 + p90) and estimate / (1 + p10); a stack measured by fewer than three
    repositories is banded with every stack's errors."""
    hf = band_line(Stack.HF)
    assert hf.scope == "hf"
    assert hf.repositories >= MIN_REPOSITORIES
    span = band(20.0, Stack.HF)
    assert span.low == pytest.approx(20.0 / (1 + hf.p90))
    assert span.high == pytest.approx(20.0 / (1 + hf.p10))
    assert span.low < 20.0 < span.high
    few = for_stack(Stack.SWIFT)
    assert few is not None
    assert not few.independent
    assert band_line(Stack.SWIFT) == overall()
    # Paged state can leave the card: the low end is banded from what cannot.
    assert band(30.0, Stack.HF, must_fit=20.0).low == pytest.approx(span.low)


def test_every_scope_has_its_all_metrics_line_and_consistent_figures():
    lines = read_lines()
    scopes = {line.scope for line in lines}
    assert ALL in scopes
    for scope in scopes:
        assert any(line.scope == scope and line.metric == ALL for line in lines)
    for line in lines:
        assert line.p10 <= line.median_signed <= line.p90
        assert 0 <= line.under_15 <= 1
        assert 0 <= line.within_25 <= 1


def _details(text: str) -> str:
    parsed = understand(text)
    assert parsed is not None
    return render_details(build_answer(parsed, load_gpus()), "en")


def test_the_details_quote_the_stacks_line_or_say_it_has_too_few_repositories():
    hf = for_stack(Stack.HF)
    assert hf is not None
    own = _details("8b qlora ctx=2048 stack=hf")
    assert "For HF Trainer + PEFT: median error " + str(math.ceil(hf.median_abs * 100)) in own
    assert f"{math.floor(round(hf.within_25 * 100, 6))}% of measurements within 25%" in own
    pooled = _details("8b qlora ctx=2048 stack=swift")
    assert "fewer than three, so no figure of its own" in pooled
    everything = overall()
    assert f"median error {math.ceil(everything.median_abs * 100)}%" in pooled
    assert "The peak is the longest batch: 1 × 2048 tokens" in pooled
