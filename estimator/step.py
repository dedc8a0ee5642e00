"""What one GPU does in one training step, counted from the code that runs it.

A micro-batch of `tokens` on one GPU is: matmul FLOPs (forward, the input gradient, the weight
gradient of what is trained, the forward again under checkpointing), attention FLOPs over the
span each token attends to, bytes moved by the work between the matmuls (norms, rotary,
activations, residual adds, the loss, LoRA's side path, bitsandbytes' dequantisation, autocast's
weight casts), kernels the host launches, and bytes the cards exchange. Once per optimizer step
(every `grad_accum` micro-batches) comes the optimizer's update, a pass over its state bounded
by memory bandwidth. `estimator.timing` turns these into seconds on a card; nothing here knows
a card or a measured throughput.

The byte and kernel counts are read from transformers' Llama code (`modeling_llama.py`,
LlamaRMSNorm, apply_rotary_pos_emb, LlamaMLP, LlamaDecoderLayer; huggingface/transformers
@00349ae8), PEFT's `lora.Linear.forward` (huggingface/peft src/peft/tuners/lora/layer.py
@0a179c1e86), transformers' ForCausalLMLoss (loss_utils.py) and torch's AdamW
(`_multi_tensor_adamw` and `_fused_adamw`, pytorch/pytorch torch/optim/adamw.py @v2.4.0); each
constant below says what it counts. A backward pass moves about twice what its forward moved:
each elementwise op's gradient reads the incoming gradient and what the forward saved and
writes one gradient (the rule behind the 6N = 2N + 4N FLOP count, EleutherAI's "Transformer
Math 101", applied to bytes).
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.memory import adapted_linear_params, estimate_memory, linear_params, lora_params
from estimator.offload import base_bytes, step_seconds, stream_seconds, trained_width
from estimator.optimizers import Width, state_of
from estimator.optimizers import bytes_per_param as optimizer_bytes
from estimator.query import (
    Attention,
    Checkpointing,
    FitQuery,
    Loss,
    Method,
    Offload,
    Packing,
    Precision,
    Sharding,
    Stack,
    Targets,
)
from estimator.specs import GIB, MlpKind, ModelSpec
from estimator.stacks import profile

# Forward passes recomputed in backward, as a share of one forward: every layer under full
# checkpointing (and Unsloth's offloaded checkpoints, and every module under per-module
# checkpointing), every other layer under torchtune's
# selective mode, about half the ops under torchtitan's op-level policy (it keeps every other
# matmul output).
RECOMPUTE: dict[Checkpointing, float] = {
    Checkpointing.OFF: 0.0,
    Checkpointing.ON: 1.0,
    Checkpointing.UNSLOTH: 1.0,
    Checkpointing.SELECTIVE: 0.5,
    Checkpointing.SELECTIVE_OP: 0.5,
    Checkpointing.SUBMODULE: 1.0,
}
# A backward pass of elementwise work, in forward passes (see the module's docstring).
BACKWARD_PASSES = 2.0

# Forward bytes per token of one layer's elementwise work, unfused (transformers' eager code):
# LlamaRMSNorm casts to fp32, squares, takes the mean, scales and casts back before the weight
# multiply: 36 bytes per hidden unit, twice a layer.
NORM_BYTES = 36.0
# apply_rotary_pos_emb: q*cos, rotate_half's neg and cat, *sin and the add: 20 bytes an element
# of q and of k.
ROTARY_BYTES = 20.0
# Two residual adds (read two, write one 16-bit tensor), the attention output made contiguous
# (4 bytes), and repeat_kv's copy of k and v up to the query heads under GQA (4 a q element).
RESIDUAL_BYTES = 12.0
CONTIGUOUS_BYTES = 4.0
REPEAT_KV_BYTES = 4.0
# act_fn(gate) * up: 10 bytes per intermediate unit (SiLU reads and writes, the product reads
# two and writes one); a plain GELU MLP's activation 4.
GATED_MLP_BYTES = 10.0
PLAIN_MLP_BYTES = 4.0
# Fused kernels (torch.compile, Unsloth, Liger) read and write each tensor once: a norm 8
# bytes a hidden unit, rotary 4 an element, SwiGLU 6 an intermediate unit.
FUSED_NORM_BYTES = 8.0
FUSED_ROTARY_BYTES = 4.0
FUSED_GATED_MLP_BYTES = 6.0

# Bytes per token and vocabulary entry of the loss after lm_head, forward and backward.
# transformers' ForCausalLMLoss: the fp32 upcast (2 + 4), log-softmax (4 + 4), its backward
# (4 + 4 + 4), the cast back (4 + 2), the shifted copy (4 + 4) and its gradient: about 40.
# A chunked loss (torchtune, litgpt) upcasts chunk by chunk without the shifted copy; a loss
# taken on the 16-bit logits skips the casts; a fused linear-cross-entropy (Liger, Cut
# Cross-Entropy) never writes the logits out at all; Unsloth's own fused loss writes each
# chunk's logits in fp32 and reads them back for the softmax and its gradient.
LOSS_BYTES: dict[Loss, float] = {
    Loss.NAIVE: 40.0,
    Loss.CHUNKED: 32.0,
    Loss.DIRECT: 20.0,
    Loss.FUSED: 8.0,
    Loss.ADAPTIVE: 16.0,
}
# PEFT's lora.Linear on each adapted linear, per token: forward reads x for lora_A (2 bytes an
# input unit) and writes, scales and adds lora_B's output into the result (12 bytes an output
# unit); backward writes and accumulates the input's gradient and re-reads x for lora_A's weight
# gradient (10 an input unit) and scales the output's gradient (6 an output unit). Dropout,
# where the stack's recipes use it, reads and writes x once more each way (4 + 4, and its mask).
LORA_FORWARD_IN, LORA_FORWARD_OUT = 2.0, 12.0
LORA_BACKWARD_IN, LORA_BACKWARD_OUT = 10.0, 6.0
LORA_DROPOUT_BYTES = 10.0
# bitsandbytes dequantises every NF4 weight on each pass: read 0.5 B, write and re-read a
# 16-bit copy (2 + 2 B) - per parameter, per forward, recompute and backward pass.
DEQUANT_BYTES_PER_PARAM_PASS = 4.5
# Autocast casts an fp32 weight to 16 bits before each matmul that uses it (read 4, write 2)
# on every forward and recompute; backward reuses the cast it saved.
CAST_BYTES_PER_PARAM = 6.0
# Eager attention (transformers' eager_attention_forward) materialises the scores: the QK^T
# write, the mask add, softmax in fp32 and the cast back, read again by the PV matmul: about 30
# bytes a score forward, twice that backward.
EAGER_BYTES_PER_SCORE = 30.0

# Kernels the host launches per layer and forward pass in transformers' eager Llama layer:
# two RMSNorms of 8 ops, rotary 14, seven projections, SDPA and its transposes 3, two residual
# adds, the MLP's activation and product 2, plus repeat_kv's 2 under GQA; fused stacks launch
# the seven matmuls, attention and about 8 fused kernels. LoRA adds lora_A, lora_B, the scale
# and the add to each adapted linear (dropout one more), bitsandbytes a dequantisation and a
# quantisation-state kernel to each 4-bit linear, autocast a cast to each fp32 weight, and
# FSDP/ZeRO-3 the gather, its wait, the cast and the free of each layer.
EAGER_LAYER_OPS = 46.0
GQA_OPS = 2.0
FUSED_LAYER_OPS = 16.0
LORA_OPS = 4.0
LORA_DROPOUT_OPS = 1.0
NF4_OPS = 2.0
SHARD_OPS = 6.0
# Embedding, final norm, lm_head and the loss, per forward.
MODEL_OPS = 30.0

# Bytes an optimizer update moves per trained parameter. A fused kernel (torch's `fused=True`,
# which torchtune's configs pass; bitsandbytes' and torchao's optimizers) reads the parameter,
# its gradient and the state and writes the parameter and the state once: 3 parameter widths
# and twice the state (estimator.optimizers, what each optimizer keeps). torch's foreach path
# (HF Trainer's "adamw_torch") makes more passes: for AdamW the weight decay and addcdiv read
# and write p (4), lerp and addcmul read g (3), lerp, mul, addcmul, sqrt and addcdiv pass over
# the two moments (8) and sqrt's temporary is written, divided, shifted by eps and read (6):
# 21 parameter widths, 7 over p and g and 7 for each state tensor. Gradient clipping
# (transformers' max_grad_norm 1.0) reads the gradients for the norm and scales them: 3 more.
FUSED_PASSES = (3.0, 2.0)  # (parameter widths, state passes)
FOREACH_PASSES = (7.0, 7.0)
CLIP_PASSES = 3.0
# Stacks that clip gradients by default (transformers' Trainer and the trainers built on it);
# torchtune and litgpt recipes do not.
_CLIPS = frozenset({Stack.HF, Stack.AXOLOTL, Stack.SWIFT, Stack.LLAMAFACTORY, Stack.UNSLOTH})
# transformers' own modeling code (eager rotary, norms, loss); the others run their own.
_HF_CODE = frozenset({Stack.HF, Stack.AXOLOTL, Stack.SWIFT, Stack.LLAMAFACTORY})


@dataclass(frozen=True)
class StepWork:
    """One GPU's work for one micro-batch, and its share of the optimizer step."""

    tokens: float  # tokens the micro-batch holds on this GPU
    matmul_flops: float
    weight_bytes: float  # the weights the matmuls read: their floor when tokens are few
    attention_flops: float
    memory_bytes: float  # elementwise work, loss, LoRA's path, dequantisation, casts
    host_ops: float  # kernels launched
    optimizer_bytes: float  # per optimizer step: this GPU's share of the update
    comm_bytes: float  # per micro-batch: sent by this GPU (FSDP gathers, ZeRO-2 reduction)
    comm_step_bytes: float  # per optimizer step (DDP's all-reduce, ZeRO-2's gather)
    grad_accum: int
    offload_seconds: float  # per micro-batch: parameters streamed from host RAM
    offload_step_seconds: float  # per optimizer step: the update on the server's CPUs
    # bitsandbytes' paged optimizer state (CUDA managed memory) and what the card must hold
    # besides it: where the card is too small for both, the state's overflow lives in host
    # RAM and crosses PCIe every optimizer step (estimator.timing, `paging_seconds`).
    paged_bytes: float
    resident_bytes: float
    flash: bool  # attention through a fused kernel (flash/SDPA), not eager
    adapters: bool  # LoRA or QLoRA: frozen weights, matmuls interleaved with the side path


