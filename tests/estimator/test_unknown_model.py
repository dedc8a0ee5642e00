"""A model-looking name that the catalog does not match, in a sizing question: found
precisely, never in price questions, greetings, card names or catalog models."""

from __future__ import annotations

import pytest

from estimator.unknown_model import UnknownModel, unknown_model_in_text, unknown_model_text


@pytest.mark.parametrize(
    ("text", "name", "size"),
    [
        ("deepseek v2 lite qlora на 4090 пойдёт?", "deepseek v2 lite", None),
        ("will deepseek v2 lite fit on a 4090 with qlora?", "deepseek v2 lite", None),
        ("влезет ли deepseek v2 lite на rtx 4090?", "deepseek v2 lite", None),
        ("qwen1.5-moe-a2.7b lora", "qwen1.5-moe-a2.7b", None),  # a2.7b: active, not total
        ("allenai/OLMo-2-1124-7B lora", "allenai/OLMo-2-1124-7B", 7.0),
        ("можно дообучить mistral large 2 на 8 h100?", "mistral large 2", None),
    ],
)
def test_a_sizing_question_names_an_unknown_model(text: str, name: str, size: float | None) -> None:
    assert unknown_model_in_text(text) == UnknownModel(name, size)


@pytest.mark.parametrize(
    "text",
    [
        "сколько стоит 4090?",
        "привет",
        "rtx 4090 qlora",
        "a100/h100 lora?",
        "a2 lora",
        "влезет ли llama 3 8b на 4090",  # a catalog model
        "qwen 7b 2 gpus lora",
        "lora на 4090 ctx 8k",
        "deepseek v2 lite",  # no sizing asked
        "deepseek v2 lite влезет?",  # a fit word without a card
        "можно дообучить deepseek?",  # a line word with no version: which model?
        "foo-bar-14b qlora",  # no model line and no repository id
        "qwen 2 lora на 4090",  # two catalog models (Qwen2-7B, Qwen2-72B), not a missing one
    ],
)
def test_other_texts_name_no_unknown_model(text: str) -> None:
    assert unknown_model_in_text(text) is None


def test_a_fit_command_is_a_sizing_question_of_itself() -> None:
    assert unknown_model_in_text("qwen1.5-moe-a2.7b") is None
    assert unknown_model_in_text("qwen1.5-moe-a2.7b", sizing=True) == UnknownModel(
        "qwen1.5-moe-a2.7b", None
    )


def test_the_answer_names_the_model_and_only_a_size_the_user_wrote() -> None:
    ru = unknown_model_text(UnknownModel("deepseek v2 lite", None), "deepseek v2 lite qlora", "ru")
    assert "«deepseek v2 lite»" in ru
    assert "config.json" in ru
    assert "<code>/fit Nb qlora</code>" in ru
    en = unknown_model_text(UnknownModel("Foo/Bar-14B", 14.0), "Foo/Bar-14B lora", "en")
    assert "“Foo/Bar-14B”" in en
    assert "config.json" in en
    assert "<code>/fit 14b lora</code>" in en
    bare = unknown_model_text(UnknownModel("llama 5", None), "llama 5 на h100 влезет?", "ru")
    assert "<code>/fit Nb</code>" in bare  # no method said: none is put in


def test_the_name_is_escaped() -> None:
    text = unknown_model_text(UnknownModel("qwen<b>2", None), "qwen<b>2 lora", "en")
    assert "qwen&lt;b&gt;2" in text
