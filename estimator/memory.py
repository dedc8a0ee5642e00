"""Peak GPU memory of one fine-tuning run, per GPU, by component.

Everything is computed in bytes from the model's architecture and the training stack's own
behaviour (`estimator.stacks`, read from each stack's code) and reported in GiB (2^30 bytes),
which is what torch and nvidia-smi show. Three constants are fitted (`Calibration`): what
autograd keeps beyond the tensors counted here, the allocator's slack and the CUDA context.
`bench/estimator_accuracy.py` fits them leaving one repository out at a time and prints how
close the estimate comes on the repository it did not see.

Two parts depend on the card the run is on, so `estimate_memory` takes it when one is named:
an adaptive fused loss (Unsloth's) takes what the card has room for, and bitsandbytes' paged
optimizer state, outside torch's allocator, stays on the card only while there is room.

The peak is the larger of two moments. The end of a micro-batch's forward pass: weights,
optimizer state, gradients (kept across micro-batches by gradient accumulation), every saved
activation and the logits of the loss all live at once. And the optimizer step: the stored
weights, the full gradients, the optimizer state and foreach AdamW's temporaries, with the
activations freed (what peaks for large trainable state and short batches).

Activation terms that grow with micro-batch x ctx (everything a layer saves per token) are
kept apart from the one that grows with micro-batch x ctx² (eager attention's score matrices).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from estimator.optimizers import bytes_per_param, state_of
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
    Targets,
)
from estimator.specs import GIB, MlpKind, ModelSpec
from estimator.stacks import StackProfile, profile


@dataclass(frozen=True)
class Calibration:
    """The only fitted constants (bench/estimator_accuracy.py --fit)."""

    # Saved tensors autograd keeps beyond those counted per layer (rotary and dtype-cast
    # copies, masks, the adapter path's small intermediates), as a multiplier.
    activation_factor: float
    # CUDA context + cuBLAS/cuDNN workspaces: in nvidia-smi, not in torch's counters,
    # bracketed at 0.5-1.5 GB (docs/estimator.md §Overheads).
    cuda_context_gib: float
    # Allocator cache and fragmentation: reserved / allocated - 1 (1-12 %, same section).
    allocator_slack: float


# Fitted on all 245 scored rows of tests/fixtures/estimator/vram_calibration.csv within the
# brackets of docs/estimator.md (`bench.estimator_accuracy.RANGES`), each row scored on what
# an answer prints for its run on its card, a low estimate weighing twice a high one
# (`bench.estimator_accuracy.UNDER_WEIGHT`: an out-of-memory error costs a person more than a
# bigger card, so the figure is the one two runs in three stay under); the fits that leave one
# repository out are printed by the bench beside the error on that repository. The counted
# tensors explain the data with fewer autograd extras than counted (0.87); the context
# (0.63 GiB = 0.67 GB) sits inside the 0.5-1.5 GB bracket (the HF "Model training anatomy"
# doc measured 1343 MiB on a V100), the slack (9.8 %) inside its 1-12 % bracket.
CALIBRATION = Calibration(activation_factor=0.871, cuda_context_gib=0.628, allocator_slack=0.098)

# NF4 storage: 4 bits + one fp32 absmax per 64 weights; double quantisation stores the absmax
# in 8 bits plus one fp32 per 256 blocks (QLoRA paper, arXiv 2305.14314).
NF4_BYTES = 0.5 + 4 / 64
NF4_DQ_BYTES = 0.5 + 1 / 64 + 4 / (64 * 256)
# GPTQ int4 storage (AutoGPTQ/AutoGPTQ auto_gptq/nn_modules/qlinear/qlinear_cuda.py
# @058fd80a72, QuantLinear's buffers): `qweight` packs eight 4-bit weights in an int32, and per
# group of GPTQ_GROUP input rows each output column has an fp16 `scale` and a 4-bit zero point
# packed in `qzeros` (the g_idx row map, 4 bytes per input row, is under 0.2 % of it).
GPTQ_GROUP = 128
GPTQ_BYTES = 0.5 + (2 + 0.5) / GPTQ_GROUP
# Eager attention saves, per layer and head, the fp32 softmax output and the 16-bit
# probabilities the value matmul reads: 4 + 2 bytes per score (transformers eager_attention).
EAGER_SCORE_BYTES = 6.0
# The backward of one layer's eager attention holds more per score than it saved: the value
# matmul's backward makes the probabilities' 16-bit gradient, the `.to()` cast's backward an
# fp32 copy of it, and softmax's backward reads that beside its saved fp32 output before the
# 16-bit score gradient is written: 4 + 4 + 2 bytes at once against the 6 saved, one layer at
# a time (torch autograd: ToCopyBackward0, SoftmaxBackward0 -> _softmax_backward_data).
EAGER_BACKWARD_EXTRA_BYTES = 4.0
# Cross-entropy straight on the logits, in their own dtype: the logits, the copy the shifted
# `logits[:, :-1].reshape(...)` makes and log_softmax's saved output, then in backward the
# saved output, its gradient and the input gradient: three logits-sized tensors at either
# peak (torch log_softmax saves its result; nll_loss's gradient has the logits' dtype).
DIRECT_LOSS_COPIES = 3
# A stack that quantises lm_head from an fp16 copy (Lightning's BitsandbytesPrecision,
# `w.to(dtype=torch.half)` before quantize_4bit) dequantises it to fp16 for every call and
# casts that to the 16-bit compute dtype: 2 + 2 bytes per head weight for a moment, at the
# loss (bitsandbytes MatMul4Bit.forward and backward, `dequantize_4bit(B).to(A.dtype)`).
HEAD_DEQUANT_BYTES = 4.0
# A LoRA adapter on lm_head adds its own vocab-wide 16-bit output and the sum with the frozen
# head's output: 2 + 2 bytes per token and vocab entry.
HEAD_ADAPTER_LOGIT_BYTES = 4.0
# NCCL communicator buffers per process in multi-GPU runs: NCCL_BUFFSIZE (4 MiB) per channel
# and peer, for send and receive; of the order of half a GiB on a PCIe server.
NCCL_BUFFERS_GIB = 0.5
# Layers FSDP/ZeRO-3 holds unsharded at once: the one computing and the one prefetched
# (FSDP's default backward_prefetch=BACKWARD_PRE and forward prefetch of the next unit;
# DeepSpeed's stage3_prefetch_bucket_size, which HF's "auto" config sizes to ~one layer).
GATHERED_LAYERS = 2


class Metric(StrEnum):
    """The quantity a memory figure is: what a published measurement measured, and what an
    answer prints of each."""

    ALLOCATED = "allocated"  # torch.cuda.max_memory_allocated / torchtune "active"
    RESERVED = "reserved"  # torch.cuda.max_memory_reserved: the caching allocator's pool
    NVIDIA_SMI = "nvidia-smi"  # the process's whole use: reserved, CUDA context, paged state


@dataclass(frozen=True)
class MemoryEstimate:
    """Per-GPU GiB by component. `peak` is the nvidia-smi view of the run; `must_fit` the
    part that cannot leave the card (paged optimizer state can)."""

    weights: float
    adapters: float  # LoRA weights + their gradients + their optimizer state
    gradients: float
    optimizer: float
    activations: float  # saved activations + logits/loss at the peak moment
    context: float  # CUDA context and library workspaces
    slack: float  # allocator cache and fragmentation
    trainable_params: int
    buffers: float = 0.0  # DDP gradient buckets and NCCL buffers
    # The parts of `adapters` that are the adapters' gradients and optimizer state: the
    # breakdown reports them as gradients and optimizer (they are counted once, in adapters).
    adapter_gradients: float = 0.0
    adapter_optimizer: float = 0.0
    # Of the optimizer state (`optimizer` or `adapter_optimizer`): what bitsandbytes pages,
    # CUDA managed memory that torch's counters never see and the driver moves to host RAM
    # when the card is full; `spilled` is the part in host RAM on the card named.
    paged: float = 0.0
    spilled: float = 0.0
    # Of `activations`: what an adaptive fused loss (Unsloth's) takes above its minimum
    # because the card had room; it shrinks on a fuller card.
    loss_room: float = 0.0

    @property
    def overhead(self) -> float:
        return self.context + self.slack + self.buffers

    @property
    def allocated(self) -> float:
        """What torch.cuda.max_memory_allocated would report (no paged state)."""
        return (
            self.weights
            + self.adapters
            + self.gradients
            + self.optimizer
            + self.activations
            + self.buffers
            - self.paged
        )

    @property
    def reserved(self) -> float:
        """What torch.cuda.max_memory_reserved would report."""
        return self.allocated + self.slack

    @property
    def must_fit(self) -> float:
        """What the card must hold for the run to go on: the pool and the CUDA context."""
        return self.reserved + self.context

    @property
    def peak(self) -> float:
        """What nvidia-smi would show: the pool, the context and the resident paged state."""
        return self.must_fit + self.paged - self.spilled

    def figure(self, metric: Metric) -> float:
        return {
            Metric.ALLOCATED: self.allocated,
            Metric.RESERVED: self.reserved,
            Metric.NVIDIA_SMI: self.peak,
        }[metric]

    def breakdown(self) -> dict[str, float]:
        """The peak by part, summing to it. A LoRA's gradients and optimizer state are shown
        as such, not inside "adapters", and keep enough digits to read as non-zero."""
        adapter_state = self.adapter_gradients + self.adapter_optimizer
        return {
            "weights": Gib(self.weights),
            "adapters": Gib(self.adapters - adapter_state),
            "gradients": Gib(self.gradients + self.adapter_gradients),
            "optimizer": Gib(self.optimizer + self.adapter_optimizer - self.spilled),
            "activations": Gib(self.activations),
            "overhead": Gib(self.overhead),
        }


class Gib(float):
    """GiB that stays readable when small: formatted to one decimal (".1f") a LoRA's 0.04 GiB
    of optimizer state would read «0.0»; under 0.1 it keeps two significant digits instead."""

    def __format__(self, spec: str) -> str:
        value = float(self)
        if spec.endswith("f") and 0 < abs(value) < 0.1:
            digits = 1
            while abs(value) * 10**digits < 10:  # two significant digits: 0.039, 0.0012
                digits += 1
            return format(value, f".{digits}f")
        return format(value, spec)


@dataclass(frozen=True)
class MemoryParts:
    """Uncalibrated bytes per GPU; `layer_activations` is what the activation factor scales."""

    weights: float
    adapters: float
    gradients: float
    optimizer: float
    layer_activations: float
    logits: float
    buffers: float
    trainable_params: int
    # Of `adapters`: the bytes that are their gradients and their optimizer state.
    adapter_gradients: float = 0.0
    adapter_optimizer: float = 0.0
    # Of `optimizer` / `adapter_optimizer`: bitsandbytes' paged (managed) state.
    paged: float = 0.0
    # An adaptive fused loss (Unsloth's): the bytes its working memory reaches with every
    # logit in one chunk, and per chunk target (fp32 logits) it may take; `logits` holds its
    # minimum.
    loss_whole: float = 0.0
    loss_per_target: float = 0.0
    # The optimizer step, once the activations and the copies made for compute are freed:
    # the stored weights, the full (sharded) gradients and foreach AdamW's temporaries; the
    # optimizer state, adapters and buffers are those of `fixed`. The peak is the larger of
    # this moment and the forward pass's (`step_peak`).
    step_weights: float = 0.0
    step_gradients: float = 0.0
    step_temporaries: float = 0.0

    def step_total(self) -> float:
        return (
            self.step_weights
            + self.adapters
            + self.step_gradients
            + self.optimizer
            + self.buffers
            + self.step_temporaries
        )

    def step_peak(self, activations: float) -> bool:
        """Whether the optimizer step, not the forward pass with these `activations`, peaks."""
        return self.step_total() > self.fixed() + activations

    def allocated(self, activations: float) -> float:
        """Bytes torch has allocated at the peak, whichever moment it is."""
        return max(self.fixed() + activations, self.step_total())

    def fixed(self) -> float:
        return self.weights + self.adapters + self.gradients + self.optimizer + self.buffers


# --- parameter counts -----------------------------------------------------------------------


def _attention_params(model: ModelSpec) -> int:
    return model.hidden * (2 * model.q_dim + 2 * model.kv_dim)


def _mlp_params(model: ModelSpec) -> int:
    mlp = model.mlp_matrices * model.hidden * model.intermediate * max(1, model.experts)
    return mlp + model.mlp_matrices * model.hidden * model.shared_expert_intermediate


def linear_params(model: ModelSpec) -> int:
    """Parameters in the blocks' linear layers: what bitsandbytes quantises."""
    router = model.hidden * model.experts if model.experts > 1 else 0
    per_layer = _attention_params(model) + _mlp_params(model) + router
    # Never more than what the model has outside its embeddings (guards odd catalog rows).
    return min(per_layer * model.layers, model.total_params - model.embedding_params)


