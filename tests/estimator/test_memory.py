"""The memory model: three breakdowns checked by hand, published adapter counts, properties."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from estimator.memory import (
    CALIBRATION,
    DIRECT_LOSS_COPIES,
    EAGER_BACKWARD_EXTRA_BYTES,
    EAGER_SCORE_BYTES,
    GPTQ_BYTES,
    NCCL_BUFFERS_GIB,
    NF4_BYTES,
    NF4_DQ_BYTES,
    adapted_linear_params,
    estimate_memory,
    linear_params,
    lora_params,
    memory_parts,
    quant_stats_bytes,
)
from estimator.models import get_model, load_models
from estimator.query import (
    Attention,
    Checkpointing,
    FitQuery,
    Loss,
    Method,
    Offload,
    Optimizer,
    Precision,
    Quant,
    Sharding,
    Stack,
    Targets,
)
from estimator.specs import GIB

LLAMA2_7B = get_model("Llama-2-7B")
LLAMA31_8B = get_model("Llama-3.1-8B")
QWEN25_7B = get_model("Qwen2.5-7B")
FACTOR = CALIBRATION.activation_factor


def test_full_bf16_breakdown_by_hand():
    """Llama-2-7B, pure bf16 AdamW, no checkpointing, 1 × 512 tokens, HF stack."""
    query = FitQuery(
        model="Llama-2-7B",
        method=Method.FULL,
        ctx=512,
        precision=Precision.BF16,
        optimizer=Optimizer.ADAMW,
        grad_checkpointing=Checkpointing.OFF,
    )
    parts = memory_parts(query, LLAMA2_7B)
    p = 6_738_415_616
    assert parts.weights == pytest.approx(2 * p)  # 12.55 GiB
    assert parts.gradients == pytest.approx(2 * p)  # bf16 gradients
    assert parts.optimizer == pytest.approx(4 * p)  # two bf16 moments
    assert parts.adapters == 0
    h, inter = 4096, 11008
    # Per token per layer: two HF RMSNorms save an fp32 and a bf16 copy (6 bytes x h each);
    # q, k, v and the attention output (4h, MHA); gate, up and act(gate) (3I); the inputs of
    # q/k/v, of gate/up and of down (h + h + I) - all bf16.
    per_token_layer = 2 * 6 * h + 2 * (4 * h + 3 * inter + 2 * h + inter)
    assert per_token_layer == 186_368
    assert parts.layer_activations == pytest.approx(per_token_layer * 32 * 512)
    logits = 12.0 * 512 * 32_000  # transformers' fp32 loss over a 32k vocabulary
    assert parts.logits == pytest.approx(logits)
    # HF's default AdamW is torch's foreach one: its step holds one more moment-sized tensor
    # (2p bytes), which outweighs these 512 tokens' activations, so the step is the peak.
    memory = estimate_memory(query, LLAMA2_7B)
    assert parts.layer_activations * FACTOR + parts.logits < 2 * p
    assert memory.activations == 0
    assert memory.optimizer == pytest.approx((4 * p + 2 * p) / GIB)
    assert memory.weights + memory.gradients == pytest.approx(4 * p / GIB)
    assert memory.context == CALIBRATION.cuda_context_gib


def test_hf_qlora_breakdown_by_hand_includes_the_kbit_upcast():
    """Llama-3.1-8B QLoRA r16 on all linears, HF stack, gc on, 1 × 2048 tokens."""
    query = FitQuery(model="Llama-3.1-8B", method=Method.QLORA, ctx=2048, lora_rank=16)
    memory = estimate_memory(query, LLAMA31_8B)
    h, kv, inter, layers, vocab = 4096, 1024, 14336, 32, 128_256
    linear = layers * (h * (2 * h + 2 * kv) + 3 * h * inter)  # 6 979 321 856
    assert linear_params(LLAMA31_8B) == linear
    rest = 8_030_261_248 - linear  # embeddings, head and norms: fp32 after k-bit preparation
    assert memory.weights == pytest.approx((linear * NF4_DQ_BYTES + rest * 4) / GIB)
    adapters = 16 * layers * ((h + h) + (h + kv) + (h + kv) + (h + h) + 3 * (h + inter))
    assert memory.trainable_params == adapters == 41_943_040
    # PEFT's default: fp32 adapters, fp32 grads, two fp32 AdamW moments = 16 bytes each.
    assert memory.adapters == pytest.approx(adapters * 16 / GIB)
    assert memory.gradients == memory.optimizer == 0
    parts = memory_parts(query, LLAMA31_8B)
    # The checkpoints are fp32 (the residual stream follows the fp32 embeddings): 4 bytes x h
    # per token and layer, plus one layer being recomputed.
    checkpoints = 2048 * h * 4 * layers
    assert parts.layer_activations > checkpoints
    # Loss: 12 bytes per token and vocab entry, plus one bf16 cast of the fp32 head.
    assert parts.logits == pytest.approx(12 * 2048 * vocab + 2 * vocab * h)
    assert memory.peak == pytest.approx(memory.reserved + CALIBRATION.cuda_context_gib)


def test_kbit_upcast_costs_twice_the_embeddings_with_a_big_untied_vocabulary():
    hf = FitQuery(model=QWEN25_7B.id, method=Method.QLORA, ctx=512)
    axolotl = replace(hf, stack=Stack.AXOLOTL)  # same kernels, 16-bit embeddings
    extra = estimate_memory(hf, QWEN25_7B).weights - estimate_memory(axolotl, QWEN25_7B).weights
    embeddings = 2 * 152_064 * 3584  # untied: embed_tokens and lm_head
    assert extra == pytest.approx(2 * embeddings / GIB, rel=0.02)  # +2 bytes each, ~2 GiB
    assert estimate_memory(hf, QWEN25_7B).peak > 1.3 * estimate_memory(axolotl, QWEN25_7B).peak


def test_a_gptq_checkpoint_keeps_its_16_bit_rest_and_saves_each_layers_dequantised_weight():
    """PEFT's k-bit preparation leaves a GPTQ model's embeddings and norms in 16 bits, and
    auto-gptq's matmul on the dequantised fp16 weight saves that weight for backward."""
    nf4 = FitQuery(model=QWEN25_7B.id, method=Method.QLORA, ctx=1024)
    gptq = replace(nf4, quant=Quant.GPTQ)
    linear = linear_params(QWEN25_7B)
    rest = QWEN25_7B.total_params - linear
    weights = estimate_memory(gptq, QWEN25_7B).weights
    assert weights == pytest.approx((linear * GPTQ_BYTES + rest * 2) / GIB)
    assert 0.51 < GPTQ_BYTES < 0.53  # int4 + an fp16 scale and a 4-bit zero per 128 rows
    # Without checkpointing every layer keeps its linears' dequantised fp16 weights: beside
    # an NF4 run of the same 16-bit stream (axolotl: no fp32 upcast), exactly that much more.
    off = replace(gptq, grad_checkpointing=Checkpointing.OFF, stack=Stack.AXOLOTL)
    nf4_off = replace(off, quant=Quant.NF4)
    extra = (
        memory_parts(off, QWEN25_7B).layer_activations
        - memory_parts(nf4_off, QWEN25_7B).layer_activations
    )
    assert extra == pytest.approx(2.0 * linear)


