"""Peak GPU memory of one fine-tuning run, per GPU, by component.

Everything is computed in bytes from the model's architecture and the training stack's own
behaviour (`estimator.stacks`, read from each stack's code) and reported in GiB (2^30 bytes),
which is what torch and nvidia-smi show. Three constants are fitted (`Calibration`): what
autograd keeps beyond the tensors counted here, the allocator's slack and the CUDA context.
`bench/estimator_accuracy.py` fits them leaving one source out at a time and prints how close
the estimate comes on the source it did not see.

The peak is the larger of two moments. The end of a micro-batch's forward pass: weights,
optimizer state, gradients (kept across micro-batches by gradient accumulation), every saved
activation and the logits of the loss all live at once. And the optimizer step: the stored
weights, the full gradients, the optimizer state and foreach AdamW's temporaries, with the
activations freed (what peaks for large trainable state and short batches).

Activation terms that grow with micro-batch x ctx (everything a layer saves per token) are
kept apart from the one that grows with micro-batch x ctx² (eager attention's score matrices).
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.query import (
    Attention,
    Checkpointing,
    FitQuery,
    Loss,
    Method,
    Offload,
    Optimizer,
    Precision,
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


# Fitted on all 158 scored rows of tests/fixtures/estimator/vram_calibration.csv within the
# brackets of docs/estimator.md (`bench.estimator_accuracy.RANGES`); the fits that leave one
# source out are printed by the bench beside the error on that source. The counted tensors
# explain the data with no extra factor; the context (0.76 GiB = 0.82 GB) sits inside the
# 0.5-1.5 GB bracket (the HF "Model training anatomy" doc measured 1343 MiB on a V100), the
# slack (1.1 %) near its bracket's low end.
CALIBRATION = Calibration(activation_factor=0.998, cuda_context_gib=0.762, allocator_slack=0.011)

# NF4 storage: 4 bits + one fp32 absmax per 64 weights; double quantisation stores the absmax
# in 8 bits plus one fp32 per 256 blocks (QLoRA paper, arXiv 2305.14314).
NF4_BYTES = 0.5 + 4 / 64
NF4_DQ_BYTES = 0.5 + 1 / 64 + 4 / (64 * 256)
# Eager attention saves, per layer and head, the fp32 softmax output and the 16-bit
# probabilities the value matmul reads: 4 + 2 bytes per score (transformers eager_attention).
EAGER_SCORE_BYTES = 6.0
# Cross-entropy straight on the logits, in their own dtype: the logits, the copy the shifted
# `logits[:, :-1].reshape(...)` makes and log_softmax's saved output, then in backward the
# saved output, its gradient and the input gradient: three logits-sized tensors at either
# peak (torch log_softmax saves its result; nll_loss's gradient has the logits' dtype).
DIRECT_LOSS_COPIES = 3
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
    buffers: float = 0.0  # DDP gradient buckets and NCCL buffers
    # The parts of `adapters` that are the adapters' gradients and optimizer state: the
    # breakdown reports them as gradients and optimizer (they are counted once, in adapters).
    adapter_gradients: float = 0.0
    adapter_optimizer: float = 0.0

    @property
    def overhead(self) -> float:
        return self.context + self.slack + self.buffers

    @property
    def allocated(self) -> float:
        """What torch.cuda.max_memory_allocated would report."""
        return (
            self.weights
            + self.adapters
            + self.gradients
            + self.optimizer
            + self.activations
            + self.buffers
        )

    @property
    def reserved(self) -> float:
        """What torch.cuda.max_memory_reserved would report."""
        return self.allocated + self.slack

    @property
    def peak(self) -> float:
        return self.reserved + self.context

    def breakdown(self) -> dict[str, float]:
        """The peak by part, summing to it. A LoRA's gradients and optimizer state are shown
        as such, not inside "adapters", and keep enough digits to read as non-zero."""
        adapter_state = self.adapter_gradients + self.adapter_optimizer
        return {
            "weights": Gib(self.weights),
            "adapters": Gib(self.adapters - adapter_state),
            "gradients": Gib(self.gradients + self.adapter_gradients),
            "optimizer": Gib(self.optimizer + self.adapter_optimizer),
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
    # Bytes an adaptive fused loss takes beyond `logits` when the card has room (Unsloth).
    loss_room: float = 0.0
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


def lora_params(model: ModelSpec, rank: int, targets: Targets, with_head: bool = False) -> int:
    """r·(in + out) for every adapted linear, with the real GQA shapes."""
    h, q, kv, inter = model.hidden, model.q_dim, model.kv_dim, model.intermediate
    per_layer = 0 if targets is Targets.MLP else rank * ((h + q) + (h + kv))  # q and v
    if targets in (Targets.ATTN, Targets.ALL):
        per_layer += rank * ((h + kv) + (q + h))  # k and o
    if targets in (Targets.ALL, Targets.MLP):
        experts = max(1, model.experts)
        per_layer += rank * model.mlp_matrices * (h + inter) * experts
    total = per_layer * model.layers
    if with_head:
        total += rank * (h + model.vocab)
    return total


# --- weights and trainable state ------------------------------------------------------------


def _state_bytes(precision: Precision) -> float:
    """Bytes of one stored copy of a trainable tensor (weight master, gradient, Adam moment)."""
    return 2.0 if precision in (Precision.BF16, Precision.FP16) else 4.0


def _optimizer_bytes(optimizer: Optimizer, state: float) -> float:
    """Optimizer state per trainable parameter, `state` bytes per moment for full-width ones."""
    if optimizer in (Optimizer.ADAMW_8BIT, Optimizer.PAGED_ADAMW_8BIT):
        return 2.0 + 8 / 2048  # two 8-bit moments + block-wise fp32 scales (bitsandbytes)
    if optimizer is Optimizer.ADAMW_4BIT:
        # Two 4-bit moments with one fp32 scale per block of 128 each (torchao
        # prototype/low_bit_optim README: "block size is ... 128 for 4-bit optimizers";
        # arXiv 2309.01507).
        return 2 * 0.5 + 2 * 4 / 128
    if optimizer is Optimizer.ADAFACTOR:
        return 0.05  # factored second moment: rows + columns, no first moment
    if optimizer is Optimizer.SGD:
        return state  # one momentum buffer
    return 2 * state  # AdamW: two moments


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


def _kbit_upcast(query: FitQuery, stack: StackProfile) -> bool:
    # TRL's SFTTrainer skips prepare_model_for_kbit_training for sharded QLoRA (FSDP/ZeRO-3
    # with bnb_4bit_quant_storage), so sharded runs keep 16-bit embeddings and norms.
    sharded = query.gpus > 1 and query.shard in (Sharding.ZERO3, Sharding.FSDP)
    return query.method is Method.QLORA and stack.kbit_upcast and not sharded


def _weight_bytes(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    params = model.total_params
    if query.method is Method.QLORA:
        quantised = (
            linear_params(model)
            if stack.quantizes_all_linears
            else adapted_linear_params(model, query.targets)
        )
        per = NF4_DQ_BYTES if query.double_quant else NF4_BYTES
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


def _root_bytes(query: FitQuery, model: ModelSpec, stack: StackProfile, weights: float) -> float:
    """Bytes of what sits outside the transformer blocks and stays whole on every GPU:
    embeddings and lm_head (the final norm is too small to count), at the width the weights
    are stored in (`weights`, after offload). Where the stack shards them as their own units,
    only lm_head is whole, and only at the loss (the peak)."""
    if query.method is Method.QLORA:  # not quantised: 16-bit, or fp32 after k-bit prep
        width = 4.0 if _kbit_upcast(query, stack) or query.precision is Precision.FP32 else 2.0
    else:
        width = weights / model.total_params
    params = model.vocab * model.hidden if stack.shards_embeddings else model.embedding_params
    return params * width


def _adapter_width(query: FitQuery, stack: StackProfile) -> float:
    """Bytes of one stored copy of a LoRA parameter (its weight, or its gradient)."""
    return 4.0 if query.precision is Precision.FP32 else float(stack.adapter_bytes)


def _adapter_bytes(query: FitQuery, stack: StackProfile) -> float:
    """Bytes per LoRA parameter: weight, gradient and optimizer state."""
    width = _adapter_width(query, stack)
    return 2 * width + _optimizer_bytes(query.optimizer, width)


# --- activations ----------------------------------------------------------------------------


def _residual_bytes(query: FitQuery, stack: StackProfile) -> float:
    """The residual stream's dtype: fp32 once embeddings are fp32 (k-bit prep) or in fp32."""
    return 4.0 if _kbit_upcast(query, stack) or query.precision is Precision.FP32 else 2.0


