"""Every optimizer name the libraries accept is sized by the state it really keeps.

The expected bytes below are written from each library's own code (the commits named in
estimator/optimizers.py), independently of the table: a name mapped to the wrong state fails.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from estimator.checkpoint import checkpoint_size
from estimator.memory import CALIBRATION, estimate_memory, memory_parts
from estimator.models import get_model
from estimator.optimizers import (
    BITSANDBYTES_NAMES,
    LIBRARIES,
    NAMES,
    TORCH_NAMES,
    TORCHAO_NAMES,
    TRANSFORMERS_NAMES,
    bytes_per_param,
    state_of,
)
from estimator.parse import parse_command
from estimator.query import FitQuery, Method, Optimizer, Precision
from estimator.specs import GIB

# Bytes of state per parameter of a large (4096 x 4096) matrix of bf16 parameters (2 bytes),
# and whether the state is CUDA managed memory. 8-bit: one byte a value + fp32 per 256;
# 4-bit: half a byte + fp32 per 128.
INT8 = 1 + 4 / 256
INT4 = 0.5 + 4 / 128
FACTORED = 4 * (1 / 4096 + 1 / 4096)
EXPECTED: dict[str, dict[str, tuple[float, bool]]] = {
    "transformers": {
        "adamw_torch": (4, False),
        "adamw_torch_fused": (4, False),
        "adamw_torch_xla": (4, False),
        "adamw_torch_npu_fused": (4, False),
        "adamw_apex_fused": (4, False),
        "adafactor": (FACTORED, False),
        "adamw_anyprecision": (8, False),
        "adamw_torch_4bit": (2 * INT4, False),
        "adamw_torch_8bit": (2 * INT8, False),
        "ademamix": (12, False),
        "sgd": (0, False),
        "adagrad": (2, False),
        "adamw_bnb_8bit": (2 * INT8, False),
        "adamw_8bit": (2 * INT8, False),
        "ademamix_8bit": (3 * INT8, False),
        "lion_8bit": (INT8, False),
        "lion_32bit": (4, False),
        "paged_adamw_32bit": (8, True),
        "paged_adamw_8bit": (2 * INT8, True),
        "paged_ademamix_32bit": (12, True),
        "paged_ademamix_8bit": (3 * INT8, True),
        "paged_lion_32bit": (4, True),
        "paged_lion_8bit": (INT8, True),
        "rmsprop": (2, False),
        "rmsprop_bnb": (4, False),
        "rmsprop_bnb_8bit": (INT8, False),
        "rmsprop_bnb_32bit": (4, False),
        # GaLore: AdamW moments on a rank-128 projection (128/4096 of the matrix) and the
        # projection matrix itself, in bf16.
        "galore_adamw": (2 * 2 / 32 + 2 / 32, False),
        "galore_adamw_8bit": (2 * INT8 / 32 + 2 / 32, False),
        "galore_adafactor": (4 * (1 / 128 + 1 / 4096) / 32 + 2 / 32, False),
        "galore_adamw_layerwise": (2 * 2 / 32 + 2 / 32, False),
        "galore_adamw_8bit_layerwise": (2 * INT8 / 32 + 2 / 32, False),
        "galore_adafactor_layerwise": (4 * (1 / 128 + 1 / 4096) / 32 + 2 / 32, False),
        "lomo": (0, False),
        "adalomo": (FACTORED, False),
        "grokadamw": (6, False),
        "schedule_free_radam": (4, False),
        "schedule_free_adamw": (4, False),
        "schedule_free_sgd": (2, False),
        "apollo_adamw": (2 * 2 / 32, False),  # the projection is regenerated from its seed
        "apollo_adamw_layerwise": (2 * 2 / 32, False),
        "stable_adamw": (6, False),  # a Kahan buffer beside the moments for bf16 parameters
    },
    "torch": {
        "adafactor": (FACTORED, False),
        "adadelta": (4, False),
        "adagrad": (2, False),
        "adam": (4, False),
        "adamax": (4, False),
        "adamw": (4, False),
        "asgd": (2, False),
        "lbfgs": (2 * 203, False),
        "muon": (2, False),
        "nadam": (4, False),
        "radam": (4, False),
        "rmsprop": (2, False),
        "rprop": (4, False),
        "sgd": (0, False),
        "sparseadam": (4, False),
    },
    "bitsandbytes": {
        **{
            f"{name}{bits}": (4 * n if bits != "8bit" else n * INT8, False)
            for name, n in (
                ("adagrad", 1),
                ("adam", 2),
                ("adamw", 2),
                ("ademamix", 3),
                ("lamb", 2),
                ("lars", 1),
                ("lion", 1),
                ("rmsprop", 1),
                ("sgd", 1),
            )
            for bits in ("", "8bit", "32bit")
        },
        **{
            f"paged{name}{bits}": (4 * n if bits != "8bit" else n * INT8, True)
            for name, n in (("adam", 2), ("adamw", 2), ("ademamix", 3), ("lion", 1))
            for bits in ("", "8bit", "32bit")
        },
        "pytorchlars": (2, False),
    },
    "torchao": {
        "adam4bit": (2 * INT4, False),
        "adam8bit": (2 * INT8, False),
        "adamfp8": (2 * INT8, False),
        "adamw4bit": (2 * INT4, False),
        "adamw8bit": (2 * INT8, False),
        "adamwfp8": (2 * INT8, False),
        "_adamw": (4, False),
    },
}


def test_every_library_name_is_listed_and_nothing_else():
    assert set(LIBRARIES) == set(EXPECTED)
    for library, names in LIBRARIES.items():
        assert set(names) == set(EXPECTED[library]), library


@pytest.mark.parametrize(
    ("library", "name"),
    [(library, name) for library, names in EXPECTED.items() for name in names],
)
def test_each_name_keeps_its_true_state(library: str, name: str):
    optimizer = LIBRARIES[library][name]
    expected, paged = EXPECTED[library][name]
    assert bytes_per_param(optimizer, 2.0, 4096, 4096) == pytest.approx(expected, rel=1e-6)
    assert state_of(optimizer).paged is paged


def test_the_command_reads_every_name_as_its_first_library_means_it():
    for name, optimizer in NAMES.items():
        first = next(table[name] for table in LIBRARIES.values() if name in table)
        assert optimizer is first
        assert parse_command(f"7b full optim={name}").query.optimizer is optimizer, name
    # The case people write: the class names as printed.
    assert parse_command("7b full optim=PagedAdamW32bit").query.optimizer is (Optimizer.PAGED_ADAMW)
    assert TRANSFORMERS_NAMES["adamw_torch"] is TORCH_NAMES["adamw"] is Optimizer.ADAMW
    assert BITSANDBYTES_NAMES["adamw"] is Optimizer.ADAMW_32BIT  # fp32 moments: not torch's
    assert TORCHAO_NAMES["adamw8bit"] is BITSANDBYTES_NAMES["adamw8bit"]


def test_paged_adamw_32bit_is_sized_as_two_fp32_moments_not_as_8bit():
    """The QLoRA paper's and HF's tutorial default: a 7B full fine-tune's state is 8 bytes a
    parameter, four times the 8-bit optimizer's."""
    model = get_model("Llama-2-7B")
    query = parse_command("llama-2-7b full optim=paged_adamw_32bit precision=bf16").query
    parts = memory_parts(query, model)
    assert parts.optimizer == pytest.approx(8 * model.total_params, rel=0.01)
    eight = memory_parts(replace(query, optimizer=Optimizer.PAGED_ADAMW_8BIT), model)
    assert parts.optimizer > 3.9 * eight.optimizer


