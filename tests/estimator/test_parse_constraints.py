"""Offer constraints (a memory floor, hours a month, Russia only, a rate cap) read from free
text and from /fit, and every fact surviving command_for -> understand."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from estimator.answer import build_answer
from estimator.fit_words import command_for, understand
from estimator.gpus import load_gpus
from estimator.parse import ParsedQuery, QueryError, parse_command
from estimator.parsing.market import Constraints, read_constraints
from estimator.sizing_text import render_details, render_short, to_plain
from tests.estimator.test_sizing_text import QUOTES


def read(text: str) -> ParsedQuery:
    parsed = understand(text)
    assert parsed is not None, text
    return parsed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("самая дешевая карта с 48 гигами", Constraints(min_vram_gib=48)),
        ("48gb+", Constraints(min_vram_gib=48)),
        ("нужна видеокарта не меньше 48 ГБ", Constraints(min_vram_gib=48)),
        ("карту на 80 гб, где дешевле?", Constraints(min_vram_gib=80)),
        ("a card with at least 24 GB of VRAM", Constraints(min_vram_gib=24)),
        ("60 часов в месяц", Constraints(hours_per_month=60)),
        ("буду гонять по 120 ч/мес", Constraints(hours_per_month=120)),
        ("about 200 hours per month", Constraints(hours_per_month=200)),
        ("только РФ", Constraints(russia_only=True)),
        ("где арендовать в России?", Constraints(russia_only=True)),
        ("russia only", Constraints(russia_only=True)),
        ("до 300 ₽/ч", Constraints(max_rub_per_hour=300)),
        ("не дороже 150 руб в час", Constraints(max_rub_per_hour=150)),
        ("under 300 rub/h", Constraints(max_rub_per_hour=300)),
        (
            "самая дешевая карта с 48 гигами в РФ до 300 ₽/ч, 60 часов в месяц",
            Constraints(
                min_vram_gib=48, hours_per_month=60, russia_only=True, max_rub_per_hour=300
            ),
        ),
        # Not constraints: a total budget, a dataset's size, a card's own name.
        ("уложусь в 4000 ₽", Constraints()),
        ("датасет с 2 гб текста", Constraints()),
        ("A100 80GB", Constraints()),
        ("1000 часов в месяц", Constraints()),  # no month has 1000 hours: dropped
    ],
)
def test_read_constraints(text: str, expected: Constraints) -> None:
    assert read_constraints(text) == expected


def test_a_market_question_has_no_model_but_has_constraints() -> None:
    assert understand("самая дешевая карта с 48 гигами") is None
    assert read_constraints("самая дешевая карта с 48 гигами").stated


def test_sizing_questions_keep_constraints_apart_from_the_budget() -> None:
    parsed = read("7b лора, карта с 48 гигами, только РФ, до 300 ₽/ч, уложусь в 4000 ₽")
    assert parsed.min_vram_gib == 48
    assert parsed.russia_only
    assert parsed.max_rub_per_hour == 300
    assert parsed.budget_rub == 4000  # the total, not the rate
    assert parsed.query.method.value == "lora"
    english = read("13b qlora, 48gb+ cards, russia only, under 300 rub/h, 60 hours a month")
    assert english.constraints == Constraints(
        min_vram_gib=48, hours_per_month=60, russia_only=True, max_rub_per_hour=300
    )
    assert english.budget_rub is None


def test_the_command_takes_short_keys() -> None:
    parsed = parse_command("7b lora vram=48 hpm=60 loc=ru rate=300")
    assert parsed.constraints == Constraints(
        min_vram_gib=48, hours_per_month=60, russia_only=True, max_rub_per_hour=300
    )
    assert parse_command("7b vram=48gb rate=300₽/ч loc=any").constraints == Constraints(
        min_vram_gib=48, max_rub_per_hour=300
    )


@pytest.mark.parametrize(
    ("args", "key"),
    [
        ("7b vram=много", "vram"),
        ("7b hpm=800", "hpm"),
        ("7b loc=mars", "loc"),
        ("7b rate=0", "rate"),
        ("7b loc=", "loc"),
        ("7b vram=", "vram"),
    ],
)
def test_bad_constraint_values_name_the_key(args: str, key: str) -> None:
    with pytest.raises(QueryError) as error:
        parse_command(args)
    assert error.value.key == key
    assert error.value.allowed  # the reply lists what the key takes, never an empty list


def test_constraints_are_shown_under_the_title() -> None:
    answer = build_answer(read("7b lora vram=48 hpm=60 loc=ru rate=300"), load_gpus())
    lines = to_plain(render_short(answer, "ru")).splitlines()
    assert lines[1] == "Условия: карта от 48 ГБ · только РФ · до 300 ₽/ч · 60 ч в месяц"
    english = to_plain(render_short(answer, "en")).splitlines()[1]
    assert (
        english
        == "Conditions: cards with 48 GB or more · Russia only · up to 300 ₽/h · 60 h a month"
    )
    assert "Условия" not in to_plain(render_short(build_answer(read("7b lora"), load_gpus()), "ru"))


def test_details_example_is_the_users_own_run() -> None:
    details = to_plain(render_details(build_answer(read("7b lora bs=4"), load_gpus()), "ru"))
    assert "/fit 7b lora ctx=2048 bs=4" in details  # not bs=1, not another method


# --- command_for -> understand keeps the run, the assumptions and the constraints -------------

ROUND_TRIPS = [
    "сколько гигов для 7b",
    "7b без qlora",
    "7b без лоры на 4090",
    "8b lora примеры по 3000 токенов",
    "8b lora ctx 2048, примеры по 3000 токенов",
    "8b lora ctx=1024 longest=3000",
    "7b lora, примеры от 1 500 до 3 500 токенов",
    "самая дешевая карта с 48 гигами для 13b qlora",
    "7b лора, только РФ, до 300 ₽/ч, 60 часов в месяц, уложусь в 4000 ₽",
    "70b full на 8× H100, датасет 100k примеров, 2 эпохи",
    "13b qlora, 48gb+, russia only, under 300 rub/h",
]


def same(first: ParsedQuery, second: ParsedQuery) -> dict[str, Any]:
    """The differences between two readings (empty when they are the same run)."""
    fields = (
        "query",
        "model",
        "target_gpu",
        "target_family",
        "budget_rub",
        "asked_size",
        "min_vram_gib",
        "hours_per_month",
        "russia_only",
        "max_rub_per_hour",
        "longest_tokens",
    )
    pairs = {f: (getattr(first, f), getattr(second, f)) for f in fields}
    diff: dict[str, Any] = {f: pair for f, pair in pairs.items() if pair[0] != pair[1]}
    said = ("method", "ctx")  # the assumptions the short answer states
    if [first.assumed(k) for k in said] != [second.assumed(k) for k in said]:
        diff["assumed"] = ([first.assumed(k) for k in said], [second.assumed(k) for k in said])
    warned = ("negated:", "ctx_from_tokens:", "tokens_clamped:", "longest_cut:")
    notes = [tuple(n for n in p.notes if n.startswith(warned)) for p in (first, second)]
    if notes[0] != notes[1]:
        diff["notes"] = notes
    return diff


@pytest.mark.parametrize("text", ROUND_TRIPS)
def test_command_for_round_trips_the_table(text: str) -> None:
    parsed = read(text)
    assert same(parsed, read(command_for(parsed))) == {}


@settings(max_examples=150, deadline=None)
@given(
    model=st.sampled_from(["7b", "13b", "llama 3 8b", "qwen2.5 7b"]),
    method=st.sampled_from(["", "qlora", "lora", "full", "no-qlora", "без лоры", "no-full"]),
    ctx=st.sampled_from(["", "ctx=1024", "ctx=2048", "ctx=8192"]),
    tokens=st.sampled_from(
        ["", "tok=500", "tok=3000", "longest=3500", "tok=700 longest=5000", "tok=1500-3500"]
    ),
    dataset=st.sampled_from(["", "ds=10k", "ds=50m_tokens"]),
    vram=st.sampled_from(["", "vram=24", "vram=48", "vram=80.5"]),
    hours=st.sampled_from(["", "hpm=60", "hpm=720"]),
    location=st.sampled_from(["", "loc=ru", "loc=any"]),
    rate=st.sampled_from(["", "rate=150", "rate=299.5"]),
    budget=st.sampled_from(["", "budget=4000"]),
    gpu=st.sampled_from(["", "gpu=4090", "gpus=2"]),
)
def test_command_for_round_trips_any_command(**parts: str) -> None:
    text = " ".join(part for part in parts.values() if part)
    parsed = read(text)
    again = read(command_for(parsed))
    assert same(parsed, again) == {}, command_for(parsed)


def test_every_said_line_together_stays_under_a_phone_screen() -> None:
    text = (
        "сколько гигов для qwen 7b на 4090, датасет 20k примеров, примеры по 3000 токенов, "
        "только РФ, карта с 24 гб, до 300 ₽/ч, уложусь в 4000 ₽, 60 часов в месяц"
    )
    plain = to_plain(render_short(build_answer(read(text), load_gpus(), QUOTES), "ru"))
    lines = plain.splitlines()
    assert lines[0] == "Метод не указан — считаю QLoRA."
    assert lines[2] == "Прочитал: dataset=20000 · tokens=3000"
    assert lines[3].startswith("Условия: ")
    assert lines[4].startswith("Примеры до 3000 токенов")
    assert "💰 В 4\u202f000 ₽" in plain
    assert len(plain) < 900
