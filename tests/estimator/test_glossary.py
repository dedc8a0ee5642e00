"""What a question about a term is, and that every term has its words in both languages."""

from __future__ import annotations

import pytest

from estimator.glossary import Term, term_asked
from estimator.i18n import translator


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("что такое qlora?", Term.QLORA),
        ("Что такое QLoRA", Term.QLORA),
        ("а что такое лора?", Term.LORA),
        ("зачем нужен gradient checkpointing?", Term.CHECKPOINTING),
        ("что значит ctx?", Term.CONTEXT),
        ("что такое оффлоад", Term.OFFLOAD),
        ("что такое fsdp", Term.SHARDING),
        ("what is gradient checkpointing?", Term.CHECKPOINTING),
        ("what does ga mean?", Term.ACCUMULATION),
        ("explain packing", Term.PACKING),
        ("what is unsloth", Term.UNSLOTH),
    ],
)
def test_a_question_about_a_term_names_it(text: str, term: Term) -> None:
    assert term_asked(text) is term


@pytest.mark.parametrize(
    "text",
    [
        "что такое 8b qlora",  # a run, not a term: the sizing answers it
        "что такое h100?",  # a card: the market's
        "what is the best gpu for 13b?",
        "qlora",
        "сколько памяти нужно для qlora 8b? и что такое qlora вообще, объясни подробно пожалуйста",
    ],
)
def test_anything_else_is_no_term_question(text: str) -> None:
    assert term_asked(text) is None


@pytest.mark.parametrize("language", ["ru", "en"])
@pytest.mark.parametrize("term", list(Term))
def test_every_term_is_explained_with_a_fit_to_try_or_its_setting(language: str, term: Term):
    text = translator(language)(f"glossary-{term.value}")
    assert not text.startswith("glossary-")  # a text of its own, not the key echoed
    assert "/fit " in text or "=" in text
