"""A LoRA's breakdown shows its gradients and optimizer state, non-zero, summing to the peak."""

from __future__ import annotations

import pytest

from estimator.memory import Gib, estimate_memory
from estimator.models import get_model
from estimator.plan_text import gib
from estimator.query import FitQuery, Method, Offload
from estimator.specs import GIB


def test_lora_gradients_and_adamw_state_come_from_the_trainable_count() -> None:
    query = FitQuery(model="Llama-3.2-1B", method=Method.LORA, ctx=2048, lora_rank=8)
    memory = estimate_memory(query, get_model(query.model))
    parts = memory.breakdown()
    trainable = memory.trainable_params
    # PEFT keeps the adapters in fp32: a 4-byte gradient and two 4-byte AdamW moments each.
    assert parts["gradients"] == pytest.approx(trainable * 4 / GIB)
    assert parts["optimizer"] == pytest.approx(trainable * 8 / GIB)
    assert parts["adapters"] == pytest.approx(trainable * 4 / GIB)
    assert sum(parts.values()) == pytest.approx(memory.peak)
    assert memory.adapters == pytest.approx(trainable * 16 / GIB)  # the peak counts them once
    assert gib(parts["optimizer"]) == "0.042"
    assert gib(parts["gradients"]) == "0.021"


def test_offloaded_lora_state_is_not_on_the_gpu() -> None:
    query = FitQuery(model="Llama-3.2-1B", method=Method.LORA, ctx=2048, offload=Offload.OPTIMIZER)
    parts = estimate_memory(query, get_model(query.model)).breakdown()
    assert parts["optimizer"] == 0
    assert parts["gradients"] == 0


@pytest.mark.parametrize(
    ("value", "shown"),
    [(15.04, "15.0"), (0.16, "0.2"), (0.078, "0.078"), (0.0082, "0.0082"), (0.0, "0.0")],
)
def test_small_parts_keep_two_significant_digits(value: float, shown: str) -> None:
    assert f"{Gib(value):.1f}" == shown