def test_modules_to_save_trains_whole_copies_of_the_embedding_and_the_head():
    """PEFT's modules_to_save keeps each original module and trains a 16-bit copy of it: the
    copy, its gradient and two AdamW moments in its dtype (8 bytes a parameter), and the
    foreach step's temporary."""
    lora = FitQuery(model=QWEN25_7B.id, method=Method.LORA, ctx=512, optimizer=Optimizer.ADAMW)
    saved = replace(lora, train_embeddings=True)
    copies = 2 * QWEN25_7B.vocab * QWEN25_7B.hidden
    plain, wide = memory_parts(lora, QWEN25_7B), memory_parts(saved, QWEN25_7B)
    assert wide.trainable_params - plain.trainable_params == copies
    assert wide.weights - plain.weights == pytest.approx(copies * 2)
    assert wide.gradients - plain.gradients == pytest.approx(copies * 2)
    assert wide.optimizer - plain.optimizer == pytest.approx(copies * 4)
    assert wide.step_temporaries - plain.step_temporaries == pytest.approx(copies * 2)
    # No LoRA on lm_head: the logits are the same.
    assert memory_parts(saved, QWEN25_7B).logits == memory_parts(lora, QWEN25_7B).logits
    head = replace(lora, head_adapter=True)
    assert memory_parts(head, QWEN25_7B).logits > memory_parts(lora, QWEN25_7B).logits