def _layer_bytes_per_token(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    """Bytes one block saves for backward per token (flash/SDPA attention, no s² term).

    Frozen linears need only their weight for the input gradient, so their inputs are saved
    only when something consumes them in backward: the weight itself (full fine-tuning), a
    LoRA adapter, or bitsandbytes' MatMul4Bit (which keeps every input).
    """
    h, q, kv = model.hidden, model.q_dim, model.kv_dim
    inter = model.intermediate * (model.active_experts if model.experts > 1 else 1)
    inter += model.shared_expert_intermediate
    act = 4.0 if query.precision is Precision.FP32 else 2.0
    residual = _residual_bytes(query, stack)
    full = query.method is Method.FULL
    bnb = query.method is Method.QLORA and stack.bnb_saves_inputs
    targets = query.targets
    gated = model.mlp is MlpKind.GATED

    # The two norms' own saves. torch.compile (inductor) recomputes the fp32 upcast instead
    # of saving it, like the fused kernels do; with fp32 residuals both copies are fp32.
    norm = 2.0 if query.compiled else stack.norm_bytes
    if residual == 4.0:
        norm = max(norm, 8.0) if not query.compiled else 4.0
    total = 2 * h * norm
    total += act * (q + 2 * kv)  # q, k, v after rotary, saved by flash attention
    total += act * q  # attention output: flash saves it, o_proj reads it
    # MLP: gated saves gate and up (and act(gate), which compile recomputes); plain fc1 out.
    mlp_saved = (2 if query.compiled else 3) if gated else 1
    total += act * mlp_saved * inter
    # Inputs of linears: normed x for q/k/v (kept when q and v carry adapters), normed x for
    # the MLP, and the down projection's input.
    if full or bnb or targets is not Targets.MLP:
        total += act * h
    if full or bnb or targets in (Targets.ALL, Targets.MLP):
        total += act * (h + inter)
    if not full:
        total += act * _lora_saved_elements(query, model, stack)
    return total


def _lora_saved_elements(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    """Per token: x·A (rank elements) per adapted module, plus a dropped-out copy of the
    module's input (and its one-byte mask, counted as half an element) where the stack's
    recipes use lora_dropout > 0."""
    h, q, inter = model.hidden, model.q_dim, model.intermediate
    mlp = [h, h, inter] if model.mlp is MlpKind.GATED else [h, inter]
    inputs = {
        Targets.QV: [h, h],
        Targets.ATTN: [h, h, h, q],
        Targets.MLP: mlp,
        Targets.ALL: [h, h, h, q, *mlp],
    }[query.targets]
    elements = float(len(inputs) * query.lora_rank)
    if stack.lora_dropout:
        elements += 1.5 * sum(inputs)
    return elements


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
    seq = query.ctx * query.fill
    tokens = query.micro_batch * seq
    one_layer = tokens * _layer_bytes_per_token(query, model, stack)
    if _attention(query, model) is Attention.EAGER:
        one_layer += query.micro_batch * model.heads * seq * seq * EAGER_SCORE_BYTES
    checkpoint = tokens * model.hidden * _residual_bytes(query, stack)  # one layer's input
    layers = model.layers
    gc = query.grad_checkpointing
    if gc is Checkpointing.OFF:
        return one_layer * layers
    if gc is Checkpointing.ON:
        # Each layer's input is kept; one layer is recomputed at a time during backward.
        return checkpoint * layers + one_layer
    if gc is Checkpointing.SELECTIVE_OP:
        # torchtitan's op policy (parallelize_llama.py _save_list @9dec370) saves the attention
        # kernel's output and the output of every odd-numbered matmul of a block, counting in
        # forward order (q, k, v, o, then gate, up, down): q, v, gate and down for a gated MLP,
        # q, v and fc1 for a plain one; the block's input is kept as the checkpoint, and one
        # block is recomputed at a time in backward.
        act = 4.0 if query.precision is Precision.FP32 else 2.0
        inter = model.intermediate * (model.active_experts if model.experts > 1 else 1)
        mlp_saved = inter + model.hidden if model.mlp is MlpKind.GATED else inter
        saved = act * (model.q_dim + model.kv_dim + model.q_dim + mlp_saved)
        return (checkpoint + tokens * saved) * layers + one_layer
    if gc is Checkpointing.SELECTIVE:
        # Every other layer checkpointed (torchtune ac_option=2), the rest keep everything.
        kept = layers // 2
        return one_layer * kept + checkpoint * (layers - kept) + one_layer
    # Offloaded: the checkpoints live in CPU RAM; the GPU holds the layer being recomputed
    # and the input being copied back for the next one.
    return one_layer + 2 * checkpoint


def _logits(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    tokens = query.micro_batch * query.ctx * query.fill
    loss = query.loss or stack.default_loss
    upcast = _kbit_upcast(query, stack)
    # lm_head's dtype, the logits': fp32 when the model is, or when k-bit preparation upcast
    # the head.
    head_bytes = 4.0 if query.precision is Precision.FP32 or upcast else 2.0
    per = DIRECT_LOSS_COPIES * head_bytes if loss is Loss.DIRECT else stack.loss_bytes[loss]
    if query.compiled and loss is Loss.CHUNKED:
        # Compiled, each chunk's upcast, log-softmax and loss fuse into one kernel that saves
        # only the log-sum-exp: the bf16 chunks are all that stays (torchtune 3B table:
        # +compile then +chunked CE took 51.0 to 42.9 GiB).
        per = min(per, 2.0)
    if query.train_embeddings and query.method is not Method.FULL:
        per += HEAD_ADAPTER_LOGIT_BYTES
    logits = tokens * model.vocab * per
    softcaps = _hf_model_code(query) or query.stack.value == "litgpt"
    if model.logit_softcap and softcaps and loss is not Loss.FUSED:
        # The model code soft-caps the logits: transformers' Gemma2ForCausalLM (logits / cap,
        # tanh, * cap; modeling_gemma2.py) and litgpt's GPT.forward (do_softcapping on the
        # whole head or on each lm_head chunk, litgpt/model.py). tanh saves its output for
        # backward: one more logits-sized tensor in lm_head's dtype beside the ones the loss
        # keeps. A fused loss (Unsloth's, Liger's Gemma-2 patch) caps inside its kernel.
        logits += tokens * model.vocab * head_bytes
    if upcast:
        # An fp32 lm_head under bf16 autocast is cast to bf16 for every call: one transient
        # 16-bit copy of the head at the loss.
        logits += 2.0 * model.vocab * model.hidden
    return logits


def _loss_room(query: FitQuery, model: ModelSpec, stack: StackProfile) -> float:
    if stack.loss_expands_to <= 0 or (query.loss or stack.default_loss) is not Loss.FUSED:
        return 0.0
    tokens = query.micro_batch * query.ctx * query.fill
    return tokens * model.vocab * (stack.loss_expands_to - stack.loss_bytes[Loss.FUSED])


# --- sharding -------------------------------------------------------------------------------


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
    w_split, g_split, o_split = _splits(query)
    sharded = query.shard in (Sharding.ZERO3, Sharding.FSDP)
    full = query.method is Method.FULL

    weights = _weight_bytes(query, model, stack)
    gradients = optimizer = adapters = buffers = 0.0
    adapter_gradients = adapter_optimizer = 0.0
    if full:
        trainable = model.total_params
        gradients = trainable * _state_bytes(query.precision)
        if query.optimizer_in_backward:
            gradients /= max(1, model.layers)  # one layer's gradients at a time
        optimizer = trainable * _optimizer_bytes(query.optimizer, _state_bytes(query.precision))
    else:
        trainable = lora_params(model, query.lora_rank, query.targets, query.train_embeddings)
        adapters = trainable * _adapter_bytes(query, stack)
        width = _adapter_width(query, stack)
        adapter_gradients = trainable * width
        adapter_optimizer = trainable * _optimizer_bytes(query.optimizer, width)

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
        weights = on_gpu + GATHERED_LAYERS * layer_weights + root
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
        if query.optimizer_in_backward:
            step_gradients /= max(1, model.layers)
    gradients /= g_split
    optimizer /= o_split
    if not full and sharded:
        adapters /= o_split
        adapter_gradients /= o_split
        adapter_optimizer /= o_split
    temporaries = _optimizer_step_bytes(query, stack, trainable) / o_split
    if query.offload is not Offload.NONE or query.optimizer_in_backward:
        temporaries = 0.0  # the step runs on the CPU copy, or one parameter at a time
    if query.offload is not Offload.NONE:
        step_weights = weights  # what stays on the GPU; the step itself runs on the CPU
        step_gradients = gradients
    if not query.holds_gradients:
        gradients = 0.0  # freed by the last step; backward rebuilds them (step_gradients)

    if query.gpus > 1:
        buffers = NCCL_BUFFERS_GIB * GIB
        if query.shard is Sharding.DDP:
            # DDP copies every gradient into its all-reduce buckets (gradient_as_bucket_view
            # is off by default: "the saved memory size will be equal to the total gradients
            # size", torch DDP docs).
            grad_width = _state_bytes(query.precision) if full else stack.adapter_bytes
            buffers += trainable * grad_width

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
        loss_room=_loss_room(query, model, stack),
        step_weights=step_weights,
        step_gradients=step_gradients,
        step_temporaries=temporaries,
    )


def estimate_memory(
    query: FitQuery, model: ModelSpec, calibration: Calibration = CALIBRATION
) -> MemoryEstimate:
    parts = memory_parts(query, model)
    activations = parts.layer_activations * calibration.activation_factor + parts.logits
    allocated = parts.allocated(activations)
    weights, gradients, optimizer = parts.weights, parts.gradients, parts.optimizer
    if parts.step_peak(activations):
        # The optimizer step peaks: the breakdown is that moment's, with no activations.
        weights, gradients, activations = parts.step_weights, parts.step_gradients, 0.0
        optimizer += parts.step_temporaries
    return MemoryEstimate(
        weights=weights / GIB,
        adapters=parts.adapters / GIB,
        gradients=gradients / GIB,
        optimizer=optimizer / GIB,
        activations=activations / GIB,
        context=calibration.cuda_context_gib,
        slack=allocated * calibration.allocator_slack / GIB,
        trainable_params=parts.trainable_params,
        paged_optimizer=query.optimizer is Optimizer.PAGED_ADAMW_8BIT,
        buffers=parts.buffers / GIB,
        adapter_gradients=parts.adapter_gradients / GIB,
        adapter_optimizer=parts.adapter_optimizer / GIB,
    )


def loss_of(query: FitQuery) -> Loss:
    """The loss kind the run uses: the one asked for, else the stack's default."""
    return query.loss or profile(query.stack).default_loss
