"""A stale offer in the chat: /prices' card, the market answers and the plans' quotes say
when its data is from, on the reader's clock, and an expired one is no plan."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.quotes import quotes_from
from bot.usecases.market import answer_question
from bot.views.prices import clock_time, prices_text
from estimator.cost import PriceQuote
from estimator.i18n import translators
from monitor.freshness import ObservedOffer, Stale
from monitor.offers import StockState
from monitor.parts import PartState
from tests.factories import make_offer

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SEEN = NOW - timedelta(minutes=55)  # 11:05 UTC, 14:05 in Moscow
FAILED = Stale(PartState.FAILED, "HttpStatusError")


def test_the_time_is_the_readers_and_names_the_day_when_it_was_another():
    assert clock_time(SEEN, NOW, "Europe/Moscow") == "14:05"
    assert clock_time(SEEN, NOW, "UTC") == "11:05"
    assert clock_time(SEEN - timedelta(days=1), NOW, "UTC") == "30.11 11:05"


def test_prices_marks_the_stale_card_and_dates_the_fresh_one():
    ru = translators()["ru"]
    fresh = ObservedOffer(make_offer("fresh", 100), NOW - timedelta(minutes=5))
    stale = ObservedOffer(make_offer("stale", 90), SEEN, FAILED)
    expired = ObservedOffer(make_offer("old", 80), SEEN - timedelta(hours=2), FAILED, True)
    text = prices_text(ru, [fresh, stale, expired], [], 0, NOW, title="T", timezone="Europe/Moscow")
    cards = [line for line in text.splitlines() if line.startswith("    ")]
    assert len(cards) == 3
    expired_card, stale_card, fresh_card = cards  # cheapest per GPU-hour first
    assert stale_card.endswith("⚠️ данные от 14:05, источник не отвечает")
    assert expired_card.endswith(
        "⚠️ данные от 12:05, источник не отвечает — в наличии и подборах не учитываю"
    )
    assert fresh_card.endswith("5 мин назад")
    en = translators()["en"]
    english = prices_text(en, [stale], [], 0, NOW, title="T", timezone="UTC")
    assert "⚠️ data from 11:05, the source is not answering" in english


def test_an_expired_offer_is_no_plan_and_a_stale_one_carries_its_time():
    counts = ObservedOffer(make_offer("a", 100, StockState.UNKNOWN), SEEN, FAILED)
    expired = ObservedOffer(make_offer("b", 90), SEEN, FAILED, True)
    fresh = ObservedOffer(make_offer("c", 95), NOW)
    quotes = {q.label: q for q in quotes_from([counts, expired, fresh])}
    assert (quotes["a"].in_stock, quotes["a"].stale_since) == (True, SEEN)
    assert (quotes["b"].in_stock, quotes["b"].stale_since) == (False, SEEN)
    assert (quotes["c"].in_stock, quotes["c"].stale_since) == (True, None)


def test_a_market_answer_marks_a_stale_offer():
    quotes = [
        PriceQuote("H100 SXM", 1, "Selectel", 456.27, None, stale_since=SEEN),
        PriceQuote("H100 SXM", 1, "HOSTKEY", 500.0, None),
    ]
    text = answer_question("сколько стоит h100?", translators()["ru"], quotes, timezone="UTC")
    selectel, hostkey = [line for line in text.splitlines() if line.startswith("•")]
    assert "Selectel" in selectel
    assert "⚠️ данные от" in selectel
    assert "11:05" in selectel  # the day is named too when it was not today here
    assert "⚠️" not in hostkey