def sequence(query: FitQuery) -> int:
    """Tokens in one row of a micro-batch: ctx when examples are packed, else one example."""
    if query.packing is not Packing.NONE:
        return query.ctx
    return query.tokens_per_example or query.ctx // 2


def attended(query: FitQuery) -> int:
    """The causal span a token's attention covers: the packed row, or its own example."""
    if query.packing is Packing.PACKED:
        return query.ctx
    return query.tokens_per_example or query.ctx // 2


def micro_batch_tokens(query: FitQuery) -> int:
    """Tokens one GPU takes in one micro-batch: what a per-micro-batch cost is spread over."""
    return max(1, query.micro_batch * sequence(query))


def recompute(query: FitQuery) -> float:
    return RECOMPUTE[query.grad_checkpointing]


def matmul_params(model: ModelSpec) -> int:
    """Parameters a token multiplies through: all but the input embedding (a lookup)."""
    lookup = 0 if model.tied_embeddings else model.vocab * model.hidden
    return model.active_params - lookup


def _fused(query: FitQuery) -> bool:
    return query.compiled or query.stack is Stack.UNSLOTH


def _flash(query: FitQuery, model: ModelSpec) -> bool:
    if query.attention is not None:
        return query.attention is Attention.FLASH
    return not (query.stack in _HF_CODE and model.hf_eager)


