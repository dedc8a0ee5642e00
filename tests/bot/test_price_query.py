"""/prices filters are echoed in the user's language (bot.views.prices.filter_text), never as
the raw key=value words."""

from __future__ import annotations

from pathlib import Path

from bot.views.prices import filter_text
from monitor.price_query import parse_price_query
from tests.bot.conftest import CHAT, running_app
from tests.fakes.telegram import FakeTelegram


def test_a_cap_and_billing_read_as_words_in_russian() -> None:
    query = parse_price_query("max=100 monthly")
    assert filter_text(query, "ru") == "до 100 ₽/GPU·ч, помесячно"
    assert filter_text(query, "en") == "≤ 100 ₽/GPU·h, monthly"


def test_gpu_memory_and_provider_read_as_words() -> None:
    query = parse_price_query("h100 80gb provider=selectel hourly")
    assert filter_text(query, "ru") == "H100, от 80 ГБ/GPU, Selectel, почасово"
    assert filter_text(query, "en") == "H100, ≥ 80 GB/GPU, Selectel, hourly"


def test_every_billing_kind_reads_as_a_word() -> None:
    assert filter_text(parse_price_query("spot"), "ru") == "прерываемые"
    assert filter_text(parse_price_query("прерываемые"), "en") == "preemptible"


def test_a_users_location_is_escaped_once() -> None:
    query = parse_price_query("location=<b>")
    assert filter_text(query, "en") == "location: &lt;b&gt;"
    assert query.canonical() == "location=<b>"


def test_no_filter_describes_as_nothing() -> None:
    assert filter_text(parse_price_query(""), "ru") == ""


async def test_prices_echo_the_filter_in_the_users_language(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        after = telegram.mark()
        telegram.push_message(CHAT, "/prices max=100 monthly")
        russian = await telegram.wait_for_call("sendMessage", after=after)
        after = telegram.mark()
        telegram.push_message(CHAT + 1, "/prices max=100 monthly", language_code="en")
        english = await telegram.wait_for_call("sendMessage", after=after)
    assert "Фильтр: до 100 ₽/GPU·ч, помесячно" in russian.result["text"]
    assert "max=100" not in russian.result["text"].split("\n")[1]
    assert "Filter: ≤ 100 ₽/GPU·h, monthly" in english.result["text"]
