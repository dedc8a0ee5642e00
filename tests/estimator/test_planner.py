"""The planner on hand-made markets: each case is a defect a user met in a real answer."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from estimator.answer import build_answer
from estimator.cost import PriceQuote
from estimator.fit import Verdict
from estimator.fit_words import understand
from estimator.gpus import get, load_gpus
from estimator.models import get_model
from estimator.parse import ParsedQuery
from estimator.planner import (
    Caveat,
    Constraints,
    Sizing,
    break_evens,
    cheapest_offers,
    months_for,
    plan_runs,
    shown_plans,
    within_budget,
)
from estimator.query import FitQuery, Method, Stack
from estimator.sizing_text import render_details, render_short


def _sizing(text: str) -> Sizing:
    parsed = understand(text)
    assert parsed is not None
    return Sizing(parsed.query, parsed.model)


def test_eight_cards_take_less_time_than_four_and_each_plan_is_timed_on_its_own_count():
    sizing = _sizing("13b full dataset=20000 tokens=1024")
    quotes = [
        PriceQuote("A100 80GB SXM", 4, "selectel", 1006.4, None),
        PriceQuote("A100 80GB SXM", 8, "selectel", 2012.8, None),
    ]
    four, eight = sorted(plan_runs(sizing, quotes), key=lambda plan: plan.gpus)
    assert (four.gpus, eight.gpus) == (4, 8)
    assert four.hours is not None
    assert eight.hours is not None
    # ZeRO-3 over twice the cards on NVLink: a little more than half the time, since each card
    # still gathers the whole model every micro-batch.
    assert four.hours / 2 < eight.hours < four.hours / 2 * 1.1
    assert eight.cost_rub == pytest.approx(2012.8 * eight.hours)


def test_a_server_that_cannot_hold_the_run_is_never_a_plan():
    sizing = _sizing("70b full ctx=2048")  # ~1.3 TB of state: no 2-card server holds it
    quotes = [
        PriceQuote("RTX 4090", 2, "immers", 160.0, None),
        PriceQuote("RTX 3090", 2, "immers", 110.0, None),
    ]
    assert plan_runs(sizing, quotes) == []


def test_the_sharding_that_makes_it_fit_is_chosen_per_count():
    sizing = _sizing("13b full")
    quotes = [
        PriceQuote("A100 80GB SXM", 1, "a", 250.0, None),
        PriceQuote("A100 80GB SXM", 4, "b", 1000.0, None),
    ]
    plans = plan_runs(sizing, quotes)
    assert [plan.gpus for plan in plans] == [4]  # 222.8 GiB does not fit one 80 GB card
    assert plans[0].shard is not None
    assert plans[0].shard.value == "zero3"
    assert plans[0].verdict is not Verdict.NO


def test_monthly_plans_rent_whole_months_and_say_so_for_a_job_of_hours():
    sizing = _sizing("8b lora dataset=20000 tokens=1024")
    monthly = PriceQuote("H100 SXM", 8, "hostkey", None, 3_600_000.0)
    [plan] = plan_runs(sizing, [monthly])
    assert plan.hours is not None
    assert plan.hours < 24
    assert plan.months == 1
    assert plan.cost_rub == 3_600_000.0
    assert Caveat.MONTH_FOR_HOURS in plan.caveats


def test_months_cover_the_run():
    assert months_for(1) == 1
    assert months_for(720) == 1
    assert months_for(721) == 2
    assert months_for(0.01) == 1


def test_the_best_few_always_include_an_hourly_plan_when_there_is_one():
    sizing = _sizing("8b lora dataset=20000 tokens=1024")
    quotes = [
        PriceQuote("RTX 4090", 1, "hostkey", None, 20_000.0),
        PriceQuote("RTX 3090", 1, "hostkey", None, 15_000.0),
        PriceQuote("RTX A6000", 1, "hostkey", None, 30_000.0),
        PriceQuote("H100 SXM", 1, "selectel", 400.0, None),
    ]
    shown = shown_plans(plan_runs(sizing, quotes), 3)
    assert len(shown) == 3
    assert any(not plan.monthly for plan in shown)


def test_a_break_even_compares_the_same_card_and_count_and_is_true():
    quotes = [
        PriceQuote("A100 80GB SXM", 1, "selectel", 251.6, None),
        PriceQuote("A100 80GB SXM", 4, "hostkey", None, 450_000.0),
        PriceQuote("A100 80GB SXM", 1, "hostkey", None, 150_000.0),
        PriceQuote("RTX 4090", 1, "immers", 60.0, None),
    ]
    [point] = break_evens(quotes)
    assert (point.hourly.gpus, point.monthly.gpus) == (1, 1)
    assert point.hours == pytest.approx(150_000 / 251.6)
    assert point.pays_off  # 596 h < 720 h


def test_a_month_dearer_than_720_hours_never_pays_off():
    quotes = [
        PriceQuote("RTX 4090", 1, "immers", 60.0, None),
        PriceQuote("RTX 4090", 1, "hostkey", None, 59_160.0),  # 986 h of the hourly rate
    ]
    [point] = break_evens(quotes)
    assert not point.pays_off
    assert point.hours == pytest.approx(986)
    text = render_details(build_answer(_parsed("7b qlora gpu=4090"), load_gpus(), quotes), "ru")
    assert "почасовая дешевле даже круглосуточно" in text
    assert "окупается" not in text


def _parsed(text: str) -> ParsedQuery:
    parsed = understand(text)
    assert parsed is not None
    return parsed


def test_hours_per_month_decide_the_break_even():
    quotes = [
        PriceQuote("A100 80GB SXM", 1, "selectel", 250.0, None),
        PriceQuote("A100 80GB SXM", 1, "hostkey", None, 120_000.0),  # 480 h
    ]
    [light] = break_evens(quotes, usage_hours=60)
    [heavy] = break_evens(quotes, usage_hours=600)
    assert light.monthly_wins is False
    assert heavy.monthly_wins is True


def test_constraints_keep_what_the_user_said():
    quotes = [
        PriceQuote("T4", 1, "selectel", 40.0, None),
        PriceQuote("A2", 1, "selectel", 35.0, None),
        PriceQuote("RTX A5000", 1, "immers", 70.0, None, stock_published=False),
        PriceQuote("RTX A6000", 1, "immers", 95.0, None, stock_published=False),
        PriceQuote("L40S", 1, "hostkey", None, 90_000.0, location="NL", country="NL"),
        PriceQuote("A100 80GB SXM", 4, "selectel", 1006.4, None),
    ]
    big = cheapest_offers(quotes, Constraints(min_vram_gb=48))
    assert [q.gpu_id for q in big] == ["RTX A6000", "L40S", "A100 80GB SXM"]
    home = cheapest_offers(quotes, Constraints(min_vram_gb=48, russia_only=True))
    assert "L40S" not in [q.gpu_id for q in home]
    # One A100 of a 4-card server costs a quarter of the server's rate.
    a100 = cheapest_offers(quotes, Constraints(gpu_ids=frozenset({"A100 80GB SXM"})))
    assert a100[0].rub_per_hour == 1006.4
    a6000 = cheapest_offers(quotes, Constraints(gpu_ids=frozenset({"RTX A6000"})))
    assert sum(not quote.stock_published for quote in a6000) == 1


def test_a_quote_whose_source_stopped_answering_is_flagged_and_an_expired_one_is_no_plan():
    sizing = _sizing("7b qlora")
    seen = datetime(2026, 12, 1, 11, 5, tzinfo=UTC)
    quotes = [
        PriceQuote("RTX 4090", 1, "selectel", 60.0, None, stale_since=seen),
        PriceQuote("RTX 4090", 1, "immers", 55.0, None, in_stock=False, stale_since=seen),
        PriceQuote("RTX 4090", 1, "hostkey", 70.0, None),
    ]
    caveats = {plan.quote.provider: plan.caveats for plan in plan_runs(sizing, quotes)}
    assert set(caveats) == {"selectel", "hostkey"}  # the expired one rents nothing
    assert Caveat.STALE in caveats["selectel"]
    assert Caveat.STALE not in caveats["hostkey"]
    short = render_short(build_answer(_parsed("7b qlora"), load_gpus(), quotes), "ru")
    assert "источник не отвечает, цена и наличие из прошлого ответа" in short


def test_unpublished_stock_and_foreign_servers_are_flagged():
    sizing = _sizing("7b qlora")
    quotes = [
        PriceQuote("RTX 4090", 1, "immers", 60.0, None, stock_published=False),
        PriceQuote("RTX 4090", 1, "hostkey", None, 40_000.0, location="FI", country="FI"),
    ]
    caveats = {plan.quote.provider: plan.caveats for plan in plan_runs(sizing, quotes)}
    assert Caveat.STOCK_UNPUBLISHED in caveats["immers"]
    assert Caveat.ABROAD in caveats["hostkey"]
    answer = build_answer(_parsed("7b qlora"), load_gpus(), quotes)
    short = render_short(answer, "ru")
    assert "(FI)" in short
    assert "наличие не публикуется" in short


def test_a_tight_fit_is_flagged_in_the_short_answer():
    model = get_model("Llama-3.1-8B")
    sizing = Sizing(FitQuery(model=model.id, method=Method.LORA, ctx=2048), model)
    [plan] = plan_runs(sizing, [PriceQuote("RTX 4090", 1, "immers", 60.0, None)])
    if plan.verdict is Verdict.TIGHT:
        assert Caveat.TIGHT in plan.caveats
    else:
        assert Caveat.TIGHT not in plan.caveats
        assert plan.headroom_gib >= 0.1 * get("RTX 4090").usable_gib


def test_unsloth_is_never_promised_on_pascal():
    model = get_model("Llama-3.1-8B")
    query = FitQuery(model=model.id, method=Method.QLORA, stack=Stack.UNSLOTH)
    constraints = Constraints(allow_fp16=frozenset({"GTX 1080 Ti", "P40"}))
    plans = plan_runs(Sizing(query, model), [PriceQuote("P40", 1, "x", 20.0, None)], constraints)
    assert all(Caveat.NO_UNSLOTH in plan.caveats for plan in plans)
    answer = build_answer(_parsed("влезет ли 8b qlora в 1080 ti"), load_gpus(), [])
    assert "Unsloth" not in render_short(answer, "ru").split("Пик")[0]
    assert all(item.code != "unsloth" for item in answer.advice)


def test_a_budget_uses_the_plans_own_cost():
    sizing = _sizing("8b lora dataset=20000 tokens=1024")
    plans = plan_runs(sizing, [PriceQuote("RTX 4090", 1, "immers", 60.0, None)])
    cost, high = plans[0].cost_rub, plans[0].cost_high_rub
    assert cost is not None
    assert high is not None
    assert high > cost  # the time's range reaches above its estimate
    # Within the budget even at the high end of the hours: it fits.
    assert within_budget(math.ceil(high), plans).run == plans[0]
    # Only the estimate is within it: «скорее всего», never a plain yes.
    between = within_budget(math.ceil(cost), plans)
    assert between.run is None
    assert between.likely == plans[0]
    assert within_budget(cost / 2, plans).run is None
    assert within_budget(cost / 2, plans).likely is None
    assert within_budget(cost / 2, plans).cheapest == plans[0]


def test_the_smallest_card_agrees_with_the_offers():
    quotes = [PriceQuote("RTX A4000", 1, "immers", 35.0, None)]
    answer = build_answer(_parsed("сколько гигов для 7b qlora"), load_gpus(), quotes)
    assert answer.smallest is not None
    assert answer.smallest.gpu.id == "RTX A4000"
    assert "RTX A4000" in render_short(answer, "ru").split("\n\n")[0]


def test_nobody_is_told_to_rent_a_b300():
    answer = build_answer(_parsed("13b full"), load_gpus(), [])
    assert answer.smallest is None
    assert answer.fewest is not None
    assert answer.fewest.gpu.id != "B300"
    assert "B300" not in render_short(answer, "ru")


def test_a_wish_that_leaves_nothing_is_said():
    quotes = [PriceQuote("RTX 4090", 1, "hostkey", 90.0, None, location="NL", country="NL")]
    parsed = _parsed("7b qlora")
    from dataclasses import replace

    answer = build_answer(replace(parsed, russia_only=True), load_gpus(), quotes)
    assert answer.plans == []
    assert answer.unmet == ("russia_only",)
    assert "только РФ" in render_short(answer, "ru")


def test_two_pools_at_one_price_are_one_option():
    sizing = _sizing("7b qlora")
    quotes = [
        PriceQuote("RTX 4090", 1, "Selectel", 67.2, None, location="ru-7a"),
        PriceQuote("RTX 4090", 1, "Selectel", 67.2, None, location="ru-7b"),
        PriceQuote("RTX 4090", 1, "immers.cloud", 82.8, None),
    ]
    shown = shown_plans(plan_runs(sizing, quotes), 3)
    assert [(p.quote.provider, p.quote.rub_per_hour) for p in shown] == [
        ("Selectel", 67.2),
        ("immers.cloud", 82.8),
    ]


# The offers QA met: one two-card monthly server, and single cards and a four-card server by
# the hour that hold the runs below on the count each has.
COUNT_MARKET = [
    PriceQuote("H200 NVL", 2, "Selectel", rub_per_hour=None, rub_per_month=1_290_000),
    PriceQuote("A100 80GB PCIe", 1, "immers.cloud", rub_per_hour=229.5, rub_per_month=None),
    PriceQuote("RTX 6000 Ada", 1, "immers.cloud", rub_per_hour=134.5, rub_per_month=None),
    PriceQuote("RTX 4090", 4, "immers.cloud", rub_per_hour=318.4, rub_per_month=None),
]


@pytest.mark.parametrize(
    "text",
    [
        "70b qlora на 2x 4090 с fsdp сколько будет идти эпоха на 20к примеров?",
        "mixtral 8x7b qlora влезет в 2x 4090?",
        "70b qlora gpus=2 shard=fsdp gpu=4090 dataset=20000",
    ],
)
def test_a_count_named_with_the_card_is_the_run_s_not_a_filter_on_the_offers(text: str):
    parsed = _parsed(text)
    assert parsed.query.gpus == 2
    answer = build_answer(parsed, load_gpus(), COUNT_MARKET)
    # Every offer that holds the run is planned, each on its own count, as without a count.
    sizing = Sizing(parsed.query, parsed.model)
    holding = {(plan.quote.gpu_id, plan.gpus) for plan in plan_runs(sizing, COUNT_MARKET)}
    assert {(plan.quote.gpu_id, plan.gpus) for plan in answer.plans} == holding
    assert ("A100 80GB PCIe", 1) in holding
    assert len(holding) > 1
    assert answer.unmet == ()
    # The verdict is still about the two cards asked.
    assert answer.target is not None
    assert answer.target.gpu.id == "RTX 4090"
    short = render_short(answer, "ru")
    assert "A100 80GB PCIe" in short
    assert "2× RTX 4090" in short


def test_caps_per_gpu_hour_and_per_month_are_applied_not_dropped() -> None:
    quotes = [
        PriceQuote("RTX 4090", 1, "a", 90.0, None),
        PriceQuote("RTX 4090", 4, "b", 300.0, None),  # 75 ₽ a GPU-hour
        PriceQuote("RTX 4090", 1, "c", None, 40_000.0),
    ]
    for text, kept in (
        ("8b qlora, до 80 ₽ за GPU-час", {"b", "c"}),  # c: 40 000 / 720 = 55,6 ₽ an hour
        ("8b qlora, до 50 000 ₽ в месяц", {"c"}),  # a: 90 × 720 = 64 800 ₽
    ):
        parsed = understand(text)
        assert parsed is not None
        answer = build_answer(parsed, load_gpus(), quotes)
        assert {plan.quote.provider for plan in answer.plans} == kept
        assert "Условия: до" in render_short(answer, "ru")
