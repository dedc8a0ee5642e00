"""Peak GPU memory of one fine-tuning run, per GPU, by component.

Everything is computed in bytes from the model's architecture and reported in GiB (2^30 bytes),
which is what torch and nvidia-smi show. The model is first-principles (what PyTorch keeps
alive at the peak of a training step) with a handful of constants calibrated against the
published measurements in shared/data/vram_calibration.csv; `bench/estimator_accuracy.py`
prints how close it comes.

The peak is taken at the end of a micro-batch's forward pass: weights, optimizer state,
gradients (kept across micro-batches by gradient accumulation), every saved activation and
the logits of the loss all live at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.query import (
    Attention,
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
from estimator.specs import GIB, MlpKind, ModelSpec

# --- calibrated constants (see bench/estimator_accuracy.py) ---------------------------------

# CUDA context + cuBLAS/cuDNN workspaces, visible in nvidia-smi but not to the allocator.
CUDA_CONTEXT_GIB = 1.0
# Allocator slack: reserved minus allocated, from caching and fragmentation.
ALLOCATOR_SLACK = 0.07
# bitsandbytes QLoRA training keeps more than the NF4 storage (dequantisation workspace);
# the research note's 0.35 GB per billion is mostly activations, counted below, so the
# weight-proportional part that the calibration leaves is small.
BNB_TRAINING_BYTES_PER_PARAM = 0.10
# ...and saves extra 16-bit copies around each 4-bit matmul: about three per token for the
# hidden and intermediate widths of every stored layer (fitted on litgpt's QLoRA rows).
BNB_ACTIVATION_BYTES = 6.0
# Autograd keeps a few tensors per layer beyond the ones counted below (rotary copies,
# dropout masks, dtype casts); calibrated as a multiplier on the counted activations.
ACTIVATION_FACTOR = 1.10
# Bytes per token-per-vocab-entry for the loss: a plain loss keeps bf16 logits, their fp32
# upcast and a bf16 gradient; chunked CE about one 16-bit copy; fused kernels (Unsloth's CCE,
# Liger) almost nothing.
LOGIT_BYTES = {Loss.NAIVE: 8.0, Loss.CHUNKED: 2.0, Loss.FUSED: 0.2}
# transformers' loss upcasts the logits to fp32 and keeps an fp32 log-softmax for backward;
# litgpt keeps its bf16 logit chunks and their fp32 losses alive into backward.
STACK_LOGIT_BYTES = {
    (Stack.HF, Loss.NAIVE): 12.0,
    (Stack.LITGPT, Loss.CHUNKED): 8.0,
    # Unsloth's chunked Triton loss still materialises bf16 logits and an fp32 working copy.
    (Stack.UNSLOTH, Loss.CHUNKED): 6.0,
}
# torch.compile's fusions drop about a fifth of the saved activations (torchtune 3B table).
COMPILED_ACTIVATION_FACTOR = 0.8
# A LoRA adapter on lm_head adds its own V-wide output and the sum with the frozen head.
HEAD_ADAPTER_LOGIT_BYTES = 4.0
# Stacks whose 4-bit path keeps the bitsandbytes training buffers (Unsloth, torchao do not).
BNB_STACKS = frozenset({Stack.HF, Stack.LITGPT})
# Unsloth's offloaded checkpointing: ~0.21 MB per token for an 8B model, i.e. about one
# layer's activations (plus a little) stay on the GPU per token.
OFFLOADED_LAYERS_ON_GPU = 1.1

NF4_BYTES = 0.5 + 4 / 64  # 4 bits + one fp32 absmax per 64 weights
NF4_DQ_BYTES = 0.5 + 1 / 64 + 4 / (64 * 256)  # absmax quantised to 8 bits (double quant)


@dataclass(frozen=True)
class MemoryEstimate:
    """Per-GPU GiB by component. `peak` is what must fit on the card (nvidia-smi view)."""

    weights: float
    adapters: float  # LoRA weights + their gradients + their optimizer state
    gradients: float
    optimizer: float
    activations: float  # saved activations + logits/loss at the peak moment
    context: float  # CUDA context and library workspaces
    slack: float  # allocator cache and fragmentation
    trainable_params: int
    paged_optimizer: bool = False

    @property
    def overhead(self) -> float:
        return self.context + self.slack

    @property
    def allocated(self) -> float:
        """What torch.cuda.max_memory_allocated would report."""
        return self.weights + self.adapters + self.gradients + self.optimizer + self.activations

    @property
    def reserved(self) -> float:
        """What torch.cuda.max_memory_reserved would report."""
        return self.allocated + self.slack

    @property
    def peak(self) -> float:
        return self.reserved + self.context

    def breakdown(self) -> dict[str, float]:
        return {
            "weights": self.weights,
            "adapters": self.adapters,
            "gradients": self.gradients,
            "optimizer": self.optimizer,
            "activations": self.activations,
            "overhead": self.overhead,
        }


# --- parameter counts -----------------------------------------------------------------------


def linear_params(model: ModelSpec) -> int:
    """Parameters in the blocks' linear layers: what bitsandbytes quantises."""
    attention = model.hidden * (2 * model.q_dim + 2 * model.kv_dim)
    mlp = model.mlp_matrices * model.hidden * model.intermediate * max(1, model.experts)
    shared = model.mlp_matrices * model.hidden * model.shared_expert_intermediate
    router = model.hidden * model.experts if model.experts > 1 else 0
    per_layer = attention + mlp + shared + router
    # Never more than what the model has outside its embeddings (guards odd catalog rows).
    return min(per_layer * model.layers, model.total_params - model.embedding_params)