def adapted_linear_params(model: ModelSpec, targets: Targets) -> int:
    """Parameters of the linears that carry a LoRA adapter (torchtune quantises only these)."""
    h, q, kv = model.hidden, model.q_dim, model.kv_dim
    per_layer = 0 if targets is Targets.MLP else h * q + h * kv  # q and v
    if targets in (Targets.ATTN, Targets.ALL):
        per_layer += h * kv + q * h  # k and o
    if targets in (Targets.ALL, Targets.MLP):
        per_layer += _mlp_params(model)
    return min(per_layer * model.layers, linear_params(model))


def lora_matrices(
    model: ModelSpec, rank: int, targets: Targets, with_head: bool = False
) -> list[tuple[int, int, int]]:
    """Every LoRA matrix as (rows, columns, how many): A is rank x in, B is out x rank, for
    each adapted linear of every layer, with the real GQA shapes."""
    h, q, kv, inter = model.hidden, model.q_dim, model.kv_dim, model.intermediate
    layers = model.layers
    linears: list[tuple[int, int, int]] = []  # (in, out, count)
    if targets is not Targets.MLP:
        linears += [(h, q, layers), (h, kv, layers)]  # q and v
    if targets in (Targets.ATTN, Targets.ALL):
        linears += [(h, kv, layers), (q, h, layers)]  # k and o
    if targets in (Targets.ALL, Targets.MLP):
        experts = max(1, model.experts) * layers
        ups = model.mlp_matrices - 1  # gate and up (gated), or fc1
        linears += [(h, inter, ups * experts), (inter, h, experts)]
    if with_head:
        linears.append((h, model.vocab, 1))
    matrices = []
    for fan_in, fan_out, count in linears:
        matrices += [(rank, fan_in, count), (fan_out, rank, count)]
    return matrices


