"""Market answers to a month question: each offer's month, per card on a server of several."""

from __future__ import annotations

from bot.usecases.market import answer_question
from estimator.cost import PriceQuote
from estimator.i18n import translators

QUOTES = [
    PriceQuote("H100 SXM", 8, "hostkey", None, 3_600_000.0),
    PriceQuote("H100 SXM", 1, "selectel", 456.27, None),
    PriceQuote("RTX 4090", 8, "immers", 670.97, None),
]


def bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("•")]


def test_a_month_question_lists_months_by_the_card() -> None:
    lines = bullets(answer_question("сколько стоит h100 в месяц?", translators()["ru"], QUOTES))
    assert lines[0].startswith("• H100 SXM ×1 — <b>≈328\u202f514 ₽/мес при аренде 24/7</b>")
    assert "<b>450\u202f000 ₽/мес за GPU</b>, 3\u202f600\u202f000 ₽ за сервер" in lines[1]


def test_an_hourly_server_is_a_month_per_card_and_for_the_whole() -> None:
    text = answer_question("самая дешевая карта за месяц", translators()["ru"], QUOTES)
    line = next(line for line in bullets(text) if "RTX 4090" in line)
    # 670,97 ₽/h × 720 h = 483 098 ₽ for the server, 60 387 ₽ per card.
    assert "≈60\u202f387 ₽/мес за GPU при аренде 24/7</b>, ≈483\u202f098 ₽ за сервер" in line


def test_an_hourly_question_and_a_comparison_are_unchanged() -> None:
    ru = translators()["ru"]
    hour = answer_question("сколько стоит h100?", ru, QUOTES)
    assert "456,27 ₽/ч" in hour
    assert "3\u202f600\u202f000 ₽/мес</b> за весь сервер" in hour
    rent = answer_question("h100 почасовая или помесячная?", ru, QUOTES)
    assert "Почасовая или помесячная?" in rent
