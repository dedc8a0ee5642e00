"""The /fit wizard's choices state a run typed, the same run its words would."""

from __future__ import annotations

import itertools

import pytest

from bot.views.sizing_reply import CONTEXTS, METHODS, SIZES, wizard_sizing
from estimator.answer import build_answer
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.sizing_text import render_details, render_short


@pytest.mark.parametrize(
    ("size", "method", "ctx"),
    list(itertools.product([v for _, v in SIZES], [v for _, v in METHODS], CONTEXTS)),
)
def test_each_choice_is_the_run_its_words_state(size: str, method: str, ctx: str) -> None:
    typed = wizard_sizing(size, method, ctx)
    worded = understand(f"{size} {method} ctx={ctx}")
    assert typed is not None
    assert worded is not None
    gpus = load_gpus()
    for language in ("ru", "en"):
        assert render_short(build_answer(typed, gpus, []), language) == render_short(
            build_answer(worded, gpus, []), language
        )
    assert render_details(build_answer(typed, gpus, []), "ru") == render_details(
        build_answer(worded, gpus, []), "ru"
    )


@pytest.mark.parametrize(
    ("size", "method", "ctx"),
    [("9b", "lora", "4096"), ("8b", "dora", "4096"), ("8b", "lora", "5000"), ("x", "", "")],
)
def test_a_forged_choice_states_no_run(size: str, method: str, ctx: str) -> None:
    assert wizard_sizing(size, method, ctx) is None
