"""The /fit wizard's choices and a watch button state a run typed, the same run their words
would."""

from __future__ import annotations

import itertools

import pytest

from bot.views.sizing_reply import CONTEXTS, METHODS, SIZES, watched_run, wizard_sizing
from estimator.answer import build_answer
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.parse import QueryError
from estimator.sizing_text import render_details, render_short
from monitor.watch_words import parse_watch, watch_for_run


@pytest.mark.parametrize(
    ("size", "method", "ctx"),
    list(itertools.product([v for _, v in SIZES], [v for _, v in METHODS], CONTEXTS)),
)
def test_each_choice_is_the_run_its_words_state(size: str, method: str, ctx: str) -> None:
    typed = wizard_sizing(size, method, ctx)
    worded = understand(f"{size} {method} ctx={ctx}")
    assert typed is not None
    assert worded is not None
    assert (typed.query, typed.model, typed.assumptions) == (
        worded.query,
        worded.model,
        worded.assumptions,
    )


@pytest.mark.parametrize(
    ("size", "method", "ctx"), [("8b", "qlora", "4096"), ("70b", "full", "2048")]
)
def test_a_choice_is_answered_as_its_words_are(size: str, method: str, ctx: str) -> None:
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


@pytest.mark.parametrize(
    ("model", "method", "ctx", "bs", "rank"),
    [
        ("Llama-3.1-8B", "qlora", 4096, 1, 0),
        ("Qwen2.5-72B", "lora", 8192, 2, 64),
        ("Llama-3.3-70B", "full", 2048, 1, 0),
    ],
)
def test_a_watch_button_watches_the_run_its_words_would(
    model: str, method: str, ctx: int, bs: int, rank: int
) -> None:
    run = f"{method} ctx={ctx} bs={bs}" + (f" rank={rank}" if rank else "")
    words = f"{model} {run}"
    typed = watch_for_run(watched_run(model, method, ctx, bs, rank), words)
    assert typed == parse_watch(words)


@pytest.mark.parametrize(
    ("model", "method", "ctx", "bs"),
    [
        ("Llama-9", "lora", 4096, 1),
        ("Llama-3.1-8B", "dora", 4096, 1),
        ("Llama-3.1-8B", "lora", 0, 1),
    ],
)
def test_a_forged_watch_button_is_refused(model: str, method: str, ctx: int, bs: int) -> None:
    with pytest.raises(QueryError):
        watched_run(model, method, ctx, bs, 0)