def lora_params(model: ModelSpec, rank: int, targets: Targets, with_head: bool = False) -> int:
    """r·(in + out) for every adapted linear, with the real GQA shapes."""
    h, q, kv, inter = model.hidden, model.q_dim, model.kv_dim, model.intermediate
    per_layer = rank * ((h + q) + (h + kv))  # q and v
    if targets in (Targets.ATTN, Targets.ALL):
        per_layer += rank * ((h + kv) + (q + h))  # k and o
    if targets is Targets.ALL:
        experts = max(1, model.experts)
        per_layer += rank * model.mlp_matrices * (h + inter) * experts
    total = per_layer * model.layers
    if with_head:
        total += rank * (h + model.vocab)
    return total


# --- the components -------------------------------------------------------------------------


def _state_bytes(precision: Precision) -> float:
    """Bytes of one stored copy of a trainable tensor (weight master, gradient, Adam moment)."""
    return 2.0 if precision in (Precision.BF16, Precision.FP16) else 4.0


def _optimizer_bytes(optimizer: Optimizer, precision: Precision) -> float:
    """Optimizer state per trainable parameter."""
    if optimizer in (Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT):
        return 2.0 + 8 / 2048  # two 8-bit moments + block-wise fp32 scales
    if optimizer is Optimizer.ADAFACTOR:
        return 0.05  # factored second moment: rows + columns, no first moment
    if optimizer is Optimizer.SGD:
        return _state_bytes(precision)  # one momentum buffer
    return 2 * _state_bytes(precision)  # AdamW: two moments


def _weight_bytes(query: FitQuery, model: ModelSpec) -> float:
    params = model.total_params
    if query.method is Method.QLORA:
        quantised = linear_params(model)
        per = NF4_DQ_BYTES if query.double_quant else NF4_BYTES
        rest = params - quantised  # embeddings, lm_head and norms stay 16-bit
        extra = BNB_TRAINING_BYTES_PER_PARAM if query.stack in BNB_STACKS else 0.0
        return quantised * (per + extra) + rest * 2.0
    if query.precision is Precision.FP32:
        return params * 4.0
    if query.precision is Precision.MIXED and query.method is Method.FULL:
        # fp32 master weights, plus the bf16 copies autocast caches for the forward pass.
        return params * (4.0 + 2.0)
    return params * 2.0


def _activation_elements_per_token(query: FitQuery, model: ModelSpec) -> float:
    """Elements autograd saves per token in one block (flash/SDPA attention).

    Frozen linears need only their weight for the input gradient, so their inputs are saved
    only when something trainable (the weight itself in full fine-tuning, or a LoRA adapter)
    consumes them.
    """
    h, q, kv = model.hidden, model.q_dim, model.kv_dim
    inter = model.intermediate * max(1, model.active_experts if model.experts > 1 else 1)
    inter += model.shared_expert_intermediate
    full = query.method is Method.FULL
    targets = query.targets

    elements = 2.0 * h  # inputs of the two norms (residual stream)
    elements += q + 2 * kv + q  # q, k, v and the attention output, kept by flash attention
    # MLP nonlinearity: gated keeps gate, up and act(gate); plain keeps fc1's output.
    elements += (3 if model.mlp is MlpKind.GATED else 1) * inter
    elements += h  # normed input of q, k, v: q and v carry adapters under every target set
    if full or targets is Targets.ALL:
        elements += h + inter  # inputs of gate/up (fc1) and of down (fc2)
    if not full:
        elements += _lora_intermediate(query, model)
    return elements * ACTIVATION_FACTOR


