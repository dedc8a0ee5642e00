"""Market answers read the card as its name says it: «a100 80» is the 80 GB A100s."""

from __future__ import annotations

from bot.usecases.market import answer_question
from estimator.cost import PriceQuote
from estimator.i18n import translators

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