def test_eager_attention_backward_holds_more_than_it_saved_for_one_layer():
    """The running layer's eager backward holds its saved fp32 softmax and 16-bit probabilities
    plus the probabilities' gradient, its fp32 cast and the scores' gradient; once, whatever
    the depth."""
    eager = FitQuery(model=LLAMA2_7B.id, method=Method.LORA, ctx=2048, attention=Attention.EAGER)
    flash = replace(eager, attention=Attention.FLASH)
    scores = LLAMA2_7B.heads * 2048 * 2048
    gap_on = (
        memory_parts(eager, LLAMA2_7B).layer_activations
        - memory_parts(flash, LLAMA2_7B).layer_activations
    )
    assert gap_on == pytest.approx(scores * (EAGER_SCORE_BYTES + EAGER_BACKWARD_EXTRA_BYTES))
    off = replace(eager, grad_checkpointing=Checkpointing.OFF)
    gap_off = (
        memory_parts(off, LLAMA2_7B).layer_activations
        - memory_parts(replace(off, attention=Attention.FLASH), LLAMA2_7B).layer_activations
    )
    layers = LLAMA2_7B.layers
    assert gap_off == pytest.approx(
        scores * (layers * EAGER_SCORE_BYTES + EAGER_BACKWARD_EXTRA_BYTES)
    )


def test_zero2_holds_two_gradient_buckets_and_a_held_output_keeps_its_logits():
    lora = FitQuery(model=LLAMA2_7B.id, method=Method.LORA, ctx=1024)
    zero2 = replace(lora, shard=Sharding.ZERO2)
    h = LLAMA2_7B.hidden
    # HF's "auto" bucket is hidden x hidden: two 16-bit buffers with overlap_comm, one GPU too.
    extra = memory_parts(zero2, LLAMA2_7B).buffers - memory_parts(lora, LLAMA2_7B).buffers
    assert extra == pytest.approx(2 * h * h * 2)
    stated = replace(zero2, reduce_bucket=200_000_000)
    assert memory_parts(stated, LLAMA2_7B).buffers == pytest.approx(2 * 2e8 * 2)
    # transformers' loss with the model's output still held: its 16-bit logits stay too.
    held = replace(lora, holds_logits=True)
    gap = memory_parts(held, LLAMA2_7B).logits - memory_parts(lora, LLAMA2_7B).logits
    assert gap == pytest.approx(1024 * LLAMA2_7B.vocab * 2)