def lora_params(model: ModelSpec, rank: int, targets: Targets, with_head: bool = False) -> int:
    """r·(in + out) for every adapted linear, with the real GQA shapes."""
    return sum(r * c * n for r, c, n in lora_matrices(model, rank, targets, with_head))


# --- weights and trainable state ------------------------------------------------------------


def _state_bytes(precision: Precision) -> float:
    """Bytes of one stored copy of a trainable tensor (weight master, gradient, Adam moment)."""
    return 2.0 if precision in (Precision.BF16, Precision.FP16) else 4.0


# bitsandbytes pages a state tensor only for parameters of at least 1e5 elements
# (bitsandbytes/optim/optimizer.py @95f9af309d, get_state_buffer: `p.numel() < 1e5` gets a
# plain torch tensor); paged ones are CUDA managed memory (functional.get_paged:
# cget_managed_ptr wrapped by torch.frombuffer), which torch's allocator never counts.
PAGED_MIN_ELEMENTS = 100_000


@dataclass(frozen=True)
class OptimizerBytes:
    total: float  # every state tensor
    paged: float  # of which CUDA managed memory: not in torch's counters, spills to host


def _full_optimizer_bytes(query: FitQuery, model: ModelSpec, width: float) -> OptimizerBytes:
    """A full fine-tune's optimizer state: the blocks' linears (what GaLore and APOLLO
    project), the embeddings and lm_head, and the rest (norms) at plain width."""
    optimizer = query.optimizer
    h = model.hidden
    linears = linear_params(model)
    embeddings = min(model.embedding_params, model.total_params - linears)
    rest = model.total_params - linears - embeddings
    matrices = linears * bytes_per_param(optimizer, width, h, model.intermediate)
    matrices += embeddings * bytes_per_param(optimizer, width, model.vocab, h, targeted=False)
    vectors = rest * bytes_per_param(optimizer, width, 1, h, targeted=False)
    return OptimizerBytes(matrices + vectors, matrices if state_of(optimizer).paged else 0.0)


def _adapter_optimizer_bytes(query: FitQuery, model: ModelSpec, width: float) -> OptimizerBytes:
    """The adapters' optimizer state, matrix by matrix (paging and factoring are per tensor)."""
    optimizer = query.optimizer
    paging = state_of(optimizer).paged
    total = paged = 0.0
    for rows, cols, count in lora_matrices(
        model, query.lora_rank, query.targets, query.head_adapter
    ):
        state = rows * cols * count * bytes_per_param(optimizer, width, rows, cols)
        total += state
        if paging and rows * cols >= PAGED_MIN_ELEMENTS:
            paged += state
    return OptimizerBytes(total, paged)


def _update_in_backward(query: FitQuery) -> bool:
    """The optimizer steps each parameter inside backward (torchtune optimizer_in_bwd, LOMO,
    the layer-wise GaLore/APOLLO hooks): the full gradient never exists at once."""
    return query.optimizer_in_backward or state_of(query.optimizer).in_backward


def in_backward_gradient_params(model: ModelSpec) -> float:
    """Parameters whose gradients exist at once when the optimizer steps each parameter inside
    backward (`_update_in_backward`): a hook on the parameter's AccumulateGrad steps and frees
    it as soon as its gradient is complete (torch `register_post_accumulate_grad_hook`, which
    torchtune's optimizer_in_bwd registers: torchtune/training/memory.py @bd2a0fc7c3). One
    block's gradients live at a time, or lm_head's, computed first at the loss, when it is the
    larger. A head tied to the embeddings is one parameter used twice: autograd's engine holds
    the head's gradient in the AccumulateGrad node's input buffer until the embedding's, the
    last of the backward, arrives (a node runs once all its inputs are ready; torch
    csrc/autograd/engine.cpp, input_buffer.cpp), so that gradient lives through the whole
    backward beside each block's (torchtune's TiedLinear reuses the embedding's weight:
    torchtune/modules/tied_linear.py @bd2a0fc7c3)."""
    head = model.vocab * model.hidden
    block = (model.total_params - model.embedding_params) / max(1, model.layers)
    return block + head if model.tied_embeddings else max(block, head)


def _optimizer_step_bytes(query: FitQuery, stack: StackProfile, trainable: int) -> float:
    """Temporaries of torch's foreach AdamW at the optimizer step: `_multi_tensor_adamw` takes
    `torch._foreach_sqrt(exp_avg_sqs)` over every parameter at once, one moment-sized tensor
    list ("the foreach implementation uses ~ sizeof(params) more peak memory than the for-loop
    version", torch.optim.AdamW docs). The fused kernel and the 8/4-bit optimizers (which
    update block by block) keep none. Activations are freed by then, so this competes with
    them for the peak rather than adding to them."""
    if query.optimizer is not Optimizer.ADAMW or not stack.adamw_foreach:
        return 0.0
    return trainable * _state_bytes(query.precision)


def autocast_on(query: FitQuery) -> bool:
    """Whether the run's forward is under torch autocast: as stated, else under mixed
    precision only."""
    if query.autocast is not None:
        return query.autocast
    return query.precision is Precision.MIXED


def _lora_flat_params_upcast(query: FitQuery, stack: StackProfile) -> bool:
    """A LoRA run sharded by FSDP through accelerate under mixed precision: its layers' flat
    parameters are upcast to fp32 (`StackProfile.accelerate_fsdp`). accelerate does it only
    `if self.mixed_precision != "no"` (accelerator.py prepare_model @16cb6eb80d), so a model
    loaded in 16 bits and trained without --bf16/--fp16 (`FitQuery.autocast` off) keeps its
    16-bit flat parameters. Quantised (QLoRA) storage is left out: it is not a float that
    could be upcast."""
    return (
        query.method is Method.LORA
        and query.shard is Sharding.FSDP
        and query.gpus > 1
        and query.precision is Precision.MIXED
        and autocast_on(query)
        and stack.accelerate_fsdp
    )


def _accumulates_unsharded_gradients(query: FitQuery, stack: StackProfile) -> bool:
    """A LoRA run over FSDP flat parameters that accumulates gradients under FSDP's no_sync
    (`StackProfile.fsdp_no_sync`): torch FSDP keeps each unit's unsharded gradient between
    micro-batches ("no_sync ... will accumulate unsharded gradients"), and with
    use_orig_params a unit's flat parameter mixes frozen and trainable weights, so the
    gradient is the whole unit's ("the gradient memory usage will be higher than expected
    (namely, equivalent to not freezing those parameters)", torch FullyShardedDataParallel
    docs). The root unit (embeddings, lm_head) is frozen whole and has none."""
    return (
        query.method is not Method.FULL
        and query.shard is Sharding.FSDP
        and query.gpus > 1
        and query.offload is Offload.NONE
        and stack.fsdp_no_sync
    )