def _active_intermediate(model: ModelSpec) -> int:
    return model.intermediate * model.active_experts + model.shared_expert_intermediate


def _layer_forward_bytes(query: FitQuery, model: ModelSpec) -> float:
    h, q, kv = model.hidden, model.q_dim, model.kv_dim
    inter = _active_intermediate(model)
    gated = model.mlp is MlpKind.GATED
    # PEFT's k-bit preparation keeps the embeddings in fp32, so the residual stream the norms
    # and adds work on is fp32 too: twice the bytes (estimator.stacks, kbit_upcast).
    stream = 2.0 if query.method is Method.QLORA and profile(query.stack).kbit_upcast else 1.0
    if _fused(query):
        mlp = (FUSED_GATED_MLP_BYTES if gated else PLAIN_MLP_BYTES) * inter
        rotary = FUSED_ROTARY_BYTES * (q + kv)
        residual = stream * (2 * FUSED_NORM_BYTES + RESIDUAL_BYTES) * h
        return residual + rotary + CONTIGUOUS_BYTES * q + mlp
    mlp = (GATED_MLP_BYTES if gated else PLAIN_MLP_BYTES) * inter
    repeat = REPEAT_KV_BYTES * q if kv < q else 0.0
    rotary = ROTARY_BYTES * (q + kv)
    residual = stream * (2 * NORM_BYTES + RESIDUAL_BYTES) * h
    return residual + rotary + CONTIGUOUS_BYTES * q + mlp + repeat


