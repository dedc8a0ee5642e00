"""estimator.measurement: a person's measured speed read from their words and set against the
time model."""

from __future__ import annotations

from dataclasses import replace

import pytest

from estimator.gpus import get
from estimator.measurement import SpeedUnit, measure, read_speed
from estimator.parse import parse_command
from estimator.timing import tokens_per_second


@pytest.mark.parametrize(
    ("text", "value", "unit", "gpu", "count", "batch"),
    [
        ("у меня 2,1 с/шаг на 4090 при bs 4", 2.1, SpeedUnit.SECONDS_PER_STEP, "RTX 4090", 1, 4),
        (
            "I get 3 100 tok/s on an A100",
            3100,
            SpeedUnit.TOKENS_PER_SECOND,
            "A100 80GB SXM",
            1,
            None,
        ),
        ("1.3 it/s на 2× H100 PCIe", 1.3, SpeedUnit.STEPS_PER_SECOND, "H100 PCIe", 2, None),
        (
            "у меня 4,5 сек на шаг на rtx 3090, batch 2",
            4.5,
            SpeedUnit.SECONDS_PER_STEP,
            "RTX 3090",
            1,
            2,
        ),
        (
            "3.1k tokens per second on 4x 3090",
            3100,
            SpeedUnit.TOKENS_PER_SECOND,
            "RTX 3090",
            4,
            None,
        ),
        (
            "на 2 x a6000 выходит 5200 токенов/с",
            5200,
            SpeedUnit.TOKENS_PER_SECOND,
            "RTX A6000",
            2,
            None,
        ),
    ],
)
def test_a_speed_its_unit_the_card_the_count_and_the_batch_are_read(
    text: str, value: float, unit: SpeedUnit, gpu: str, count: int, batch: int | None
) -> None:
    reading = read_speed(text)
    assert reading is not None
    assert (reading.value, reading.unit, reading.gpu_id, reading.gpus) == (value, unit, gpu, count)
    assert reading.micro_batch == batch


@pytest.mark.parametrize(
    "text",
    [
        "сколько стоит 4090?",  # a card, no speed
        "2,1 с/шаг",  # a speed, no card
        "13b lora на 4090 ctx 4096",  # a sizing question
        "4090 за 83 ₽/ч",  # a price is not a speed
    ],
)
def test_texts_that_state_no_measured_speed_are_not_read(text: str) -> None:
    assert read_speed(text) is None


def test_the_words_beside_the_speed_are_left_for_the_run() -> None:
    reading = read_speed("llama 8b qlora ctx 2048, 2,1 с/шаг на 4090 при bs 4")
    assert reading is not None
    assert "llama 8b qlora ctx 2048" in reading.rest
    assert "4090" not in reading.rest
    assert "с/шаг" not in reading.rest


def test_a_step_is_the_batch_times_the_row_and_tokens_are_the_whole_runs() -> None:
    parsed = parse_command("8b qlora tokens=1024")
    step = read_speed("2 с/шаг на 4090 при bs 4")
    assert step is not None
    measured = measure(step, parsed.query, parsed.model, "8b qlora tokens=1024")
    assert measured.tokens_per_second == pytest.approx(4 * 1024 / 2)
    two = read_speed("6000 tok/s на 2× 4090")
    assert two is not None
    assert measure(two, parsed.query, parsed.model, "").tokens_per_second == pytest.approx(3000)


def test_the_factor_is_the_measurement_over_the_model_for_the_run_measured() -> None:
    parsed = parse_command("8b qlora tokens=1024")
    reading = read_speed("1500 tok/s on a 4090, bs 4")
    assert reading is not None
    measured = measure(reading, parsed.query, parsed.model, "8b qlora tokens=1024 bs=4")
    query = replace(parsed.query, micro_batch=4, gpu="RTX 4090")
    predicted = tokens_per_second(query, parsed.model, get("RTX 4090"))
    assert measured.predicted == pytest.approx(predicted)
    assert measured.factor == pytest.approx(1500 / predicted)
    assert measured.plausible
    absurd = read_speed("0.001 s/step on a 4090")
    assert absurd is not None
    assert not measure(absurd, parsed.query, parsed.model, "").plausible
