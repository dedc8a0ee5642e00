"""estimator.parsing.numbers: every number of a text with its multiplier, unit and span."""

from __future__ import annotations

import pytest

from estimator.parsing.numbers import Unit, number_in, quantities


@pytest.mark.parametrize(
    ("text", "value", "unit", "said"),
    [
        ("50к", 50_000, None, "50к"),
        ("тысяч 5", 5_000, None, "тысяч 5"),
        ("тысяч пять рублей", 5_000, Unit.RUB, "тысяч пять рублей"),
        ("бюджет у меня тысяч 5 рублей", 5_000, Unit.RUB, "тысяч 5 рублей"),
        ("5 тыс. руб.", 5_000, Unit.RUB, "5 тыс. руб."),
        ("полтора", 1.5, None, "полтора"),
        ("полутора тысяч", 1_500, None, "полутора тысяч"),
        ("599,5", 599.5, None, "599,5"),
        ("1 500", 1_500, None, "1 500"),
        ("50 000 ₽", 50_000, Unit.RUB, "50 000 ₽"),
        ("1,000,000", 1_000_000, None, "1,000,000"),
        ("1.5k", 1_500, None, "1.5k"),
        ("1 млрд токенов", 1e9, Unit.TOKENS, "1 млрд токенов"),
        ("1B tokens", 1e9, Unit.TOKENS, "1B tokens"),
        ("40k rub", 40_000, Unit.RUB, "40k rub"),
        ("2 гб", 2, Unit.BYTES, "2 гб"),
        ("в два раза", 2, Unit.TIMES, "два раза"),
        ("вдвое", 2, Unit.TIMES, "вдвое"),
        ("двух", 2, None, "двух"),
        ("двумя", 2, None, "двумя"),
        ("пяти", 5, None, "пяти"),
        ("тысячами", 1_000, None, "тысячами"),
        ("двадцать пять тысяч примеров", 25_000, Unit.EXAMPLES, "двадцать пять тысяч примеров"),
        ("сто двадцать восемь", 128, None, "сто двадцать восемь"),
        ("two hundred", 200, None, "two hundred"),
        ("a million tokens", 1e6, Unit.TOKENS, "a million tokens"),
        ("half a million tokens", 5e5, Unit.TOKENS, "half a million tokens"),
        ("пару эпох", 2, Unit.EPOCHS, "пару эпох"),
        ("3 эпохи", 3, Unit.EPOCHS, "3 эпохи"),
        ("четыре карты", 4, Unit.GPUS, "четыре карты"),
        ("13b", 13, Unit.PARAMS, "13b"),
        ("13 млрд параметров", 13e9, Unit.PARAMS, "13 млрд параметров"),
        ("$100", 100, Unit.FOREIGN_MONEY, "$100"),
        ("€300", 300, Unit.FOREIGN_MONEY, "€300"),
        ("300 евро", 300, Unit.FOREIGN_MONEY, "300 евро"),
        ("10к пар вопрос-ответ", 10_000, Unit.EXAMPLES, "10к пар"),
    ],
)
def test_a_number_with_its_unit_and_words(text: str, value: float, unit: Unit, said: str):
    (found,) = quantities(text)
    assert (found.value(), found.unit) == (value, unit)
    assert text[found.start : found.end] == said


@pytest.mark.parametrize(
    ("text", "per"),
    [
        ("до 300 ₽/ч", "hour"),
        ("150 руб в час", "hour"),
        ("300 rub/h", "hour"),
        ("under 600 rub per GPU-hour", "gpu_hour"),
        ("250 ₽ за карту в час", "gpu_hour"),
        ("100 000 ₽ в месяц", "month"),
        ("5000 ₽", None),
    ],
)
def test_a_sum_says_what_it_is_per(text: str, per: str | None):
    (found,) = quantities(text)
    assert found.unit is Unit.RUB
    assert found.per == per


def test_a_context_in_thousands_is_binary_where_the_slot_asks():
    (found,) = quantities("4k")
    assert (found.value(), found.value(1024)) == (4_000, 4_096)


def test_names_are_not_numbers():
    assert [q.value() for q in quantities("qwen2.5 7b на h100")] == [7]
    assert [q.unit for q in quantities("llama 3 405b")] == [None, Unit.PARAMS]


@pytest.mark.parametrize("text", ["50к", "тысяч5", "599,5", "2 гб"])
def test_a_value_alone_is_one_number(text: str):
    assert number_in(text) is not None


@pytest.mark.parametrize("text", ["50к и 10", "abc", "", "3.1.2"])
def test_anything_else_is_no_one_number(text: str):
    assert number_in(text) is None