def test_litgpt_keeps_its_own_head_quantises_it_and_holds_the_previous_bnb_inputs():
    """litgpt stores lm_head apart from tied embeddings; under QLoRA Lightning quantises it
    and each call dequantises it whole (fp16, then bf16); with bitsandbytes before 0.43.2 the
    previous micro-batch's inputs to the quantised linears live through the next forward."""
    tied = get_model("Llama-3.2-3B")
    assert tied.tied_embeddings
    head = tied.vocab * tied.hidden
    lora = FitQuery(
        model=tied.id,
        method=Method.LORA,
        ctx=512,
        micro_batch=2,
        precision=Precision.BF16,
        grad_checkpointing=Checkpointing.OFF,
        stack=Stack.LITGPT,
    )
    assert memory_parts(lora, tied).weights == pytest.approx((tied.total_params + head) * 2.0)
    qlora = replace(lora, method=Method.QLORA, double_quant=False)
    gap = memory_parts(qlora, tied).logits - memory_parts(lora, tied).logits
    assert gap == pytest.approx(4.0 * head)
    old = replace(qlora, old_bitsandbytes=True)
    kept = memory_parts(old, tied).layer_activations - memory_parts(qlora, tied).layer_activations
    inputs = 2 * tied.hidden + tied.q_dim + tied.intermediate
    assert kept == pytest.approx(2 * 512 * tied.layers * 2.0 * inputs)
    # A checkpointed layer's forward runs without gradients: MatMul4Bit keeps nothing.
    checkpointed = replace(old, grad_checkpointing=Checkpointing.ON)
    assert memory_parts(checkpointed, tied).layer_activations == pytest.approx(
        memory_parts(replace(qlora, grad_checkpointing=Checkpointing.ON), tied).layer_activations
    )
    # Transformers' stack keeps the head tied and 16-bit, and frees the previous graph.
    hf = replace(old, stack=Stack.HF, precision=Precision.MIXED)
    assert memory_parts(hf, tied).layer_activations == pytest.approx(
        memory_parts(replace(hf, old_bitsandbytes=False), tied).layer_activations
    )


def test_litgpt_fsdp_lora_accumulates_whole_block_gradients_under_no_sync():
    lora = FitQuery(
        model=LLAMA2_7B.id,
        method=Method.LORA,
        ctx=1304,
        precision=Precision.BF16,
        stack=Stack.LITGPT,
        gpus=2,
        shard=Sharding.FSDP,
    )
    blocks = LLAMA2_7B.total_params - LLAMA2_7B.embedding_params
    accumulating = memory_parts(lora, LLAMA2_7B).gradients
    each_step = memory_parts(replace(lora, holds_gradients=False), LLAMA2_7B).gradients
    assert accumulating - each_step == pytest.approx(blocks * 2.0)
    torchtune = replace(lora, stack=Stack.TORCHTUNE)
    assert memory_parts(torchtune, LLAMA2_7B).gradients < blocks


def test_fp32_frozen_weights_under_autocast_keep_a_16_bit_copy_per_layer_for_backward():
    """Lightning's bf16-mixed stores a LoRA run's frozen weights in fp32: each linear's
    autocast cast is saved by its matmul, so without checkpointing the layers hold a 16-bit
    copy of every linear, and the head's cast sits at the loss. fp32 alone casts nothing."""
    fp32 = FitQuery(
        model=LLAMA2_7B.id,
        method=Method.LORA,
        ctx=512,
        precision=Precision.FP32,
        grad_checkpointing=Checkpointing.OFF,
        stack=Stack.LITGPT,
    )
    mixed = replace(fp32, autocast=True)
    gap = (
        memory_parts(mixed, LLAMA2_7B).layer_activations
        - memory_parts(fp32, LLAMA2_7B).layer_activations
    )
    assert gap == pytest.approx(2.0 * linear_params(LLAMA2_7B))
    head = memory_parts(mixed, LLAMA2_7B).logits - memory_parts(fp32, LLAMA2_7B).logits
    assert head == pytest.approx(2.0 * LLAMA2_7B.vocab * LLAMA2_7B.hidden)


def test_accelerate_upcasts_fsdp_lora_flat_params_only_under_mixed_precision():
    """accelerate's prepare_model casts a LoRA layer's 16-bit flat parameter to fp32 only
    `if self.mixed_precision != "no"`: a model trained in bf16 without --bf16 keeps it."""
    amp = FitQuery(
        model=LLAMA2_7B.id, method=Method.LORA, gpus=2, shard=Sharding.FSDP, targets=Targets.ATTN
    )
    plain = replace(amp, autocast=False)
    extra = estimate_memory(amp, LLAMA2_7B).weights - estimate_memory(plain, LLAMA2_7B).weights
    blocks = LLAMA2_7B.total_params - LLAMA2_7B.embedding_params
    assert extra == pytest.approx(blocks * 2 / 2 / GIB, rel=0.02)  # +2 bytes a shard parameter


