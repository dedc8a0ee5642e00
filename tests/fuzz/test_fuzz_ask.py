"""General questions: any text gets an answer (never an exception), valid Telegram HTML, in
either language, with or without live prices (provider names with HTML specials included)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from bot.usecases.market import answer_question
from estimator.cost import PriceQuote
from estimator.i18n import translators
from tests.fuzz import assert_telegram_html, fuzz
from tests.fuzz.test_fuzz_fit import GPU_IDS, NASTY_TEXT, NASTY_WORD

TRANSLATORS = translators()
QUOTES = st.lists(
    st.builds(
        PriceQuote,
        gpu_id=st.sampled_from(GPU_IDS),
        gpus=st.integers(1, 8),
        provider=st.one_of(st.sampled_from(("Selectel", "HOSTKEY", "immers.cloud")), NASTY_WORD),
        rub_per_hour=st.one_of(st.none(), st.floats(0.01, 1_000_000)),
        rub_per_month=st.one_of(st.none(), st.floats(1, 100_000_000)),
        in_stock=st.booleans(),
    ),
    max_size=6,
)
PHRASES = st.sampled_from(
    (
        "что быстрее {a} или {b}?",
        "где дешевле {a}?",
        "есть ли сейчас {a}?",
        "почасовая или помесячная для {a}?",
        "сколько стоит {a}",
        "{a} vs {b}",
        "which is faster, {a} or {b}?",
        "is {a} in stock?",
    )
)
GPU_WORDS = st.sampled_from(("h100", "a100", "4090", "3090", "t4", "h200", "l40s", "а100", "p40"))


@fuzz(200)
@given(text=NASTY_TEXT, quotes=QUOTES)
@example(text="<b>где</b> дешевле h100 & a100?", quotes=[])
def test_any_text_gets_valid_html(text: str, quotes: list[PriceQuote]) -> None:
    for translator in TRANSLATORS.values():
        reply = answer_question(text, translator, quotes)
        assert reply
        assert "Не понял" not in reply
        assert_telegram_html(reply)


@fuzz(200)
@given(phrase=PHRASES, a=GPU_WORDS, b=GPU_WORDS, quotes=QUOTES)
def test_general_questions_with_any_prices(phrase: str, a: str, b: str, quotes) -> None:
    for translator in TRANSLATORS.values():
        assert_telegram_html(answer_question(phrase.format(a=a, b=b), translator, quotes))
