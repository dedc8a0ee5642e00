"""The planner's invariants over generated markets and sizing questions.

Offer sets span the three providers, 1-8 cards, hourly, monthly and both, stock published or
not, Russian and foreign locations; questions span sizes, methods, contexts and datasets.
Whatever comes in, every answer holds:

* every plan fits on its own count (re-estimated here, not read back from the plan), and no
  plan the estimate's range makes tight is ranked above one it leaves room on;
* more cards of the same model never take longer;
* the cost is the price times the time at the plan's billing;
* no monthly price is quoted for fewer cards than the server has;
* every break-even is true;
* the first answer fits a phone (900 characters), names the method asked and is in the
  user's language.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from estimator.accuracy import band
from estimator.answer import build_answer, constraints_of
from estimator.cost import HOURS_PER_MONTH, PriceQuote
from estimator.fit import RENTED_CARDS, Verdict, grade
from estimator.fit_words import understand
from estimator.gpus import get, load_gpus
from estimator.memory import estimate_memory
from estimator.planner import Sizing, break_evens, distinct, plan_runs, shown_plans
from estimator.query import METHOD_NAMES, Sharding
from estimator.sizing_text import SHORT_LIMIT, render_short, to_plain

PROVIDERS = ("Selectel", "immers.cloud", "HOSTKEY")
CARDS = (*RENTED_CARDS, "A2", "L4", "V100 32GB SXM", "RTX 2080 Ti")
LOCATIONS = (("MSK-1", "RU"), ("ru-7a", "RU"), ("RU", "RU"), ("NL", "NL"), ("FI", "FI"))


@st.composite
def quotes(draw: st.DrawFn) -> PriceQuote:
    gpu = draw(st.sampled_from(CARDS))
    count = draw(st.integers(1, 8))
    per_card_hour = draw(st.floats(20.0, 900.0))
    location, country = draw(st.sampled_from(LOCATIONS))
    monthly = draw(st.booleans())
    # A month of dedicated rent is 0.4-1.6 of 720 hours of the hourly rate.
    month = per_card_hour * count * HOURS_PER_MONTH * draw(st.floats(0.4, 1.6))
    return PriceQuote(
        gpu_id=gpu,
        gpus=count,
        provider=draw(st.sampled_from(PROVIDERS)),
        rub_per_hour=None if monthly else per_card_hour * count,
        rub_per_month=month if monthly else None,
        in_stock=draw(st.booleans()) or draw(st.booleans()),
        stock_published=draw(st.booleans()),
        location=location,
        country=country,
    )


@st.composite
def markets(draw: st.DrawFn) -> list[PriceQuote]:
    found = draw(st.lists(quotes(), min_size=0, max_size=25))
    # "Both": the same server rented by the hour and by the month.
    for quote in draw(st.lists(st.sampled_from(found), max_size=4)) if found else []:
        if quote.rub_per_hour is not None:
            month = quote.rub_per_hour * HOURS_PER_MONTH * draw(st.floats(0.4, 1.6))
            found.append(replace(quote, rub_per_hour=None, rub_per_month=month))
    return found


SIZES = ("1b", "3b", "7b", "8b", "13b", "14b", "32b", "34b", "70b")
METHODS = ("full", "lora", "qlora")


@st.composite
def commands(draw: st.DrawFn) -> str:
    words = [draw(st.sampled_from(SIZES)), draw(st.sampled_from(METHODS))]
    words.append(f"ctx={draw(st.sampled_from((512, 1024, 2048, 4096, 8192)))}")
    if draw(st.booleans()):
        words.append(f"dataset={draw(st.integers(500, 200_000))}")
    if draw(st.booleans()):
        words.append(f"gpus={draw(st.sampled_from((2, 4, 8)))}")
    return " ".join(words)


PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(command=commands(), market=markets())
def test_every_plan_is_true(command: str, market: list[PriceQuote]) -> None:
    parsed = understand(command)
    assert parsed is not None
    sizing = Sizing(parsed.query, parsed.model)
    plans = plan_runs(sizing, market, constraints_of(parsed))
    # A count the user named is the run's, not a filter: the plans are those of every count.
    assert {id(plan.quote) for plan in plans} == {
        id(plan.quote) for plan in plan_runs(sizing, market)
    }
    by_card: dict[str, list[tuple[int, float]]] = {}
    for plan in plans:
        quote = plan.quote
        # It fits on its own count, with its own sharding: on one card, the run's own when it
        # asked for one card, else plain (a set's ZeRO-3 or FSDP shards nothing on one card).
        alone = parsed.query.shard if parsed.query.gpus == 1 else Sharding.DDP
        query = replace(parsed.query, gpus=plan.gpus, shard=plan.shard or alone)
        usable = get(quote.gpu_id).usable_gib
        memory = estimate_memory(query, parsed.model, card_gib=usable)
        assert memory.peak == plan.peak_gib
        span = band(memory.peak, query.stack, memory.must_fit)
        assert grade(span, usable) is plan.verdict is not Verdict.NO
        assert plan.headroom_gib == pytest.approx(usable - span.high)
        assert quote.in_stock
        # The whole server: a plan's count is the server's, never a share of it.
        assert plan.gpus == quote.gpus
        # Cost = price x time at the stated billing.
        if plan.hours is None:
            assert plan.cost_rub is None
            continue
        if plan.monthly:
            assert quote.rub_per_month is not None
            assert plan.months == max(1, math.ceil(plan.hours / HOURS_PER_MONTH - 1e-9))
            assert plan.cost_rub == quote.rub_per_month * plan.months
            assert plan.months * HOURS_PER_MONTH >= plan.hours
        else:
            assert quote.rub_per_hour is not None
            assert plan.cost_rub == quote.rub_per_hour * plan.hours
        by_card.setdefault(quote.gpu_id, []).append((plan.gpus, plan.hours))
    # A card the range reaches into is never ranked above one it leaves room on.
    tight = [plan.verdict is Verdict.TIGHT for plan in plans]
    assert tight == sorted(tight)
    # More cards of the same model never take longer.
    for runs in by_card.values():
        runs.sort()
        for (fewer, slower), (more, faster) in itertools.pairwise(runs):
            if more > fewer:
                assert faster <= slower


@PROPERTY
@given(
    command=commands(),
    market=markets(),
    asked=st.none() | st.sampled_from(CARDS),
    shown=st.integers(1, 5),
)
def test_the_plans_shown_keep_an_hourly_one_and_the_asked_card(
    command: str, market: list[PriceQuote], asked: str | None, shown: int
) -> None:
    parsed = understand(command)
    assert parsed is not None
    plans = plan_runs(Sizing(parsed.query, parsed.model), market)
    card = get(asked) if asked is not None else None
    listed = shown_plans(plans, shown, card)
    assert len(listed) == min(shown, len(distinct(plans)))
    assert all(plan in plans for plan in listed)
    assert len({id(plan) for plan in listed}) == len(listed)
    # An hourly plan whenever one exists (and there is room for more than the asked card).
    if any(not plan.monthly for plan in plans) and (shown > 1 or card is None):
        assert any(not plan.monthly for plan in listed)
    # The asked card's family keeps a line whenever it has a plan.
    if card is not None and any(plan.gpu.family == card.family for plan in plans):
        assert any(plan.gpu.family == card.family for plan in listed)
    # The best plan leads unless both needs took every place.
    if listed and shown > 2:
        assert listed[0] == distinct(plans)[0]


@PROPERTY
@given(market=markets(), usage=st.none() | st.floats(1.0, 720.0))
def test_every_break_even_is_true(market: list[PriceQuote], usage: float | None) -> None:
    for point in break_evens(market, usage_hours=usage):
        hourly, monthly = point.hourly, point.monthly
        assert (hourly.gpu_id, hourly.gpus) == (monthly.gpu_id, monthly.gpus)
        assert hourly.rub_per_hour is not None
        assert monthly.rub_per_month is not None
        assert point.hours * hourly.rub_per_hour == pytest.approx(monthly.rub_per_month)
        # The month pays off only within a month of use. Where the two costs are equal (the
        # market's month drawn at exactly 720 hours) either side of the rounding is right.
        around_the_clock = HOURS_PER_MONTH * hourly.rub_per_hour
        if monthly.rub_per_month != pytest.approx(around_the_clock, rel=1e-9):
            assert point.pays_off == (monthly.rub_per_month < around_the_clock)
        if usage is not None:
            hourly_cost = min(usage, HOURS_PER_MONTH) * hourly.rub_per_hour
            if monthly.rub_per_month != pytest.approx(hourly_cost, rel=1e-9):
                assert point.monthly_wins == (monthly.rub_per_month < hourly_cost)


_MONTHLY_LINE = re.compile(r"(\S+(?: \S+)*?) ×(\d+) · [^—]+— ([\d\u202f,]+) ₽/(?:мес|month)")


@PROPERTY
@given(command=commands(), market=markets(), language=st.sampled_from(("ru", "en")))
def test_the_first_answer_fits_a_phone_names_the_method_and_speaks_the_language(
    command: str, market: list[PriceQuote], language: str
) -> None:
    parsed = understand(command)
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), market)
    short = render_short(answer, language)
    plain = to_plain(short)
    assert len(plain) <= SHORT_LIMIT
    assert METHOD_NAMES[parsed.query.method] in plain.splitlines()[0]
    if language == "ru":
        assert re.search(r"[а-яё]", plain, re.IGNORECASE)
    else:
        assert not re.search(r"[а-яё]", plain, re.IGNORECASE)
    # A monthly price is the server's: the count shown is the server's count.
    servers = {(q.gpu_id, q.gpus, q.rub_per_month) for q in market if q.rub_per_month}
    for plan in answer.plans:
        if plan.monthly:
            assert (plan.quote.gpu_id, plan.gpus, plan.quote.rub_per_month) in servers
    # No plan is offered that the answer says does not fit.
    for plan in answer.plans:
        assert plan.verdict is not Verdict.NO


# Free questions as people type them: the method by any of its names, or none at all.
METHOD_PHRASES = {
    "full": ("фул файнтюн", "полное дообучение", "все веса", "без лоры", "full fine-tune",
             "all weights", "no lora"),
    "lora": ("с лорой", "лора", "lora", "with lora"),
    "qlora": ("qlora", "с qlora", "кулора", "4-bit qlora"),
}  # fmt: skip
OPENERS = {
    "ru": ("влезет ли", "сколько памяти нужно для", "хватит ли"),
    "en": ("will", "how much vram for"),
}


@PROPERTY
@given(
    language=st.sampled_from(("ru", "en")),
    size=st.sampled_from(SIZES),
    method=st.sampled_from((*METHODS, None)),
    data=st.data(),
    market=markets(),
)
def test_a_free_question_is_sized_with_its_own_method_and_answered_in_its_language(
    language: str, size: str, method: str | None, data: st.DataObject, market: list[PriceQuote]
) -> None:
    opener = data.draw(st.sampled_from(OPENERS[language]))
    phrase = "" if method is None else data.draw(st.sampled_from(METHOD_PHRASES[method]))
    if language == "ru" and not re.search(r"[а-яё]", phrase):
        phrase = f"{phrase} на 4090" if phrase else "на 4090"
    text = f"{opener} {size} {phrase}?".replace("  ", " ")
    parsed = understand(text)
    assert parsed is not None, text
    if method is not None:
        assert parsed.query.method.value == method, text
        assert parsed.assumed("method") is None, text
    else:
        assert parsed.assumed("method") is not None, text
    reply_language = "ru" if re.search(r"[а-яё]", text, re.IGNORECASE) else "en"
    short = to_plain(render_short(build_answer(parsed, load_gpus(), market), reply_language))
    assert METHOD_NAMES[parsed.query.method] in short.splitlines()[0]
    assert len(short) <= SHORT_LIMIT
    assert bool(re.search(r"[а-яё]", short, re.IGNORECASE)) == (reply_language == "ru")