def test_torchtune_quantises_only_the_adapted_linears():
    query = FitQuery(
        model=LLAMA31_8B.id, method=Method.QLORA, targets=Targets.QV, stack=Stack.TORCHTUNE
    )
    quantised = adapted_linear_params(LLAMA31_8B, Targets.QV)
    rest = LLAMA31_8B.total_params - quantised
    memory = estimate_memory(query, LLAMA31_8B)
    assert memory.weights == pytest.approx((quantised * NF4_DQ_BYTES + rest * 2) / GIB)
    # pytorch/torchtune#1398: q,v-only QLoRA of Llama-3.1-8B needed far more than all-linear.
    all_linear = estimate_memory(replace(query, targets=Targets.ALL), LLAMA31_8B)
    assert memory.weights > 1.8 * all_linear.weights


def test_unsloth_needs_less_than_hf_for_the_same_qlora_run():
    hf = FitQuery(model=LLAMA31_8B.id, method=Method.QLORA, ctx=8192, micro_batch=2)
    unsloth = replace(hf, stack=Stack.UNSLOTH, grad_checkpointing=Checkpointing.UNSLOTH)
    assert estimate_memory(unsloth, LLAMA31_8B).peak < 0.6 * estimate_memory(hf, LLAMA31_8B).peak
    # Its adaptive fused loss takes more when the card has room, and less on a fuller card.
    assert memory_parts(unsloth, LLAMA31_8B).loss_whole > 0
    assert memory_parts(hf, LLAMA31_8B).loss_whole == 0


def test_unsloths_adaptive_loss_is_sized_on_the_card():
    """unsloth_zoo sizes each chunk's fp32 logits to half the VRAM free at the first loss
    call (cached), capped at 4 GiB: a batch whose fp32 logits fit the target runs as one
    chunk (fp32 logits and their gradient at once), a longer one in chunks that each fit it;
    the run's worst batch is the longest, or the one that just fills the target."""
    query = FitQuery(
        model=LLAMA31_8B.id,
        method=Method.QLORA,
        ctx=2048,
        micro_batch=2,
        stack=Stack.UNSLOTH,
        grad_checkpointing=Checkpointing.UNSLOTH,
    )
    fp32_logits = 2 * 2048 * 128_256 * 4 / GIB  # 1.96 GiB: under the 4 GiB cap
    minimum = fp32_logits / 8  # the chunks' 16-bit inputs that stay: 0.5 byte a value
    roomy = estimate_memory(query, LLAMA31_8B)  # no card: as on one with room
    assert roomy.loss_room == pytest.approx(2 * fp32_logits - minimum)
    on_t4 = estimate_memory(query, LLAMA31_8B, card_gib=14.74)
    assert on_t4.loss_room == pytest.approx(roomy.loss_room)  # ~8 GiB free: still one chunk
    # At the first call only the weights and the adapters' parameters are held (no optimizer
    # state, no gradients yet, and the first batch may be short): 2 GiB free there is a
    # 1 GiB target, so chunks of 1 GiB of fp32 logits, 2 GiB of working memory.
    first = roomy.weights + roomy.adapters - roomy.adapter_gradients - roomy.adapter_optimizer
    card = first * (1 + CALIBRATION.allocator_slack) + CALIBRATION.cuda_context_gib + 2.0
    small = estimate_memory(query, LLAMA31_8B, card_gib=card)
    assert small.loss_room == pytest.approx(2 * 1.0 - minimum)
    # The target does not depend on the longest batch, so a longer cap never sizes less: a
    # target taken at the cap's own activations did (a longer cap, less free, smaller chunks).
    peaks = [
        estimate_memory(replace(query, ctx=ctx), LLAMA31_8B, card_gib=card).peak
        for ctx in range(1024, 16385, 1024)
    ]
    assert peaks == sorted(peaks)
    longer = replace(query, ctx=16384)  # 15.7 GiB of fp32 logits: chunks of at most 4 GiB
    assert estimate_memory(longer, LLAMA31_8B).loss_room == pytest.approx(2 * 4.0 - 8 * minimum)


