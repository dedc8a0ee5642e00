"""What market answers suggest to type: every command they print reads back as the card."""

from __future__ import annotations

import re

from bot.usecases.market import answer_question, command_word
from estimator.cost import PriceQuote
from estimator.fit_words import understand
from estimator.i18n import translators

QUOTES = [
    PriceQuote("RTX 4090", 1, "immers", 83.0, None),
    PriceQuote("A100 80GB SXM", 1, "selectel", 212.0, None),
]


def test_a_comparison_suggests_commands_that_read_back_as_its_cards() -> None:
    text = answer_question("что быстрее 4090 или a100?", translators()["ru"], QUOTES)
    commands = re.findall(r"<code>/fit (.+?)</code>", text)
    assert "13b qlora gpu=rtx-4090" in commands  # never «gpu=rtx 4090»
    for command in commands:
        parsed = understand(command)
        assert parsed is not None
        assert parsed.target_gpu == "RTX 4090" or parsed.target_family == "A100"


def test_a_card_is_one_command_word() -> None:
    assert command_word("RTX PRO 6000 Blackwell") == "rtx-pro-6000-blackwell"
    assert command_word("H100") == "h100"