def _lora_intermediate(query: FitQuery, model: ModelSpec) -> float:
    """LoRA keeps x·A (rank elements) per adapted module, plus a dropout copy of x."""
    modules = {Targets.QV: 2, Targets.ATTN: 4, Targets.ALL: 4 + model.mlp_matrices}[query.targets]
    return float(modules * query.lora_rank)


def _activation_bytes(query: FitQuery, model: ModelSpec) -> float:
    tokens = query.micro_batch * query.ctx * query.fill
    per_layer_token = _activation_elements_per_token(query, model) * 2.0  # 16-bit
    if query.method is Method.QLORA and query.stack in BNB_STACKS:
        per_layer_token += BNB_ACTIVATION_BYTES * (model.hidden + model.intermediate)
    if query.attention is Attention.EAGER:
        # softmax input and output: heads × s per token, in 16-bit, plus fp32 upcast.
        per_layer_token += model.heads * query.ctx * query.fill * (2 + 2)
    if query.compiled:
        per_layer_token *= COMPILED_ACTIVATION_FACTOR
    one_layer = tokens * per_layer_token
    if query.grad_checkpointing is Checkpointing.OFF:
        stored = one_layer * model.layers
    elif query.grad_checkpointing is Checkpointing.ON:
        # Each layer's input is kept; one layer is recomputed at a time during backward.
        stored = tokens * model.hidden * 2.0 * model.layers + one_layer
    else:
        stored = one_layer * OFFLOADED_LAYERS_ON_GPU
    logit_bytes = STACK_LOGIT_BYTES.get((query.stack, query.loss), LOGIT_BYTES[query.loss])
    if query.train_embeddings and query.method is not Method.FULL:
        logit_bytes += HEAD_ADAPTER_LOGIT_BYTES
    logits = tokens * model.vocab * logit_bytes
    return stored + logits


def _shards(query: FitQuery) -> tuple[int, int, int]:
    """How many ways (weights, gradients, optimizer state) are split across the GPUs."""
    n = max(1, query.gpus)
    if query.shard in (Sharding.ZERO3, Sharding.FSDP):
        return n, n, n
    if query.shard is Sharding.ZERO2:
        return 1, n, n
    return 1, 1, 1


def estimate_memory(query: FitQuery, model: ModelSpec) -> MemoryEstimate:
    w_split, g_split, o_split = _shards(query)
    # ZeRO-3 on one GPU still matters: with CPU offload the weights live in host RAM.
    sharded = query.shard in (Sharding.ZERO3, Sharding.FSDP)
    trainable_full = query.method is Method.FULL
    with_head = query.train_embeddings

    weights = _weight_bytes(query, model)
    if sharded:
        # The layer being computed is gathered whole (and the next one prefetched).
        gathered = 2 * (weights / max(1, model.layers))
        weights = (0.0 if query.cpu_offload else weights / w_split) + gathered

    gradients = optimizer = adapters = 0.0
    if trainable_full:
        trainable = model.total_params
        grad_bytes = trainable * _state_bytes(query.precision)
        if query.optimizer_in_backward:
            grad_bytes = grad_bytes / max(1, model.layers)  # one layer's grads at a time
        gradients = grad_bytes / g_split
        optimizer = trainable * _optimizer_bytes(query.optimizer, query.precision) / o_split
        if query.cpu_offload:
            optimizer = 0.0
    else:
        trainable = lora_params(model, query.lora_rank, query.targets, with_head)
        # PEFT under HF's mixed precision keeps adapters in fp32; pure bf16 keeps them 16-bit.
        adapter_precision = query.precision
        per = 2 * _state_bytes(adapter_precision) + _optimizer_bytes(
            query.optimizer, adapter_precision
        )
        adapters = trainable * per / o_split

    # Gradients and activations are counted together: with gradient accumulation (the usual
    # case) the gradients persist while the next micro-batch stores its activations.
    activations = _activation_bytes(query, model)
    allocated = weights + adapters + gradients + optimizer + activations
    slack = allocated * ALLOCATOR_SLACK
    return MemoryEstimate(
        weights=weights / GIB,
        adapters=adapters / GIB,
        gradients=gradients / GIB,
        optimizer=optimizer / GIB,
        activations=activations / GIB,
        context=CUDA_CONTEXT_GIB,
        slack=slack / GIB,
        trainable_params=trainable,
        paged_optimizer=query.optimizer is Optimizer.PAGED_ADAMW_8BIT,
    )
