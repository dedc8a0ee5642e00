"""estimator.plan_text.break_even_line: one function for the sizing answer's line and the
market answer's bullet."""

from __future__ import annotations

from estimator.cost import PriceQuote
from estimator.plan_text import break_even_line
from estimator.planner import BreakEven

HOURLY = PriceQuote("H100", 8, "selectel", 2736.0, None)
MONTHLY = PriceQuote("H100", 8, "hostkey", None, 1_200_000.0)
PAYS = BreakEven(HOURLY, MONTHLY, hours=438.6, usage_hours=500)
NEVER = BreakEven(HOURLY, MONTHLY, hours=986, usage_hours=200)


def test_the_sizing_answer_names_the_card_and_tenths_of_a_day():
    assert break_even_line(PAYS, "ru") == (
        "<b>Почасовая или помесячная</b> (H100 ×8): месяц у hostkey (1\u202f200\u202f000 ₽)"
        " выгоднее, если работать больше 439 ч в месяц (~18,3 сут. без перерыва);"
        " почасово — 2\u202f736 ₽/ч у selectel."
    )
    assert break_even_line(NEVER, "en") == (
        "<b>Hourly or monthly</b> (H100 ×8): hourly is cheaper even around the clock"
        " — 720 h × 2\u202f736 ₽ = 1\u202f969\u202f920 ₽ against 1\u202f200\u202f000 ₽"
        " for a month at hostkey."
    )


def test_the_market_bullet_names_the_family_whole_days_and_the_winner_at_the_usage():
    assert break_even_line(PAYS, "ru", family="H100") == (
        "• H100 ×8: месяц 1\u202f200\u202f000 ₽ (hostkey) против 2\u202f736 ₽/ч (selectel)"
        " — месяц выгоднее, если работать больше 439 ч в месяц (~18 сут без перерыва)"
        " При 500 ч в месяц выгоднее помесячная."
    )
    assert break_even_line(NEVER, "en", family="H100") == (
        "• H100 ×8: hourly is cheaper even around the clock — 720 h × 2\u202f736 ₽ (selectel)"
        " = 1\u202f969\u202f920 ₽ against 1\u202f200\u202f000 ₽ a month (hostkey)"
        " At 200 h a month hourly wins."
    )
