"""estimator.number_text: the one way answers write money and numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from estimator.number_text import grouped, money, plain


@pytest.mark.parametrize(
    ("value", "text"),
    [(16, "16"), (16.0, "16"), (45.5, "45,50"), (0.25, "0,25"), (999.99, "999,99"),
     (1000, "1\u202f000"), (230400.4, "230\u202f400")],
)  # fmt: skip
def test_money_has_no_kopeck_noise_on_round_prices(value: float, text: str):
    assert money(value) == text


def test_grouped_keeps_thousands_apart_in_each_language():
    assert grouped(12288) == "12\u202f288"
    assert grouped(12288, "en") == "12,288"
    assert grouped(999.6) == "1\u202f000"


@given(st.floats(min_value=0, max_value=1e12, allow_nan=False).map(lambda v: round(v, 3)))
def test_plain_never_writes_an_exponent_and_reads_back(value: float):
    text = plain(value)
    assert "e" not in text
    assert float(text) == pytest.approx(value, abs=1e-6)


def test_plain_of_a_round_value_is_its_digits():
    assert (plain(1e9), plain(24.0), plain(0.5)) == ("1000000000", "24", "0.5")


def test_kopecks_take_the_readers_decimal_mark() -> None:
    assert money(456.27) == "456,27"
    assert money(456.27, "en") == "456.27"  # a comma would read as thousands in English
    assert money(230400, "en") == money(230400)  # thin-space grouping reads the same
