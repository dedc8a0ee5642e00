"""«Какую модель можно дообучить на 4090?»: the largest size a card holds, by method."""

from __future__ import annotations

import pytest

from estimator.fit import Verdict, judge_run
from estimator.gpus import get
from estimator.largest import SIZES, asks_largest, largest_models
from estimator.models import model_for_size
from estimator.query import FitQuery, Method


@pytest.mark.parametrize(
    "text",
    [
        "у меня 3060 12 гб, какую модель можно дообучить?",
        "какую максимальную модель можно дообучить на 4090 с qlora?",
        "what's the biggest model I can fine-tune on an a100?",
        "which model can I train on a 4090",
        "на rtx 3060 12gb что можно дообучить?",
        "что я смогу зафайнтюнить на 4090?",
        "what can I fine-tune on a 3090?",
        "модель какого размера влезет в 4090?",
    ],
)
def test_a_question_for_the_largest_model_is_recognised(text: str) -> None:
    assert asks_largest(text)


@pytest.mark.parametrize("text", ["где дешевле h100", "8b qlora на 4090", "какая карта лучше"])
def test_other_questions_are_not(text: str) -> None:
    assert not asks_largest(text)


@pytest.mark.parametrize("card", ["RTX 3060", "RTX 4090", "A100 80GB SXM"])
@pytest.mark.parametrize("method", list(Method))
def test_the_answer_holds_and_the_next_size_does_not_fit_with_room(card: str, method: Method):
    gpu = get(card)
    found = largest_models(gpu, method)
    bigger = [s for s in SIZES if found.fits_size is None or s > found.fits_size]
    for size in bigger:  # nothing larger is called «помещается»
        model = model_for_size(size)
        judged = judge_run(FitQuery(model=model.id, method=method, ctx=2048), model, gpu.usable_gib)
        assert judged.verdict is not Verdict.FITS
    if found.fits is not None:
        assert found.fits_high_gib is not None
        assert found.fits_high_gib <= gpu.usable_gib


def test_qlora_holds_more_than_lora_and_lora_more_than_full() -> None:
    gpu = get("RTX 4090")
    sizes = [
        largest_models(gpu, m).fits_size or 0 for m in (Method.QLORA, Method.LORA, Method.FULL)
    ]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] >= 13  # the QLoRA paper's point: a 13B fits a 24 GB card
