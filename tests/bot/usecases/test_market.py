"""Market answers read what was asked: «a100 80» is the 80 GB A100s, «только почасово» the
hourly plans."""

from __future__ import annotations

from typing import Literal

from bot.usecases.market import NO_WISH, answer_question, largest_answer, run_question
from estimator.cost import PriceQuote
from estimator.i18n import translators
from estimator.parsing.market import read_constraints

QUOTES = [
    PriceQuote("A100 40GB PCIe", 1, "Selectel", 198.0, None),
    PriceQuote("A100 80GB PCIe", 1, "immers.cloud", 229.5, None),
    PriceQuote("A100 80GB SXM", 8, "HOSTKEY", None, 790_000.0),
]


def test_the_memory_a_card_name_states_narrows_its_family() -> None:
    ru = translators()["ru"]
    for text in ("где дешевле всего a100 80?", "где дешевле a100 80gb?"):
        answer = answer_question(text, ru, QUOTES)
        assert answer.startswith("<b>A100 ≥80GB дешевле всего")
        assert "A100 40GB" not in answer
        assert "A100 80GB PCIe" in answer
    every = answer_question("где дешевле a100?", ru, QUOTES)
    assert "A100 40GB PCIe" in every  # the family named alone: every member


def test_a_billing_asked_about_the_last_run_is_the_one_named() -> None:
    assert run_question("а если только почасово?", NO_WISH) == "hour"
    assert run_question("and hourly?", NO_WISH) == "hour"
    assert run_question("а помесячно?", NO_WISH) == "month"
    # both named: the monthly plans and the break-even against the hourly rate
    assert run_question("почасовая или помесячная?", NO_WISH) == "month"
    assert run_question("а дешевле есть?", NO_WISH) == "cheaper"


def test_the_largest_model_a_named_card_holds_is_answered_by_method() -> None:
    ru = translators()["ru"]
    answer = largest_answer("у меня 3060 12 гб, какую модель можно дообучить?", ru)
    assert answer is not None
    assert "RTX 3060" in answer
    assert "• qlora: до <b>7B</b>" in answer
    assert "• full: не помещается даже 1B" in answer
    assert largest_answer("какую модель можно дообучить?", ru) is None  # no card named


def test_the_largest_model_is_sized_in_the_run_the_question_says() -> None:
    """The context, the card count, the stack and a card by its memory were dropped: every
    answer was one card at ctx 2048 with HF, «на rtx 3060 что можно дообучить?» got prices
    and "…on a 24gb card?" the help text."""
    ru, en = translators()["ru"], translators()["en"]
    long = largest_answer("какую самую большую модель можно дообучить на 3090 с контекстом 8к?", ru)
    assert long is not None
    assert "ctx 8192" in long
    assert "ctx=8192" in long
    assert "• qlora: до <b>7B</b>" in long  # 13B at 2048, only tight at 8192
    two = largest_answer("какую модель можно дообучить на двух 4090?", ru)
    assert two is not None
    assert "2 карты (ddp)" in two
    assert "gpus=2" in two
    fast = largest_answer("какую модель можно дообучить на a100 с unsloth?", ru)
    assert fast is not None
    assert "Unsloth, bs 1" in fast
    assert "stack=unsloth" in fast
    assert "Unsloth и короткий" not in fast  # Unsloth is already the run's
    by_memory = largest_answer("what is the biggest model I can qlora on a 24gb card?", en)
    assert by_memory is not None
    assert "<b>a 24 GB card</b>" in by_memory
    assert "• qlora: up to" in by_memory
    assert "• lora" not in by_memory
    own = largest_answer("на rtx 3060 12gb что можно дообучить?", ru)
    assert own is not None
    assert "RTX 3060" in own
    small = largest_answer("у меня 3060, что можно дообучить полным файнтюном?", ru)
    assert small is not None
    assert "• full: " in small
    assert "• qlora" not in small


def ask(text: str, language: Literal["ru", "en"] = "ru") -> str:
    """The market answer to `text` with what it says of the offers, as market_reply reads it."""
    return answer_question(text, translators()[language], QUOTES, read_constraints(text))


def test_a_price_cap_with_no_card_lists_the_cheapest_within_it() -> None:
    answer = ask("какие карты есть до 200 рублей в час?")
    assert answer.startswith("<b>Дешевле всего сейчас")
    assert "Условия: до 200 ₽/ч" in answer
    assert "A100 40GB PCIe" in answer
    assert "A100 80GB PCIe" not in answer  # 229,50 ₽/ч is over the cap
    english = ask("what GPUs are there under 300 rub per hour?", "en")
    assert "Conditions: up to 300 ₽/h" in english  # a cap, not "hourly or monthly?"


def test_caps_per_gpu_hour_and_per_month_narrow_the_offers() -> None:
    per_card = ask("a100 до 150 ₽ за GPU-час")
    assert "A100 80GB SXM ×8" in per_card  # 790 000 ₽ a month over 8 cards: 137 ₽ a GPU-hour
    assert "A100 40GB PCIe" not in per_card
    month = ask("хочу арендовать что-нибудь до 150 000 ₽ в месяц")
    assert "Условия: до 150\u202f000 ₽ в месяц" in month
    assert "A100 40GB PCIe" in month  # 198 ₽/ч round the clock is 142 560 ₽
    assert "A100 80GB PCIe" not in month  # 165 240 ₽


def test_a_price_asked_in_another_currency_is_said_to_be_in_roubles() -> None:
    assert ask("сколько это в долларах?").startswith("Цены — в рублях")
    assert ask("how much in dollars?", "en").startswith("Prices are in roubles")
    assert "A100" in ask("где дешевле a100?")  # a card named: its offers, in roubles