def adapted_shapes(model: ModelSpec, targets: Targets) -> list[tuple[int, int]]:
    """(in, out) of each linear of one layer that carries an adapter, per token (MoE: the
    experts a token passes through)."""
    h, q, kv = model.hidden, model.q_dim, model.kv_dim
    inter = _active_intermediate(model)
    shapes: list[tuple[int, int]] = []
    if targets is not Targets.MLP:
        shapes += [(h, q), (h, kv)]
    if targets in (Targets.ATTN, Targets.ALL):
        shapes += [(h, kv), (q, h)]
    if targets in (Targets.ALL, Targets.MLP):
        shapes += [(h, inter)] * (model.mlp_matrices - 1) + [(inter, h)]
    return shapes


def _lora_bytes(query: FitQuery, model: ModelSpec) -> float:
    """LoRA's side path per token and layer, forward, backward and recompute (0 for full
    fine-tunes and Unsloth, whose fused LoRA kernels ride on the main matmuls)."""
    if query.method is Method.FULL or query.stack is Stack.UNSLOTH:
        return 0.0
    dropout = profile(query.stack).lora_dropout
    forward = backward = 0.0
    for width_in, width_out in adapted_shapes(model, query.targets):
        forward += LORA_FORWARD_IN * width_in + LORA_FORWARD_OUT * width_out
        backward += LORA_BACKWARD_IN * width_in + LORA_BACKWARD_OUT * width_out
        if dropout:
            forward += LORA_DROPOUT_BYTES / 2 * width_in
            backward += LORA_DROPOUT_BYTES / 2 * width_in
    return forward * (1 + recompute(query)) + backward


def _loss_bytes(query: FitQuery, model: ModelSpec) -> float:
    loss = query.loss or profile(query.stack).default_loss
    return LOSS_BYTES[loss] * model.vocab


def _dequant_bytes(query: FitQuery, model: ModelSpec) -> float:
    """4-bit weights dequantised on every pass, whatever the batch: per micro-batch."""
    if query.method is not Method.QLORA:
        return 0.0
    passes = 2 + recompute(query)
    return passes * _quantised(query, model) * DEQUANT_BYTES_PER_PARAM_PASS


def _quantised(query: FitQuery, model: ModelSpec) -> int:
    if profile(query.stack).quantizes_all_linears:
        return linear_params(model)
    return adapted_linear_params(model, query.targets)  # torchtune: only the adapted ones


def _cast_bytes(query: FitQuery, model: ModelSpec) -> float:
    """Autocast's 16-bit copies of fp32 weights, per micro-batch: a full fine-tune's masters
    under mixed precision, and PEFT's fp32 lm_head after prepare_model_for_kbit_training."""
    passes = 1 + recompute(query)
    if query.method is Method.FULL and query.precision is Precision.MIXED:
        return passes * CAST_BYTES_PER_PARAM * matmul_params(model)
    if query.method is Method.QLORA and profile(query.stack).kbit_upcast:
        return passes * CAST_BYTES_PER_PARAM * model.vocab * model.hidden
    return 0.0


def _host_ops(query: FitQuery, model: ModelSpec, gpus: int) -> float:
    per_layer = FUSED_LAYER_OPS if _fused(query) else EAGER_LAYER_OPS
    if model.kv_dim < model.q_dim and not _fused(query):
        per_layer += GQA_OPS
    adapted = len(adapted_shapes(model, query.targets))
    if query.method is not Method.FULL and query.stack is not Stack.UNSLOTH:
        per_layer += adapted * (
            LORA_OPS + (LORA_DROPOUT_OPS if profile(query.stack).lora_dropout else 0)
        )
    if query.method is Method.QLORA:
        per_layer += (2 + model.mlp_matrices + 2) * NF4_OPS
    if query.method is Method.FULL and query.precision is Precision.MIXED:
        per_layer += 4 + model.mlp_matrices
    if gpus > 1 and query.shard in (Sharding.ZERO3, Sharding.FSDP):
        per_layer += SHARD_OPS
    passes = 1 + BACKWARD_PASSES + recompute(query)
    return (model.layers * per_layer + MODEL_OPS) * passes


