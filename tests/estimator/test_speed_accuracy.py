"""estimator.speed_accuracy: the time model's claim and the range of hours it gives."""

from __future__ import annotations

import math

import pytest

from estimator.accuracy import ALL, MIN_REPOSITORIES, line_from
from estimator.answer import build_answer
from estimator.gpus import load_gpus
from estimator.parse import parse_command
from estimator.plan_text import hours_span
from estimator.query import Method, Stack
from estimator.sizing_text import render_details
from estimator.speed_accuracy import band, band_line, overall


def test_a_line_counts_the_errors_of_the_hours_quoted():
    line = line_from("hf", "lora", [-0.4, -0.1, 0.0, 0.2, 0.3], repositories=3)
    assert line.median_abs == pytest.approx(0.2)
    assert line.within_25 == pytest.approx(0.6)
    assert line.under_15 == pytest.approx(0.2)  # one row quoted more than 15 % short
    assert line.independent


def test_a_scope_measured_by_fewer_than_three_repositories_falls_back_to_its_method():
    swift = band_line(Stack.SWIFT, Method.FULL)  # one repository measured it
    assert (swift.scope, swift.metric) == (ALL, Method.FULL.value)
    hf = band_line(Stack.HF, Method.LORA)
    assert (hf.scope, hf.metric) == ("hf", "lora")
    assert hf.repositories >= MIN_REPOSITORIES


def test_the_band_brackets_the_estimate_from_the_measured_percentiles():
    line = band_line(Stack.HF, Method.QLORA)
    found = band(10.0, Stack.HF, Method.QLORA)
    assert found.low == pytest.approx(10.0 / (1 + line.p90))
    assert found.high == pytest.approx(10.0 / (1 + line.p10))
    assert found.low < 10.0 < found.high
    assert overall().rows >= 140


def test_the_details_under_the_time_name_the_link_the_range_and_the_time_models_own_claim():
    parsed = parse_command("8b qlora dataset=20k gpus=2 gpu=4090")
    answer = build_answer(parsed, load_gpus())
    details = render_details(answer, "ru")
    assert "Связь между 2 картами: PCIe без P2P" in details
    claim = band_line(Stack.HF, Method.QLORA)
    timing = answer.times["RTX 4090"]
    span = hours_span("ru", timing.band.low, timing.band.high)
    line = next(line for line in details.splitlines() if line.startswith("Время: ~"))
    assert span in line
    assert f"из {overall().repositories} репозиториев" in line
    assert f"медианная ошибка часов {math.ceil(claim.median_abs * 100)}%" in line
