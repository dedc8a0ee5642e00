"""Compute capability: the catalog agrees with NVIDIA's table, and the rules read it."""

from __future__ import annotations

import pytest

from estimator.gpus import get, load_gpus
from estimator.hardware import (
    BF16_MIN_CAPABILITY,
    attention_kernel,
    capability,
    runs_flash_attention_2,
    runs_unsloth,
)


def test_every_family_of_the_catalog_has_a_capability_and_bf16_agrees_with_it():
    for gpu in load_gpus():
        assert gpu.bf16 == (capability(gpu) >= BF16_MIN_CAPABILITY), gpu.id


@pytest.mark.parametrize(
    ("gpu_id", "runs"),
    [("GTX 1080 Ti", False), ("P40", False), ("P100", False), ("V100 32GB SXM", True),
     ("T4", True), ("RTX 2080 Ti", True), ("RTX 4090", True), ("H100 SXM", True)],
)  # fmt: skip
def test_unsloth_needs_volta_or_newer(gpu_id: str, runs: bool):
    assert runs_unsloth(get(gpu_id)) is runs


def test_flash_attention_2_needs_ampere_and_older_cards_fall_back_to_memory_efficient_sdpa():
    gpus = {gpu.family: gpu for gpu in load_gpus()}
    assert runs_flash_attention_2(gpus["A100"])
    assert runs_flash_attention_2(gpus["RTX 3090"])
    assert not runs_flash_attention_2(gpus["T4"])
    assert not runs_flash_attention_2(gpus["V100"])
    assert attention_kernel(gpus["T4"]) == "memory_efficient"
    assert attention_kernel(gpus["H100"]) == "flash_attention_2"
    assert attention_kernel(gpus["H100"], eager_model=True) == "eager"
    # FA2 and bf16 share the Ampere gate: an fp16-only card never runs FA2.
    for gpu in load_gpus():
        assert runs_flash_attention_2(gpu) == gpu.bf16, gpu.id