def _update_bytes_per_param(query: FitQuery, model: ModelSpec) -> float:
    width = trained_width(query.precision)
    state = state_of(query.optimizer)
    kept = optimizer_bytes(query.optimizer, width, model.hidden, model.intermediate)
    foreach = state.width is Width.PARAM and profile(query.stack).adamw_foreach
    params, states = FOREACH_PASSES if foreach else FUSED_PASSES
    # The state's bytes per parameter, as stored (PARAM-width state in the tensor's width).
    per = params * width + states * kept
    if query.stack in _CLIPS:
        per += CLIP_PASSES * width
    return per


def _sharded(query: FitQuery, gpus: int) -> bool:
    return gpus > 1 and query.shard is not Sharding.DDP


def _comm(query: FitQuery, model: ModelSpec, gpus: int, trainable: int) -> tuple[float, float]:
    """Bytes one GPU sends per micro-batch and per optimizer step, by ring collectives: an
    all-gather or reduce-scatter of S bytes moves (N-1)/N·S through each GPU, an all-reduce
    twice that. DDP all-reduces the gradients once a step; ZeRO-2 reduce-scatters them every
    micro-batch and all-gathers the updated 16-bit weights after the step; ZeRO-3 and FSDP
    all-gather the weights (as stored: NF4 under QLoRA) for the forward and again for the
    backward, and reduce-scatter the gradients every micro-batch."""
    if gpus <= 1:
        return 0.0, 0.0
    share = (gpus - 1) / gpus
    if query.shard is Sharding.DDP:
        # DDP all-reduces the parameters' own gradients: fp32 beside fp32 masters.
        return 0.0, 2 * share * trainable * trained_width(query.precision)
    # ZeRO and FSDP reduce in the 16-bit compute dtype (DeepSpeed's communication_data_type
    # defaults to it; FSDP's MixedPrecision reduce_dtype in accelerate and torchtune is bf16).
    gradients = trainable * 2.0
    if query.shard is Sharding.ZERO2:
        return share * gradients, share * 2.0 * trainable
    return 2 * share * base_bytes(query, model) + share * gradients, 0.0


def step_work(query: FitQuery, model: ModelSpec, gpus: int = 1) -> StepWork:
    tokens = float(micro_batch_tokens(query))
    rc = recompute(query)
    full = query.method is Method.FULL
    params = matmul_params(model)
    footprint = estimate_memory(query, model)
    trainable = footprint.trainable_params
    adapters = 0 if full else lora_params(model, query.lora_rank, query.targets)
    matmul_passes = 2 + 2 + (2 if full else 0) + 2 * rc
    weight_passes = 2 + rc
    span = attended(query)
    flash = _flash(query, model)
    # Causal attention with a fused kernel computes half the score matrix: 2·s·d forward per
    # token and layer, twice that backward; eager attention computes all of it.
    attention = (6 + 2 * rc) * model.layers * span * model.q_dim * tokens * (1 if flash else 2)
    per_token = model.layers * (
        _layer_forward_bytes(query, model) * (1 + BACKWARD_PASSES + rc) + _lora_bytes(query, model)
    )
    per_token += _loss_bytes(query, model)
    if not flash:
        per_token += (
            EAGER_BYTES_PER_SCORE * (1 + BACKWARD_PASSES + rc) * model.heads * span * model.layers
        )
    memory = tokens * per_token + _dequant_bytes(query, model) + _cast_bytes(query, model)
    offloaded = query.offload is not Offload.NONE
    local = trainable / gpus if _sharded(query, gpus) else trainable
    comm, comm_step = _comm(query, model, gpus, trainable)
    return StepWork(
        tokens=tokens,
        matmul_flops=tokens * (matmul_passes * params + (6 + 2 * rc) * adapters),
        weight_bytes=weight_passes * params * 2.0,
        attention_flops=attention,
        memory_bytes=memory,
        host_ops=_host_ops(query, model, gpus),
        optimizer_bytes=0.0 if offloaded else local * _update_bytes_per_param(query, model),
        comm_bytes=comm,
        comm_step_bytes=comm_step,
        grad_accum=max(1, query.grad_accum),
        offload_seconds=stream_seconds(query, model, gpus),
        offload_step_seconds=step_seconds(query, model),
        paged_bytes=footprint.paged * GIB,
        resident_bytes=footprint.must_fit * GIB,
        flash=flash,
        adapters=not full,
    )
