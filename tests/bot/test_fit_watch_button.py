"""The «Следить» button of a /fit answer: the run it carries, and Telegram's 64-byte limit."""

from __future__ import annotations

from bot.button_data import FitWatchCallback, LegacyFitWatchCallback
from bot.views.sizing_reply import watch_button
from estimator.answer import build_answer
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.models import load_models
from estimator.parsing.build import LIMITS
from estimator.query import Method

# Telegram's limit on callback_data (Bot API, InlineKeyboardButton.callback_data: 1-64 bytes).
CALLBACK_DATA_BYTES = 64


def test_every_catalog_model_packs_at_the_largest_values_the_grammar_allows() -> None:
    for model in load_models():
        data = FitWatchCallback(
            model=model.id,
            method=Method.QLORA.value,
            ctx=int(LIMITS["ctx"][1]),
            bs=int(LIMITS["bs"][1]),
            rank=int(LIMITS["rank"][1]),
        )
        assert len(data.pack().encode()) <= CALLBACK_DATA_BYTES, model.id


def test_a_button_sent_before_the_rank_was_carried_still_reads() -> None:
    old = "v:Llama-3.1-8B:qlora:4096:1"
    assert LegacyFitWatchCallback.unpack(old).ctx == 4096


def test_a_reverse_answers_button_carries_the_solved_value() -> None:
    parsed = understand("8b lora rank=max gpu=4090")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus())
    assert answer.solved is not None
    assert answer.solved.value is not None
    button = watch_button(parsed, answer)
    assert button is not None
    assert button.rank == answer.solved.value
    assert watch_button(parsed, None) == button  # solved again when no answer is at hand


def test_a_reverse_question_without_a_card_has_no_watch() -> None:
    parsed = understand("8b qlora ctx=max")
    assert parsed is not None
    assert watch_button(parsed, build_answer(parsed, load_gpus())) is None
