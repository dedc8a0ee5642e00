"""A question about a month of rent: read from the text, and offers ranked by a month per card."""

from __future__ import annotations

import pytest

from estimator.cost import HOURS_PER_MONTH, PriceQuote
from estimator.parsing.market import asks_month_price
from estimator.planner import (
    cheapest_offers,
    monthly_equivalent,
    rub_per_gpu_month,
)


@pytest.mark.parametrize(
    "text",
    [
        "сколько стоит h100 в месяц?",
        "h100 помесячно",
        "цена a100 за месяц",
        "месяц аренды 4090 сколько",
        "h100 price per month",
        "monthly a100",
    ],
)
def test_a_month_price_is_asked(text: str) -> None:
    assert asks_month_price(text)


@pytest.mark.parametrize(
    "text",
    [
        "сколько стоит h100?",
        "где дешевле a100 до 300 ₽/ч",
        "a100 на 60 часов в месяц",  # usage hours, not a month's price
        "h100 price per hour",
    ],
)
def test_no_month_price_is_asked(text: str) -> None:
    assert not asks_month_price(text)


HOURLY = PriceQuote("H100 SXM", 1, "selectel", 456.27, None)
SERVER = PriceQuote("H100 SXM", 8, "hostkey", None, 3_600_000.0)


def test_an_hourly_rate_is_a_month_rented_around_the_clock() -> None:
    assert monthly_equivalent(HOURLY) == pytest.approx(456.27 * HOURS_PER_MONTH)
    assert monthly_equivalent(SERVER) == 3_600_000.0  # a plan's own month, never recomputed
    assert rub_per_gpu_month(SERVER) == pytest.approx(3_600_000.0 / 8)


def test_offers_are_ranked_by_a_month_per_card() -> None:
    dear = PriceQuote("H100 SXM", 1, "immers", 459.87, None)
    quotes = [SERVER, dear, HOURLY]
    # A month is 720 of the same hours, so the hourly question's order is the month's.
    ranked = cheapest_offers(quotes)
    assert ranked == [HOURLY, dear, SERVER]
    months = [rub_per_gpu_month(quote) for quote in ranked]
    assert months == sorted(months)