def test_batch_times_ctx_terms_are_apart_from_the_eager_ctx_squared_term():
    flash = FitQuery(model=LLAMA2_7B.id, method=Method.LORA, ctx=8192, micro_batch=1)
    flash_b4 = replace(flash, ctx=2048, micro_batch=4)
    # Same tokens per micro-batch: with flash attention the same activations.
    assert estimate_memory(flash, LLAMA2_7B).activations == pytest.approx(
        estimate_memory(flash_b4, LLAMA2_7B).activations
    )
    eager, eager_b4 = (replace(q, attention=Attention.EAGER) for q in (flash, flash_b4))
    long = memory_parts(eager, LLAMA2_7B).layer_activations
    short = memory_parts(eager_b4, LLAMA2_7B).layer_activations
    # One layer's scores are kept at a time (gc on), and its backward's working memory beside
    # them: b x heads x s² x bytes.
    per_score = EAGER_SCORE_BYTES + EAGER_BACKWARD_EXTRA_BYTES
    scores_long = 1 * 32 * 8192 * 8192 * per_score
    scores_short = 4 * 32 * 2048 * 2048 * per_score
    assert long - short == pytest.approx(scores_long - scores_short)


def test_selective_checkpointing_sits_between_on_and_off():
    base = FitQuery(model=LLAMA2_7B.id, method=Method.LORA, ctx=4096, stack=Stack.TORCHTUNE)
    peaks = [
        estimate_memory(replace(base, grad_checkpointing=gc), LLAMA2_7B).peak
        for gc in (Checkpointing.ON, Checkpointing.SELECTIVE, Checkpointing.OFF)
    ]
    assert peaks[0] < peaks[1] < peaks[2]


def test_ddp_keeps_a_bucket_copy_of_the_gradients_and_nccl_buffers():
    one = FitQuery(model=LLAMA2_7B.id, method=Method.FULL, precision=Precision.BF16)
    ddp = replace(one, gpus=2, shard=Sharding.DDP)
    extra = estimate_memory(ddp, LLAMA2_7B).peak - estimate_memory(one, LLAMA2_7B).peak
    grads = 2 * LLAMA2_7B.total_params / GIB
    assert extra == pytest.approx((grads + NCCL_BUFFERS_GIB) * (1 + CALIBRATION.allocator_slack))


def test_offloading_the_optimizer_then_the_params_frees_the_gpu_step_by_step():
    base = FitQuery(
        model=LLAMA2_7B.id,
        method=Method.FULL,
        precision=Precision.MIXED,
        gpus=4,
        shard=Sharding.ZERO3,
    )
    peaks = [
        estimate_memory(replace(base, offload=offload), LLAMA2_7B).peak
        for offload in (Offload.NONE, Offload.OPTIMIZER, Offload.PARAMS)
    ]
    assert peaks[0] > peaks[1] > peaks[2]
    params = estimate_memory(replace(base, offload=Offload.PARAMS), LLAMA2_7B)
    assert params.optimizer == 0
    # What stays on the GPU: the gathered layers and the whole root unit (embeddings and
    # lm_head, kept from forward to backward), and their gradients until the reduce-scatter.
    layer = 2 * (LLAMA2_7B.total_params - LLAMA2_7B.embedding_params) / LLAMA2_7B.layers / GIB
    root = 2 * LLAMA2_7B.embedding_params / GIB
    assert params.weights == pytest.approx(2 * layer + root)
    assert params.gradients == pytest.approx(2 * (layer + root))  # fp32 grads of bf16 weights


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
    parts = memory_parts(query, LLAMA2_7B)
    # In the forward pass: fp32 masters, bf16 autocast copies, fp32 gradients, two moments.
    states = parts.weights + parts.gradients + parts.optimizer
    assert states / LLAMA2_7B.total_params == pytest.approx(18.0)
    # At the (foreach) AdamW step the autocast copies are gone and one fp32 temporary is
    # there: 4 + 4 + 8 + 4 bytes, the peak with 2048 checkpointed tokens.
    memory = estimate_memory(query, LLAMA2_7B)
    states = memory.weights + memory.gradients + memory.optimizer
    assert states * GIB / LLAMA2_7B.total_params == pytest.approx(20.0)
    assert memory.activations == 0


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


