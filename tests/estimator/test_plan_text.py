"""estimator.plan_text: the break-even (one function for the sizing answer's line and the market
answer's bullet), and a plan's hours and money as a range."""

from __future__ import annotations

from dataclasses import replace

from estimator.cost import PriceQuote
from estimator.interconnect import Link
from estimator.models import get_model
from estimator.number_text import money
from estimator.parse import parse_command
from estimator.plan_text import break_even_line, hours_span, plan_line
from estimator.planner import BreakEven, Caveat, Sizing, plan_runs

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


def test_hours_come_as_a_range_in_one_unit_where_both_ends_share_it():
    assert hours_span("ru", 1.21, 1.84) == "1,2–1,8 ч"
    assert hours_span("en", 0.6, 0.9) == "36–54 min"
    assert hours_span("en", 12.2, 20.7) == "12–21 h"
    assert hours_span("en", 50, 96) == "2.1–4.0 days"
    assert hours_span("en", 0.75, 1.3) == "45 min – 1.3 h"


def test_a_plan_on_cards_whose_form_the_offer_hides_is_timed_as_pcie_and_says_so():
    sizing = Sizing(
        parse_command("13b full dataset=20000 tokens=1024").query, get_model("Llama-2-13B")
    )
    named = PriceQuote("A100 80GB SXM", 8, "hostkey", 2000.0, None)
    hidden = replace(named, gpu_id="A100 80GB PCIe", form_published=False)
    [sxm] = plan_runs(sizing, [named])
    [pcie] = plan_runs(sizing, [hidden])
    assert Caveat.LINK_ASSUMED in pcie.caveats
    assert Caveat.LINK_ASSUMED not in sxm.caveats
    assert sxm.time is not None
    assert pcie.time is not None
    assert sxm.time.link is not None
    assert sxm.time.link.link is Link.NVLINK
    assert pcie.time.link is not None
    assert pcie.time.link.link is Link.PCIE
    assert pcie.hours is not None
    assert sxm.hours is not None
    assert pcie.hours > sxm.hours
    line = plan_line(1, pcie, "ru")
    assert "форма карт не указана — считаю PCIe" in line
    # The hours and the money as the range the time model's measured error allows.
    band = pcie.time.band
    assert band.low < pcie.hours < band.high
    assert f"≈ <b>{money(2000 * band.low)}–{money(2000 * band.high)} ₽</b>" in line