def _casts_frozen_weights(query: FitQuery) -> bool:
    """A LoRA run whose frozen weights are stored in fp32 (Lightning's bf16-mixed) and computed
    under autocast."""
    return query.method is Method.LORA and query.precision is Precision.FP32 and autocast_on(query)


def _kbit_upcast(query: FitQuery, stack: StackProfile) -> bool:
    # TRL's SFTTrainer skips prepare_model_for_kbit_training for sharded QLoRA (FSDP/ZeRO-3
    # with bnb_4bit_quant_storage), so sharded runs keep 16-bit embeddings and norms. PEFT's
    # preparation itself skips the fp32 cast for a GPTQ model (peft/utils/other.py
    # prepare_model_for_kbit_training: `if not is_gptq_quantized ...: # cast all non INT8
    # parameters to fp32`).
    sharded = query.gpus > 1 and query.shard in (Sharding.ZERO3, Sharding.FSDP)
    return (
        query.method is Method.QLORA
        and query.quant is Quant.NF4
        and stack.kbit_upcast
        and not sharded
    )


def stored_model(model: ModelSpec, stack: StackProfile) -> ModelSpec:
    """The model as the stack stores it: a stack that keeps lm_head apart from tied
    embeddings (`StackProfile.separate_head`) holds both matrices."""
    if not (stack.separate_head and model.tied_embeddings):
        return model
    head = model.vocab * model.hidden
    return replace(model, tied_embeddings=False, total_params=model.total_params + head)


def quantised_linears(query: FitQuery, model: ModelSpec) -> tuple[int, float]:
    """A QLoRA run's quantised linears: (parameters, bytes each). Every linear of the blocks
    but where the stack quantises only those it adapts (torchtune), and lm_head where the
    stack quantises it too (litgpt); a GPTQ checkpoint has every block linear quantised."""
    gptq = query.quant is Quant.GPTQ
    stack = profile(query.stack)
    if gptq or stack.quantizes_all_linears:
        quantised = linear_params(model)
    else:
        quantised = adapted_linear_params(model, query.targets)
    if stack.quantizes_head and not gptq:
        quantised += model.vocab * model.hidden
    if gptq:
        return quantised, GPTQ_BYTES
    return quantised, NF4_DQ_BYTES if query.double_quant else NF4_BYTES