def test_a_direct_loss_keeps_three_logits_copies_in_the_logits_dtype():
    lora = FitQuery(model="Llama-3.1-8B", method=Method.LORA, ctx=8192, loss=Loss.DIRECT)
    logits = 8192 * LLAMA31_8B.vocab
    assert memory_parts(lora, LLAMA31_8B).logits == pytest.approx(DIRECT_LOSS_COPIES * 2 * logits)
    wide = replace(lora, precision=Precision.FP32)
    assert memory_parts(wide, LLAMA31_8B).logits == pytest.approx(DIRECT_LOSS_COPIES * 4 * logits)
    naive = replace(lora, loss=Loss.NAIVE)  # transformers' loss upcasts to fp32: 12 bytes
    assert memory_parts(naive, LLAMA31_8B).logits > memory_parts(lora, LLAMA31_8B).logits


def test_soft_capped_logits_keep_tanh_output_where_the_model_code_caps_them():
    """Gemma-2's final_logit_softcapping: transformers and litgpt cap the full logits in the
    model (tanh keeps its output, one more logits-sized tensor); a fused loss caps inside."""
    gemma2 = get_model("Gemma-2-9B")
    assert gemma2.logit_softcap
    assert not get_model("Gemma-7B").logit_softcap  # Gemma 1 has no soft-capping
    hf = FitQuery(model=gemma2.id, method=Method.LORA, ctx=4096, loss=Loss.DIRECT)
    uncapped = replace(gemma2, logit_softcap=False)
    extra = memory_parts(hf, gemma2).logits - memory_parts(hf, uncapped).logits
    assert extra == pytest.approx(2 * 4096 * gemma2.vocab)  # bf16 logits
    litgpt = replace(hf, stack=Stack.LITGPT, loss=None)
    assert memory_parts(litgpt, gemma2).logits > memory_parts(litgpt, uncapped).logits
    fused = replace(hf, loss=Loss.FUSED)
    assert memory_parts(fused, gemma2).logits == memory_parts(fused, uncapped).logits
    unsloth = replace(hf, stack=Stack.UNSLOTH, loss=None)
    assert memory_parts(unsloth, gemma2).logits == memory_parts(unsloth, uncapped).logits


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
@given(query=queries, model=st.sampled_from(MODELS), gpus=st.integers(2, 64))
# Found: litgpt quantises its separate head, and the root unit once counted it at 32 bits.
@example(
    query=FitQuery(
        model="x",
        method=Method.QLORA,
        ctx=16,
        lora_rank=1,
        targets=Targets.QV,
        precision=Precision.FP32,
        grad_checkpointing=Checkpointing.OFF,
        stack=Stack.LITGPT,
    ),
    model=get_model("Llama-3.2-1B"),
    gpus=2,
)
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


def test_update_in_backward_keeps_a_tied_heads_gradient_through_backward():
    """Stepping each parameter inside backward leaves one block's gradient at a time, but a
    head tied to the embeddings waits in autograd's input buffer for the embedding's gradient,
    the last of the backward: a tied model holds both; an untied one the larger of the two."""
    tied = get_model("Llama-3.2-3B")
    query = FitQuery(
        model="Llama-3.2-3B",
        method=Method.FULL,
        ctx=2048,
        precision=Precision.BF16,
        optimizer=Optimizer.ADAMW,
        optimizer_in_backward=True,
    )
    block = (tied.total_params - tied.vocab * tied.hidden) / tied.layers
    head = tied.vocab * tied.hidden
    assert memory_parts(query, tied).gradients == pytest.approx(2 * (block + head))
    untied = replace(query, model="Llama-2-7B")
    block7 = (LLAMA2_7B.total_params - 2 * LLAMA2_7B.vocab * LLAMA2_7B.hidden) / 32
    assert block7 > LLAMA2_7B.vocab * LLAMA2_7B.hidden  # a Llama-2 block outweighs its head
    assert memory_parts(untied, LLAMA2_7B).gradients == pytest.approx(2 * block7)
    # Without the update in backward the whole model's gradient is there.
    whole = memory_parts(replace(query, optimizer_in_backward=False), tied).gradients
    assert whole == pytest.approx(2 * tied.total_params)