def test_paged_state_is_outside_torch_counters_and_spills_on_a_full_card():
    model = get_model("Llama-2-7B")
    query = FitQuery(
        model=model.id,
        method=Method.FULL,
        precision=Precision.BF16,
        optimizer=Optimizer.PAGED_ADAMW,
    )
    plain = estimate_memory(replace(query, optimizer=Optimizer.ADAMW_32BIT), model)
    paged = estimate_memory(query, model)
    state = 8 * model.total_params / GIB
    assert paged.paged == pytest.approx(state, rel=0.01)
    assert paged.allocated == pytest.approx(plain.allocated - state, rel=0.01)
    # Resident on a card with room, outside the allocator's pool (so without its slack).
    slack = CALIBRATION.allocator_slack
    assert paged.peak == pytest.approx(plain.peak - state * slack, rel=1e-3)
    on_40 = estimate_memory(query, model, card_gib=39.5)
    assert paged.must_fit < 39.5 < paged.peak
    assert on_40.spilled > 0
    assert on_40.peak == pytest.approx(39.5)
    assert on_40.must_fit == pytest.approx(paged.must_fit)


def test_lora_adapters_page_only_their_large_matrices():
    """bitsandbytes pages a state tensor from 1e5 elements: rank-16 A and B of a 4096-wide
    layer (65 536) stay torch tensors, those of the 14 336-wide MLP are paged."""
    model = get_model("Llama-3.1-8B")
    query = FitQuery(model=model.id, method=Method.QLORA, optimizer=Optimizer.PAGED_ADAMW_8BIT)
    parts = memory_parts(query, model)
    assert 0 < parts.paged < parts.adapter_optimizer


def test_a_full_fine_tunes_resume_checkpoint_holds_the_optimizers_own_state():
    model = get_model("Llama-2-7B")
    for optimizer, state in ((Optimizer.PAGED_ADAMW, 8), (Optimizer.SGD, 0), (Optimizer.LION, 4)):
        query = FitQuery(model=model.id, method=Method.FULL, optimizer=optimizer)
        size = checkpoint_size(query, model)
        assert size.resume_bytes == round(model.total_params * (2 + 4 + state))  # bf16 + fp32
