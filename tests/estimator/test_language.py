"""estimator.parsing.language: a text's own words decide its answer's language, else the
caller's fallback (the user's setting, or the conversation's language)."""

from __future__ import annotations

import pytest

from estimator.parsing.language import reply_language


@pytest.mark.parametrize(
    "text", ["?", "👍", "550", "", "dataset=20k", "ctx = 4096", "h100?", "qlora", "rtx 4090", "70b"]
)
def test_a_text_without_words_of_a_language_gets_the_fallback(text: str):
    assert reply_language(text, "ru") == "ru"
    assert reply_language(text, "en") == "en"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("а с qlora?", "ru"),
        ("датасет=20k", "ru"),
        ("где дешевле h100?", "ru"),
        ("what about qlora?", "en"),
        ("price of h100", "en"),
        ("does 13b fit on a 4090?", "en"),
    ],
)
def test_words_decide(text: str, language: str):
    assert reply_language(text, "ru" if language == "en" else "en") == language