def test_sharded_qlora_keeps_the_nf4_statistics_whole_on_every_gpu():
    """FSDP shards and offloads parameters only; bitsandbytes keeps each Linear4bit's absmax in
    a QuantState on the module, so every GPU holds all of it, offloaded or not."""
    llama70 = get_model("Llama-2-70B")
    query = FitQuery(
        model="Llama-2-70B",
        method=Method.QLORA,
        ctx=2048,
        micro_batch=2,
        lora_rank=8,
        targets=Targets.ALL,
        gpus=2,
        shard=Sharding.FSDP,
        offload=Offload.PARAMS,
        stack=Stack.AXOLOTL,
    )
    stats = quant_stats_bytes(query, llama70)
    # Double quantisation: an 8-bit absmax per 64 weights and an fp32 scale per 256 blocks.
    assert stats == pytest.approx(linear_params(llama70) * (NF4_DQ_BYTES - 0.5))
    assert 0.95 < stats / GIB < 1.05  # about 1 GiB for Llama-2-70B
    # Offloaded, what stays on the GPU does not depend on how many share the shards, and the
    # 32-bit absmax without double quantisation stays whole too: 4/64 bytes a weight.
    on_gpu = memory_parts(query, llama70).weights
    assert memory_parts(replace(query, gpus=8), llama70).weights == pytest.approx(on_gpu)
    single = memory_parts(replace(query, double_quant=False), llama70).weights
    assert single - on_gpu == pytest.approx(linear_params(llama70) * (NF4_BYTES - NF4_DQ_BYTES))
    # Sharded without offload: the packed weights split, the statistics do not (embeddings and
    # lm_head, the root unit, are whole on every GPU either way).
    kept = replace(query, offload=Offload.NONE)
    two = memory_parts(kept, llama70).weights
    four = memory_parts(replace(kept, gpus=4), llama70).weights
    stored = memory_parts(replace(kept, gpus=1, shard=Sharding.DDP), llama70).weights
    packed = stored - stats - llama70.embedding_params * 2.0
    assert two - four == pytest.approx(packed / 2 - packed / 4)
    assert quant_stats_bytes(replace(query, method=Method.LORA), llama70) == 0.0


def test_per_module_checkpointing_keeps_four_inputs_a_block_and_recomputes_one_module():
    """NeMo Automodel wraps each block's two norms, attention and MLP in checkpoint_wrapper:
    every block keeps the residual stream twice and the normed x twice, and backward
    recomputes the largest module, the gated MLP, beside them."""
    llama1b = get_model("Llama-3.2-1B")
    query = FitQuery(
        model="Llama-3.2-1B",
        method=Method.FULL,
        ctx=2048,
        micro_batch=8,
        precision=Precision.BF16,
        optimizer=Optimizer.ADAMW,
        grad_checkpointing=Checkpointing.SUBMODULE,
        attention=Attention.FLASH,
    )
    h, inter, tokens = llama1b.hidden, llama1b.intermediate, 8 * 2048
    kept = 2 * h * (2 + 2)  # two residual inputs and two normed inputs, 16-bit
    mlp = 2 * 3 * inter + 2 * inter  # gate, up, act(gate) and down's input; its own input kept
    expected = tokens * (llama1b.layers * kept + mlp)
    assert memory_parts(query, llama1b).layer_activations == pytest.approx(expected)
    whole_layer = memory_parts(replace(query, grad_checkpointing=Checkpointing.ON), llama1b)
    assert whole_layer.layer_activations < expected