def _weight_bytes(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    params = model.total_params
    if query.method is Method.QLORA:
        quantised, per = quantised_linears(query, model)
        # Embeddings, lm_head, norms (and torchtune's unadapted linears) stay unquantised:
        # 16-bit, or fp32 after PEFT's k-bit preparation.
        rest = 4.0 if _kbit_upcast(query, stack) or query.precision is Precision.FP32 else 2.0
        return quantised * per + (params - quantised) * rest
    if query.precision is Precision.FP32:
        return params * 4.0
    if query.precision is Precision.MIXED and query.method is Method.FULL:
        # fp32 master weights, plus the bf16 copies autocast caches for the forward pass.
        return params * (4.0 + 2.0)
    return params * 2.0


def quant_stats_bytes(query: FitQuery, model: ModelSpec) -> float:
    """Bytes of a QLoRA run's NF4 block statistics (absmax, and with double quantisation its
    own 8-bit codes and fp32 scales): `NF4_DQ_BYTES` / `NF4_BYTES` beyond the packed half
    byte. bitsandbytes keeps them in a `QuantState` on the Linear4bit module, not in a
    parameter: `Params4bit._quantize` stores it on `self.module.quant_state`, and
    `Linear4bit.forward` restores it onto the weight "when the parameter got converted. This
    happens for example for fsdp" (bitsandbytes-foundation/bitsandbytes bitsandbytes/nn/
    modules.py @ffd7d0db, from dcfb6f81 "Initial FSDP Support for QLoRA Finetuning"). FSDP
    and ZeRO-3 shard and offload parameters only, so every GPU keeps all of it; it went to
    the GPU with the module (`Params4bit.to` moves the QuantState in place)."""
    if query.method is not Method.QLORA or query.quant is not Quant.NF4:
        return 0.0
    quantised, per = quantised_linears(query, model)
    return quantised * (per - 0.5)


def _root_bytes(query: FitQuery, model: ModelSpec, stack: StackProfile, weights: float) -> float:
    """Bytes of what sits outside the transformer blocks and stays whole on every GPU:
    embeddings and lm_head (the final norm is too small to count), at the width the weights
    are stored in (`weights`, after offload). Where the stack shards them as their own units,
    only lm_head is whole, and only at the loss (the peak)."""
    params = model.vocab * model.hidden if stack.shards_embeddings else model.embedding_params
    if query.method is not Method.QLORA:
        return params * weights / model.total_params
    # The embeddings are not quantised: 16-bit, or fp32 after k-bit prep. A head the stack
    # quantises with the blocks (litgpt) sits in the root at its 4-bit width.
    width = 4.0 if _kbit_upcast(query, stack) or query.precision is Precision.FP32 else 2.0
    head = model.vocab * model.hidden
    if stack.quantizes_head and not model.tied_embeddings and params > head:
        _, quantised_width = quantised_linears(query, model)
        return (params - head) * width + head * quantised_width
    return params * width


def saved_module_params(query: FitQuery, model: ModelSpec) -> int:
    """Parameters of a LoRA run's modules_to_save copies: one of embed_tokens and one of
    lm_head (two copies even where the model ties them: PEFT wraps each module it is named)."""
    if query.method is Method.FULL or not query.train_embeddings:
        return 0
    return 2 * model.vocab * model.hidden


def base_width(query: FitQuery) -> float:
    """Bytes of one unquantised base weight: its 16 bits, or 4 in an fp32 run."""
    return 4.0 if query.precision is Precision.FP32 else 2.0


@dataclass(frozen=True)
class _Copies:
    """Bytes of a LoRA run's modules_to_save copies, before any sharding."""

    weights: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    paged: float = 0.0
    temporaries: float = 0.0


def _saved_module_bytes(query: FitQuery, model: ModelSpec, stack: StackProfile) -> _Copies:
    """PEFT's modules_to_save (`ModulesToSaveWrapper`, peft/utils/other.py) keeps the original
    module and trains a deep copy of it: the copy's weight in the base model's dtype (PEFT's
    autocast_adapter_dtype upcasts only LoRA layers), its gradient and its optimizer state in
    that dtype, the foreach step's temporary. The copies sit in the root of a sharded model,
    whole on every card through backward; their gradients and state are split like the rest.
    Offloaded, only the copy stays."""
    params = saved_module_params(query, model)
    if params == 0:
        return _Copies()
    width = base_width(query)
    weights = params * width
    if query.offload is not Offload.NONE:
        return _Copies(weights=weights)
    per = bytes_per_param(query.optimizer, width, model.vocab, model.hidden, targeted=False)
    state = params * per
    paged = state if state_of(query.optimizer).paged else 0.0
    foreach = query.optimizer is Optimizer.ADAMW and stack.adamw_foreach
    temporaries = params * width if foreach and not _update_in_backward(query) else 0.0
    return _Copies(weights, params * width, state, paged, temporaries)


def _adapter_width(query: FitQuery, stack: StackProfile) -> float:
    """Bytes of one stored copy of a LoRA parameter (its weight, or its gradient)."""
    return 4.0 if query.precision is Precision.FP32 else float(stack.adapter_bytes)


# --- activations ----------------------------------------------------------------------------


def _residual_bytes(query: FitQuery, stack: StackProfile) -> float:
    """The residual stream's dtype: fp32 once embeddings are fp32 (k-bit prep) or in fp32."""
    return 4.0 if _kbit_upcast(query, stack) or query.precision is Precision.FP32 else 2.0


@dataclass(frozen=True)
class _LayerBytes:
    """Bytes per token one block saves for backward, by the part that saves them."""

    norms: float  # the two norms' own saves
    attention: float  # q, k, v, the attention output, adapters' saves on those linears
    mlp: float  # the MLP's intermediates, adapters' saves on its linears
    # Of `attention` and `mlp`: their input (the normed x), kept where a linear needs it.
    attention_input: float = 0.0
    mlp_input: float = 0.0

    @property
    def total(self) -> float:
        return self.norms + self.attention + self.mlp


def _layer_bytes_per_token(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    """Bytes one block saves for backward per token (flash/SDPA attention, no s² term)."""
    return _layer_parts(query, model, stack).total


def _layer_parts(query: FitQuery, model: ModelSpec, stack: StackProfile) -> _LayerBytes:
    """What one block saves per token, by part.

    Frozen linears need only their weight for the input gradient, so their inputs are saved
    only when something consumes them in backward: the weight itself (full fine-tuning), a
    LoRA adapter, or bitsandbytes' MatMul4Bit (which keeps every input).
    """
    h, q, kv = model.hidden, model.q_dim, model.kv_dim
    inter = model.intermediate * (model.active_experts if model.experts > 1 else 1)
    inter += model.shared_expert_intermediate
    act = base_width(query)
    residual = _residual_bytes(query, stack)
    full = query.method is Method.FULL
    bnb = query.method is Method.QLORA and query.quant is Quant.NF4 and stack.bnb_saves_inputs
    targets = query.targets
    gated = model.mlp is MlpKind.GATED

    # The two norms' own saves. torch.compile (inductor) recomputes the fp32 upcast instead
    # of saving it, like the fused kernels do; with fp32 residuals both copies are fp32.
    norm = 2.0 if query.compiled else stack.norm_bytes
    if residual == 4.0:
        norm = max(norm, 8.0) if not query.compiled else 4.0
    attention = act * (q + 2 * kv)  # q, k, v after rotary, saved by flash attention
    attention += act * q  # attention output: flash saves it, o_proj reads it
    # MLP: gated saves gate and up (and act(gate), which compile recomputes); plain fc1 out.
    mlp_saved = (2 if query.compiled else 3) if gated else 1
    mlp = act * mlp_saved * inter
    # Inputs of linears: normed x for q/k/v (kept when q and v carry adapters), normed x for
    # the MLP, and the down projection's input.
    attention_input = mlp_input = 0.0
    if full or bnb or targets is not Targets.MLP:
        attention_input = act * h
    if full or bnb or targets in (Targets.ALL, Targets.MLP):
        mlp_input = act * h
        mlp += act * inter
    if not full:
        lora_attention, lora_mlp = _lora_saved_elements(query, model, stack)
        attention += act * lora_attention
        mlp += act * lora_mlp
    return _LayerBytes(
        norms=2 * h * norm,
        attention=attention + attention_input,
        mlp=mlp + mlp_input,
        attention_input=attention_input,
        mlp_input=mlp_input,
    )


def _lora_saved_elements(
    query: FitQuery, model: ModelSpec, stack: StackProfile
) -> tuple[float, float]:
    """Per token, on the attention's linears and on the MLP's: x·A (rank elements) per adapted
    module, plus a dropped-out copy of the module's input (and its one-byte mask, counted as
    half an element) where the stack's recipes use lora_dropout > 0."""
    h, q, inter = model.hidden, model.q_dim, model.intermediate
    mlp = [h, h, inter] if model.mlp is MlpKind.GATED else [h, inter]
    attention = {Targets.QV: [h, h], Targets.ATTN: [h, h, h, q], Targets.ALL: [h, h, h, q]}
    groups = (
        attention.get(query.targets, []),
        mlp if query.targets in (Targets.MLP, Targets.ALL) else [],
    )
    saved = []
    for inputs in groups:
        elements = float(len(inputs) * query.lora_rank)
        if stack.lora_dropout:
            elements += 1.5 * sum(inputs)
        saved.append(elements)
    return saved[0], saved[1]


def _attention(query: FitQuery, model: ModelSpec) -> Attention:
    if query.attention is not None:
        return query.attention
    # transformers falls back to eager attention for the models that lack SDPA/flash support
    # (or, for Gemma-2, recommend eager for training); the other stacks always use SDPA.
    return Attention.EAGER if _hf_model_code(query) and model.hf_eager else Attention.FLASH


def _hf_model_code(query: FitQuery) -> bool:
    """The stack runs transformers' own modeling code (its attention, its logits path)."""
    return query.stack.value in ("hf", "axolotl", "swift", "llamafactory")


def _layer_activations(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    """What the blocks hold at the peak: every tensor they saved, and the working memory of
    the one layer whose backward is running beyond it."""
    saved = _saved_activations(query, model, stack)
    if _attention(query, model) is not Attention.EAGER:
        return saved
    seq = query.ctx * query.fill
    return saved + query.micro_batch * model.heads * seq * seq * EAGER_BACKWARD_EXTRA_BYTES


def _saved_activations(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    seq = query.ctx * query.fill
    tokens = query.micro_batch * seq
    one_layer = tokens * _layer_bytes_per_token(query, model, stack)
    if _casts_frozen_weights(query):
        # Under autocast every frozen fp32 linear is cast to 16 bits for its matmul, and the
        # matmul saves that copy for its input's gradient (autocast caches only casts of
        # leaves that require grad): a layer keeps its linears in 16 bits until its backward.
        one_layer += 2.0 * linear_params(model) / max(1, model.layers)
    if query.method is Method.QLORA and query.quant is Quant.GPTQ:
        # auto-gptq's QuantLinear dequantises its whole weight to fp16 for a batch of 128
        # tokens or more and multiplies by it (`out = torch.matmul(x, weights)`, qlinear_cuda.py
        # @058fd80a72); autograd saves that fp16 weight for the input's gradient: a layer keeps
        # its linears' weights in 16 bits until its backward.
        one_layer += 2.0 * linear_params(model) / max(1, model.layers)
    if _attention(query, model) is Attention.EAGER:
        one_layer += query.micro_batch * model.heads * seq * seq * EAGER_SCORE_BYTES
    checkpoint = tokens * model.hidden * _residual_bytes(query, stack)  # one layer's input
    layers = model.layers
    gc = query.grad_checkpointing
    if gc is Checkpointing.OFF:
        return (one_layer + tokens * _previous_bnb_inputs(query, model, stack)) * layers
    if gc is Checkpointing.ON:
        # Each layer's input is kept; one layer is recomputed at a time during backward.
        return checkpoint * layers + one_layer
    if gc is Checkpointing.SELECTIVE_OP:
        # torchtitan's op policy (parallelize_llama.py _save_list @9dec370) saves the attention
        # kernel's output and the output of every odd-numbered matmul of a block, counting in
        # forward order (q, k, v, o, then gate, up, down): q, v, gate and down for a gated MLP,
        # q, v and fc1 for a plain one; the block's input is kept as the checkpoint, and one
        # block is recomputed at a time in backward.
        act = base_width(query)
        inter = model.intermediate * (model.active_experts if model.experts > 1 else 1)
        mlp_saved = inter + model.hidden if model.mlp is MlpKind.GATED else inter
        saved = act * (model.q_dim + model.kv_dim + model.q_dim + mlp_saved)
        return (checkpoint + tokens * saved) * layers + one_layer
    if gc is Checkpointing.SUBMODULE:
        # Each block's two norms, its attention and its MLP checkpointed on their own (NeMo
        # Automodel's parallelizer wraps input_layernorm, self_attn, post_attention_layernorm
        # and mlp in checkpoint_wrapper: NVIDIA-NeMo/Automodel nemo_automodel/components/
        # distributed/parallelizer.py @b4733bdc18): every wrapped module keeps its input, the
        # residual stream twice and the normed x twice, and backward recomputes one module at
        # a time, the largest of them at most (its input is already kept).
        parts = _layer_parts(query, model, stack)
        kept = tokens * model.hidden * 2 * (_residual_bytes(query, stack) + base_width(query))
        largest = max(
            parts.attention - parts.attention_input, parts.mlp - parts.mlp_input, parts.norms / 2
        )
        # What one_layer holds beyond the saves per token (weights cast or dequantised for the
        # matmuls, eager attention's scores) is held while its module is recomputed.
        held = one_layer - tokens * parts.total
        return kept * layers + tokens * largest + held
    if gc is Checkpointing.SELECTIVE:
        # Every other layer checkpointed (torchtune ac_option=2), the rest keep everything.
        kept = layers // 2
        return one_layer * kept + checkpoint * (layers - kept) + one_layer
    # Offloaded: the checkpoints live in CPU RAM; the GPU holds the layer being recomputed
    # and the input being copied back for the next one.
    return one_layer + 2 * checkpoint


def _previous_bnb_inputs(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    """Bytes per token and layer of the previous micro-batch's inputs to the quantised
    linears, still alive at this one's peak: old bitsandbytes kept them in the graph's ctx
    (`FitQuery.old_bitsandbytes`) and a loop that keeps the previous output bound keeps that
    graph through the next forward (`StackProfile.keeps_previous_graph`). The inputs of q/k/v,
    of the output projection (a reshaped copy of attention's output), of the MLP and of its
    down projection. Without checkpointing only: a checkpointed layer's forward runs without
    gradients, and MatMul4Bit keeps nothing then."""
    if not (
        query.method is Method.QLORA
        and query.quant is Quant.NF4
        and query.old_bitsandbytes
        and stack.bnb_saves_inputs
        and stack.keeps_previous_graph
    ):
        return 0.0
    inter = model.intermediate * (model.active_experts if model.experts > 1 else 1)
    inter += model.shared_expert_intermediate
    return base_width(query) * (2 * model.hidden + model.q_dim + inter)


def _logits(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    tokens = query.micro_batch * query.ctx * query.fill
    loss = query.loss or stack.default_loss
    upcast = _kbit_upcast(query, stack)
    # lm_head's dtype, the logits': fp32 when the model is, or when k-bit preparation upcast
    # the head.
    head_bytes = 4.0 if query.precision is Precision.FP32 or upcast else 2.0
    # A stack without an adaptive loss of its own runs a fused one when asked for it.
    fallback = stack.loss_bytes[Loss.FUSED]
    per = (
        DIRECT_LOSS_COPIES * head_bytes
        if loss is Loss.DIRECT
        else stack.loss_bytes.get(loss, fallback)
    )
    if query.compiled and loss is Loss.CHUNKED:
        # Compiled, each chunk's upcast, log-softmax and loss fuse into one kernel that saves
        # only the log-sum-exp: the bf16 chunks are all that stays (torchtune 3B table:
        # +compile then +chunked CE took 51.0 to 42.9 GiB).
        per = min(per, 2.0)
    if query.head_adapter and query.method is not Method.FULL:
        per += HEAD_ADAPTER_LOGIT_BYTES
    if query.holds_logits and loss is Loss.NAIVE and _hf_model_code(query):
        # transformers' loss reaches 12 bytes with the 16-bit logits already freed (nothing
        # saves them: the fp32 copy is cast from them, log_softmax saves its output); a loop
        # that still holds the model's output keeps them beside it.
        per += head_bytes
    logits = tokens * model.vocab * per
    softcaps = _hf_model_code(query) or query.stack.value == "litgpt"
    if model.logit_softcap and softcaps and loss not in (Loss.FUSED, Loss.ADAPTIVE):
        # The model code soft-caps the logits: transformers' Gemma2ForCausalLM (logits / cap,
        # tanh, * cap; modeling_gemma2.py) and litgpt's GPT.forward (do_softcapping on the
        # whole head or on each lm_head chunk, litgpt/model.py). tanh saves its output for
        # backward: one more logits-sized tensor in lm_head's dtype beside the ones the loss
        # keeps. A fused loss (Unsloth's, Liger's Gemma-2 patch) caps inside its kernel.
        logits += tokens * model.vocab * head_bytes
    if upcast or _casts_frozen_weights(query):
        # An fp32 lm_head under bf16 autocast is cast to bf16 for every call: one transient
        # 16-bit copy of the head at the loss.
        logits += 2.0 * model.vocab * model.hidden
    if query.method is Method.QLORA and query.quant is Quant.NF4 and stack.quantizes_head:
        logits += HEAD_DEQUANT_BYTES * model.vocab * model.hidden
    return logits


# unsloth_zoo's adaptive chunking (unslothai/unsloth-zoo
# unsloth_zoo/fused_losses/cross_entropy_loss.py @ce232d6cef, `_get_chunk_multiplier` and
# `get_chunk_size`): each chunk's fp32 logits are kept under a target of half the VRAM free at
# the first call (torch.cuda.mem_get_info), capped at 4 GiB since d9fe1f43 (2026-07-06:
# "materializes the full logits and their float32 upcast in a single transient"); a batch
# whose fp32 logits fit the target runs as one chunk.
ADAPTIVE_LOSS_FREE_SHARE = 0.5
ADAPTIVE_LOSS_TARGET_CAP_GIB = 4.0


def _adaptive_loss(query: FitQuery, model: ModelSpec, stack: StackProfile) -> tuple[float, float]:
    """(bytes with every logit in one chunk, bytes per GiB of chunk target) of an adaptive
    fused loss; (0, 0) for every other loss."""
    if stack.loss_expands_to <= 0 or loss_of(query) is not Loss.ADAPTIVE:
        return 0.0, 0.0
    tokens = query.micro_batch * query.ctx * query.fill
    whole = tokens * model.vocab * stack.loss_expands_to
    # The target counts fp32 logits (4 bytes a value); the chunk's working memory is
    # loss_expands_to bytes a value.
    return whole, GIB * stack.loss_expands_to / 4.0


# --- sharding -------------------------------------------------------------------------------


def _zero2_bucket_bytes(query: FitQuery, model: ModelSpec) -> float:
    """DeepSpeed ZeRO-1/2 allocates, for every backward, `ipg_buffer`: one 16-bit buffer of
    reduce_bucket_size elements the gradients are copied into for their reduction, two with
    overlap_comm (deepspeed/runtime/zero/stage_1_and_2.py `backward`: "Use double buffers to
    avoid data access conflict when overlap_comm is enabled"), on one GPU too. The configs
    people run set overlap_comm and contiguous_gradients true (HF's, Qwen's, ms-swift's, and
    LLaMA-Factory's ds_z2_config); HF's "auto" bucket is hidden x hidden."""
    elements = query.reduce_bucket or model.hidden * model.hidden
    return 2 * elements * 2.0


def _splits(query: FitQuery) -> tuple[int, int, int]:
    """How many ways (weights, gradients, optimizer state) are split across the GPUs."""
    n = max(1, query.gpus)
    if query.shard in (Sharding.ZERO3, Sharding.FSDP):
        return n, n, n
    if query.shard is Sharding.ZERO2:
        return 1, n, n
    return 1, 1, 1


def memory_parts(query: FitQuery, model: ModelSpec) -> MemoryParts:
    stack = profile(query.stack)
    model = stored_model(model, stack)
    w_split, g_split, o_split = _splits(query)
    sharded = query.shard in (Sharding.ZERO3, Sharding.FSDP)
    full = query.method is Method.FULL

    weights = _weight_bytes(query, model, stack)
    # The quantisation statistics stay whole on every GPU: only the packed weights are sharded.
    stats = quant_stats_bytes(query, model) if sharded and query.gpus > 1 else 0.0
    weights -= stats
    gradients = optimizer = adapters = buffers = paged = 0.0
    adapter_gradients = adapter_optimizer = 0.0
    in_backward = _update_in_backward(query)
    if full:
        trainable = model.total_params
        gradients = trainable * _state_bytes(query.precision)
        if in_backward:
            gradients = in_backward_gradient_params(model) * _state_bytes(query.precision)
        state = _full_optimizer_bytes(query, model, _state_bytes(query.precision))
        optimizer, paged = state.total, state.paged
    else:
        trainable = lora_params(model, query.lora_rank, query.targets, query.head_adapter)
        width = _adapter_width(query, stack)
        state = _adapter_optimizer_bytes(query, model, width)
        adapter_gradients = trainable * width
        adapter_optimizer, paged = state.total, state.paged
        adapters = trainable * width + adapter_gradients + adapter_optimizer

    if query.offload is not Offload.NONE:
        # ZeRO-Offload / FSDP CPUOffload: optimizer state, fp32 masters and the reduced
        # gradients live in host RAM; the GPU keeps 16-bit weights (or, with params
        # offloaded, only the layers being computed).
        optimizer = 0.0
        gradients = 0.0
        if full and query.precision in (Precision.MIXED, Precision.FP32):
            weights = model.total_params * 2.0
        if not full:
            adapters = trainable * _adapter_width(query, stack)  # weights stay; state goes
            adapter_gradients = adapter_optimizer = 0.0
        paged = 0.0
    root = _root_bytes(query, model, stack, weights) if sharded and query.gpus > 1 else 0.0
    weights_stored = weights
    layer_weights = (weights - root) / max(1, model.layers)
    shard = weights - root
    root_shard = root  # the root's own share of the shard, split below like the rest
    # Parameters of the gathered layer and the root unit, whose gradients stay unsharded
    # until their reduce-scatter.
    unsharded = (layer_weights + root) / (weights_stored / model.total_params)
    if sharded and full and query.precision is Precision.MIXED and query.offload is Offload.NONE:
        # Sharded mixed precision keeps the fp32 flat parameters as the shard and gathers
        # 16-bit copies of a unit for its compute (FSDP MixedPrecision param_dtype; HF's
        # FSDP path upcasts a 16-bit-loaded model's flat params to fp32 under --bf16:
        # huggingface/accelerate accelerator.py prepare_model @9557598c, v0.30): no
        # whole-model 16-bit copy as under plain autocast.
        per_param = weights / model.total_params
        shard = shard * 4.0 / per_param
        root_shard = root * 4.0 / per_param
        layer_weights = layer_weights * 2.0 / per_param
        root = root * 2.0 / per_param
    elif _lora_flat_params_upcast(query, stack) and query.offload is Offload.NONE:
        # accelerate upcasts every FSDP flat parameter that requires grad to fp32 under
        # --bf16/--fp16 (accelerator.py prepare_model @16cb6eb80d: `param.requires_grad` and
        # not fp32 -> `param.data.to(torch.float32)`); with use_orig_params a decoder layer's
        # flat parameter requires grad when its LoRA does, so the frozen 16-bit base weights
        # of every layer are sharded as fp32 and gathered as 16-bit copies. The root unit
        # (embeddings, lm_head, frozen) keeps its 16 bits.
        shard = shard * 2.0
    # What the optimizer step sees: the stored weights without the copies made for compute
    # (autocast's 16-bit cache is cleared when the forward's autocast region exits; FSDP
    # reshards every unit after backward).
    if full and query.precision is Precision.MIXED and not sharded:
        step_weights = model.total_params * 4.0
    else:
        step_weights = weights_stored
    if sharded:
        step_weights = (shard + root_shard) / w_split
        on_gpu = 0.0 if query.offload is Offload.PARAMS else shard / w_split
        # The root unit (embeddings, final norm, lm_head: what the per-layer wrap policy
        # leaves outside the blocks) stays whole on every GPU from its all-gather in forward
        # to the end of backward: torch FSDP "does not free the root's parameters in the
        # post-forward ... they are immediately used for backward" (_runtime_utils
        # _post_forward; fully_shard's root reshard_after_forward=False likewise).
        weights = on_gpu + GATHERED_LAYERS * layer_weights + root + stats
        step_weights += stats
        if full and query.gpus > 1:
            # The gathered layers' (and the root's) gradients exist unsharded until their
            # reduce-scatter: one layer's full gradient and the root's beside the shard.
            # With CPU offload too: the shard goes to host RAM only after the reduce-scatter.
            # Under mixed precision they are 16-bit, like the gathered copies they belong to
            # (FSDP MixedPrecision: gradients are computed in param_dtype, reduce-scattered,
            # then kept as the fp32 shard).
            mixed = query.precision is Precision.MIXED and query.offload is Offload.NONE
            width = 2.0 if mixed else _state_bytes(query.precision)
            gradients += unsharded * width * g_split
    elif query.offload is Offload.PARAMS:
        weights = GATHERED_LAYERS * layer_weights  # ZeRO-Infinity style: streamed per layer
    step_gradients = gradients / g_split  # before the unsharded ones were added
    if sharded and full and query.gpus > 1:
        step_gradients = trainable * _state_bytes(query.precision) / g_split
        if in_backward:
            step_gradients = in_backward_gradient_params(model) * _state_bytes(query.precision)
            step_gradients /= g_split
    gradients /= g_split
    optimizer /= o_split
    paged /= o_split
    if not full and sharded:
        adapters /= o_split
        adapter_gradients /= o_split
        adapter_optimizer /= o_split
    temporaries = _optimizer_step_bytes(query, stack, trainable) / o_split
    if query.offload is not Offload.NONE or in_backward:
        temporaries = 0.0  # the step runs on the CPU copy, or one parameter at a time
    if query.offload is not Offload.NONE:
        step_weights = weights  # what stays on the GPU; the step itself runs on the CPU
        step_gradients = gradients
    if not query.holds_gradients:
        gradients = 0.0  # freed by the last step; backward rebuilds them (step_gradients)
    elif _accumulates_unsharded_gradients(query, stack):
        # Every block's flat parameter holds frozen weights beside its adapters, so its
        # gradient is as large as the block; under no_sync it stays unsharded.
        gradients += (model.total_params - model.embedding_params) * base_width(query)

    if query.shard is Sharding.ZERO2:
        buffers += _zero2_bucket_bytes(query, model)
    if query.gpus > 1:
        buffers += NCCL_BUFFERS_GIB * GIB
        if query.shard is Sharding.DDP:
            # DDP copies every gradient into its all-reduce buckets (gradient_as_bucket_view
            # is off by default: "the saved memory size will be equal to the total gradients
            # size", torch DDP docs).
            grad_width = _state_bytes(query.precision) if full else stack.adapter_bytes
            buffers += trainable * grad_width

    copies = _saved_module_bytes(query, model, stack)
    weights += copies.weights
    step_weights += copies.weights
    gradients += copies.gradients / g_split if query.holds_gradients else 0.0
    step_gradients += copies.gradients / g_split
    optimizer += copies.optimizer / o_split
    paged += copies.paged / o_split
    temporaries += copies.temporaries / o_split
    if query.gpus > 1 and query.shard is Sharding.DDP:
        buffers += copies.gradients
    trainable += saved_module_params(query, model)

    loss_whole, loss_per_target = _adaptive_loss(query, model, stack)
    return MemoryParts(
        weights=weights,
        adapters=adapters,
        gradients=gradients,
        optimizer=optimizer,
        layer_activations=_layer_activations(query, model, stack),
        logits=_logits(query, model, stack),
        buffers=buffers,
        trainable_params=trainable,
        adapter_gradients=adapter_gradients,
        adapter_optimizer=adapter_optimizer,
        paged=paged,
        loss_whole=loss_whole,
        loss_per_target=loss_per_target,
        step_weights=step_weights,
        step_gradients=step_gradients,
        step_temporaries=temporaries,
    )


def estimate_memory(
    query: FitQuery,
    model: ModelSpec,
    calibration: Calibration = CALIBRATION,
    card_gib: float | None = None,
) -> MemoryEstimate:
    """The run's peak per GPU; on a card of `card_gib` usable GiB when named (what an
    adaptive loss takes and what paged state stays resident depend on the card's room)."""
    return estimate_from_parts(memory_parts(query, model), calibration, card_gib)


def estimate_from_parts(
    parts: MemoryParts, calibration: Calibration = CALIBRATION, card_gib: float | None = None
) -> MemoryEstimate:
    """`estimate_memory` from parts computed once: the fit table and the accuracy bench
    apply each card and each set of constants to the same parts."""
    base = parts.layer_activations * calibration.activation_factor + parts.logits
    room = _loss_room(parts, calibration, card_gib)
    activations = base + room
    allocated = parts.allocated(activations)
    weights, gradients, optimizer = parts.weights, parts.gradients, parts.optimizer
    if parts.step_peak(activations):
        # The optimizer step peaks: the breakdown is that moment's, with no activations.
        weights, gradients, activations = parts.step_weights, parts.step_gradients, 0.0
        optimizer += parts.step_temporaries
        room = 0.0
    torch_bytes = allocated - parts.paged
    slack = torch_bytes * calibration.allocator_slack
    spilled = 0.0
    if card_gib is not None:
        # Managed pages beyond what the card has left live in host RAM.
        left = card_gib * GIB - torch_bytes - slack - calibration.cuda_context_gib * GIB
        spilled = parts.paged - min(parts.paged, max(0.0, left))
    return MemoryEstimate(
        weights=weights / GIB,
        adapters=parts.adapters / GIB,
        gradients=gradients / GIB,
        optimizer=optimizer / GIB,
        activations=activations / GIB,
        context=calibration.cuda_context_gib,
        slack=slack / GIB,
        trainable_params=parts.trainable_params,
        buffers=parts.buffers / GIB,
        adapter_gradients=parts.adapter_gradients / GIB,
        adapter_optimizer=parts.adapter_optimizer / GIB,
        paged=parts.paged / GIB,
        spilled=spilled / GIB,
        loss_room=room / GIB,
    )


def _loss_room(parts: MemoryParts, calibration: Calibration, card_gib: float | None) -> float:
    """What an adaptive fused loss takes above its minimum (counted in `parts.logits`): one
    chunk's working memory at its largest over the run. A batch whose fp32 logits fit the
    target runs as one chunk, a longer one in a multiple of 4 chunks that each do
    (`get_chunk_size`: ceil(exact / 4) * 4), so a 4-chunk batch takes less than a shorter
    one-chunk batch; batches of every length up to the cap come by, and the worst is the
    longest batch, or the one whose fp32 logits just fill the target.

    The target is half of what the card has free at the *first* call, capped: unsloth_zoo
    caches it (`functools.cache` on `_get_chunk_multiplier`). At that call the first step's
    optimizer state and gradients do not exist yet (AdamW creates its state in the first
    `step`), and the first batch may be a short one, so what it holds is only the weights and
    the adapters' own parameters. Sizing the target on that moment is the safe side for
    every first batch, and keeps the peak growing with the context cap and the batch: a
    target taken at the cap's activations made a longer cap size a smaller peak. With no
    card named, the cap (a card with room)."""
    if parts.loss_whole <= 0:
        return 0.0
    target = ADAPTIVE_LOSS_TARGET_CAP_GIB
    if card_gib is not None:
        held = parts.weights + parts.adapters - parts.adapter_gradients - parts.adapter_optimizer
        held = held * (1 + calibration.allocator_slack) + calibration.cuda_context_gib * GIB
        free = max(0.0, card_gib * GIB - held) / GIB
        target = min(target, ADAPTIVE_LOSS_FREE_SHARE * free)
    working = min(parts.loss_whole, target * parts.loss_per_target)
    return max(0.0, working - parts.logits)


def loss_of(query: FitQuery) -> Loss:
    """The loss kind the run uses: the one asked for, else the stack's default."""
    return query.loss or profile(query.stack).default_loss
