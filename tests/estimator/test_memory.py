"""The memory model: three breakdowns checked by hand, published adapter counts, properties."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from estimator.memory import (
    ACTIVATION_FACTOR,
    BNB_TRAINING_BYTES_PER_PARAM,
    CUDA_CONTEXT_GIB,
    NF4_DQ_BYTES,
    estimate_memory,
    linear_params,
    lora_params,
)
from estimator.models import get_model, load_models
from estimator.query import (
    Checkpointing,
    FitQuery,
    Loss,
    Method,
    Optimizer,
    Precision,
    Sharding,
    Stack,
    Targets,
)
from estimator.specs import GIB

LLAMA2_7B = get_model("Llama-2-7B")
LLAMA31_8B = get_model("Llama-3.1-8B")


def test_full_bf16_breakdown_by_hand():
    """Llama-2-7B, pure bf16 AdamW, no checkpointing, 1 × 512 tokens, HF loss."""
    query = FitQuery(
        model="Llama-2-7B",
        method=Method.FULL,
        ctx=512,
        precision=Precision.BF16,
        optimizer=Optimizer.ADAMW,
        grad_checkpointing=Checkpointing.OFF,
    )
    memory = estimate_memory(query, LLAMA2_7B)
    p = 6_738_415_616
    assert memory.weights == pytest.approx(2 * p / GIB)  # 12.55 GiB
    assert memory.gradients == pytest.approx(2 * p / GIB)  # bf16 gradients
    assert memory.optimizer == pytest.approx(4 * p / GIB)  # two bf16 moments
    assert memory.adapters == 0
    # Per token per layer: norm inputs 2h, q k v + attention out 4·4096, gate/up/act 3I,
    # inputs of qkv, gate/up and down (h + h + I): 76 800 elements of 2 bytes.
    per_token_layer = 76_800 * 2 * ACTIVATION_FACTOR
    stored = per_token_layer * 32 * 512
    logits = 12.0 * 512 * 32_000  # transformers' fp32 loss over a 32k vocabulary
    assert memory.activations == pytest.approx((stored + logits) / GIB)
    assert memory.activations == pytest.approx(2.761, abs=0.001)
    assert memory.context == CUDA_CONTEXT_GIB


def test_qlora_breakdown_by_hand():
    """Llama-3.1-8B QLoRA r16 on all linears, HF stack, gc on, 1 × 2048 tokens."""
    query = FitQuery(model="Llama-3.1-8B", method=Method.QLORA, ctx=2048, lora_rank=16)
    memory = estimate_memory(query, LLAMA31_8B)
    h, kv, inter, layers = 4096, 1024, 14336, 32
    linear = layers * (h * (2 * h + 2 * kv) + 3 * h * inter)  # 6 979 321 856
    assert linear_params(LLAMA31_8B) == linear
    rest = 8_030_261_248 - linear  # embeddings, head, norms stay bf16
    weights = linear * (NF4_DQ_BYTES + BNB_TRAINING_BYTES_PER_PARAM) + rest * 2
    assert memory.weights == pytest.approx(weights / GIB)
    adapters = 16 * layers * ((h + h) + (h + kv) + (h + kv) + (h + h) + 3 * (h + inter))
    assert memory.trainable_params == adapters == 41_943_040
    # PEFT's default: fp32 adapters, fp32 grads, two fp32 AdamW moments = 16 bytes each.
    assert memory.adapters == pytest.approx(adapters * 16 / GIB)
    assert memory.gradients == memory.optimizer == 0
    assert memory.peak == pytest.approx(memory.reserved + CUDA_CONTEXT_GIB)
    assert 9.5 < memory.peak < 12.5


def test_zero3_breakdown_by_hand():
    """Llama-2-70B pure-bf16 full fine-tune over 8 GPUs with ZeRO-3: each GPU holds an
    eighth of the states, plus the layer being computed and the one being prefetched."""
    model = get_model("Llama-2-70B")
    one = FitQuery(model=model.id, method=Method.FULL, precision=Precision.BF16)
    eight = replace(one, gpus=8, shard=Sharding.ZERO3)
    single, sharded = estimate_memory(one, model), estimate_memory(eight, model)
    layer_weights = 2 * model.total_params / model.layers / GIB
    assert sharded.weights == pytest.approx(single.weights / 8 + 2 * layer_weights)
    assert sharded.gradients == pytest.approx(single.gradients / 8)
    assert sharded.optimizer == pytest.approx(single.optimizer / 8)
    assert sharded.activations == pytest.approx(single.activations)


@pytest.mark.parametrize(
    ("model_id", "rank", "targets", "published"),
    [
        ("Llama-2-7B", 8, Targets.QV, 4_194_304),  # litgpt resource table
        ("Llama-2-13B", 8, Targets.QV, 6_553_600),  # litgpt resource table
        ("Llama-3.2-3B", 32, Targets.QV, 9_175_040),  # PEFT MetaMathQA
    ],
)
def test_lora_counts_match_published_trainable_params(model_id, rank, targets, published):
    assert lora_params(get_model(model_id), rank, targets) == published


def test_mixed_precision_full_fine_tune_is_the_18_bytes_rule():
    query = FitQuery(model="Llama-2-7B", method=Method.FULL, precision=Precision.MIXED)
    memory = estimate_memory(query, LLAMA2_7B)
    states = memory.weights + memory.gradients + memory.optimizer
    assert states * GIB / LLAMA2_7B.total_params == pytest.approx(18.0)


def test_moe_counts_every_expert_for_weights():
    mixtral = get_model("Mixtral-8x7B-v0.1")
    memory = estimate_memory(FitQuery(model=mixtral.id, method=Method.LORA), mixtral)
    assert memory.weights == pytest.approx(2 * mixtral.total_params / GIB)
    assert mixtral.active_params < mixtral.total_params / 3


def test_fused_loss_removes_the_logits_and_unsloth_offload_the_checkpoints():
    base = FitQuery(model="Llama-3.1-8B", method=Method.QLORA, ctx=16384)
    lean = replace(
        base, stack=Stack.UNSLOTH, loss=Loss.FUSED, grad_checkpointing=Checkpointing.UNSLOTH
    )
    assert estimate_memory(lean, LLAMA31_8B).activations < 0.2 * (
        estimate_memory(base, LLAMA31_8B).activations
    )


MODELS = [m for m in load_models() if not m.encoder_decoder]
queries = st.builds(
    FitQuery,
    model=st.just("x"),
    method=st.sampled_from(list(Method)),
    ctx=st.integers(16, 65536),
    micro_batch=st.integers(1, 16),
    lora_rank=st.integers(1, 256),
    targets=st.sampled_from(list(Targets)),
    optimizer=st.sampled_from(list(Optimizer)),
    precision=st.sampled_from(list(Precision)),
    grad_checkpointing=st.sampled_from(list(Checkpointing)),
    stack=st.sampled_from(list(Stack)),
)


@settings(max_examples=150, deadline=None)
@given(query=queries, model=st.sampled_from(MODELS), more=st.integers(1, 4096))
def test_more_ctx_batch_or_rank_never_needs_less(query, model, more):
    peak = estimate_memory(query, model).peak
    for bigger in (
        replace(query, ctx=query.ctx + more),
        replace(query, micro_batch=query.micro_batch + 1),
        replace(query, lora_rank=query.lora_rank + more),
    ):
        assert estimate_memory(bigger, model).peak >= peak


@settings(max_examples=150, deadline=None)
@given(query=queries, model=st.sampled_from(MODELS), gpus=st.integers(1, 64))
def test_more_gpus_with_zero3_never_needs_more_per_gpu(query, model, gpus):
    fewer = replace(query, gpus=gpus, shard=Sharding.ZERO3)
    more = replace(fewer, gpus=gpus + 1)
    assert estimate_memory(more, model).peak <= estimate_memory(fewer, model).peak


@settings(max_examples=150, deadline=None)
@given(query=queries, model=st.sampled_from(MODELS))
def test_qlora_weights_are_always_smaller_than_lora(query, model):
    lora = estimate_memory(replace(query, method=Method.LORA), model)
    qlora = estimate_memory(replace(query, method=Method.QLORA), model)
    assert qlora.weights < lora.weights
