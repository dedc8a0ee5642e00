"""What the user asks: a fine-tuning run described by model, method and training levers.

Every field has a documented default (`DEFAULTS_DOC`), so a partly understood question can
still be answered, with the assumed values listed next to the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Method(StrEnum):
    FULL = "full"
    LORA = "lora"
    QLORA = "qlora"


# How the answers and their buttons write each method.
METHOD_NAMES = {Method.FULL: "full", Method.LORA: "LoRA", Method.QLORA: "QLoRA"}


class Optimizer(StrEnum):
    """An optimizer as the estimator sizes it: what it keeps per trainable parameter is in
    `estimator.optimizers.STATES`, and every name the libraries accept maps to one of these
    (`estimator.optimizers.NAMES`)."""

    ADAMW = "adamw"  # two moments in the parameter's dtype (torch AdamW, Adam, NAdam, ...)
    ADAMW_32BIT = "adamw32bit"  # two fp32 moments (bitsandbytes AdamW/Adam/LAMB, 32-bit)
    PAGED_ADAMW = "paged_adamw"  # the same, paged (transformers "paged_adamw_32bit")
    ADAMW_8BIT = "adamw8bit"
    PAGED_ADAMW_8BIT = "paged_adamw8bit"
    ADAMW_4BIT = "adamw4bit"  # torchao AdamW4bit (transformers optim="adamw_torch_4bit")
    ADEMAMIX = "ademamix"  # three fp32 moments (bitsandbytes AdEMAMix)
    ADEMAMIX_8BIT = "ademamix8bit"
    PAGED_ADEMAMIX = "paged_ademamix"
    PAGED_ADEMAMIX_8BIT = "paged_ademamix8bit"
    LION = "lion"  # one fp32 momentum (bitsandbytes Lion)
    LION_8BIT = "lion8bit"
    PAGED_LION = "paged_lion"
    PAGED_LION_8BIT = "paged_lion8bit"
    RMSPROP = "rmsprop"  # one state in the parameter's dtype (torch RMSprop, Adagrad, Muon)
    RMSPROP_32BIT = "rmsprop32bit"  # one fp32 state (bitsandbytes RMSprop/Adagrad/SGD/LARS)
    RMSPROP_8BIT = "rmsprop8bit"
    ADAFACTOR = "adafactor"
    SGD = "sgd"  # torch SGD's default (momentum 0): no state
    SGD_MOMENTUM = "sgd_momentum"  # one momentum buffer
    LOMO = "lomo"  # update fused into backward, no state
    ADALOMO = "adalomo"  # fused into backward, factored second moment
    GALORE = "galore"  # AdamW on a rank-128 projection of each targeted linear's gradient
    GALORE_8BIT = "galore8bit"
    GALORE_ADAFACTOR = "galore_adafactor"
    GALORE_LAYERWISE = "galore_layerwise"
    GALORE_8BIT_LAYERWISE = "galore8bit_layerwise"
    GALORE_ADAFACTOR_LAYERWISE = "galore_adafactor_layerwise"
    APOLLO = "apollo"
    APOLLO_LAYERWISE = "apollo_layerwise"
    GROKADAMW = "grokadamw"  # AdamW's moments and the gradients' EMA
    STABLE_ADAMW = "stable_adamw"  # optimi: AdamW's moments, a Kahan buffer for 16-bit params
    LBFGS = "lbfgs"  # up to 100 pairs of flat history vectors


class Precision(StrEnum):
    """How weights and optimizer state are stored.

    BF16/FP16: "pure" 16-bit (torchtune, litgpt bf16-true): weights, grads and Adam moments
    all 16-bit. MIXED: HF Trainer / AMP: a fp32 master copy of what is trained (and, for
    LoRA, fp32 adapters). FP32: everything 32-bit.
    """

    BF16 = "bf16"
    FP16 = "fp16"
    FP32 = "fp32"
    MIXED = "mixed"


class Checkpointing(StrEnum):
    OFF = "off"
    ON = "on"  # every layer: only its input is kept, the layer is recomputed in backward
    SELECTIVE = "selective"  # every other layer (torchtune ac_mode=selective, ac_option=2)
    # Op-level selective checkpointing (torchtitan selective_ac_option="op"): every layer
    # keeps its input, its attention output and every other matmul output; the rest is
    # recomputed in backward.
    SELECTIVE_OP = "selective_op"
    # Each block's norms, attention and MLP checkpointed as modules of their own (NeMo
    # Automodel): their inputs are kept, one module is recomputed at a time in backward.
    SUBMODULE = "submodule"
    UNSLOTH = "unsloth"  # checkpoints offloaded to CPU RAM (Unsloth's "unsloth" mode)


class Offload(StrEnum):
    """ZeRO/FSDP CPU offload: what lives in host RAM instead of on the GPU."""

    NONE = "none"
    OPTIMIZER = "optimizer"  # optimizer state and fp32 masters (ZeRO offload_optimizer)
    PARAMS = "params"  # also the parameters and gradients (ZeRO-3 offload_param, FSDP)


class Sharding(StrEnum):
    DDP = "ddp"  # every GPU holds everything
    ZERO2 = "zero2"  # gradients and optimizer state sharded
    ZERO3 = "zero3"  # weights too
    FSDP = "fsdp"  # full sharding: same memory as ZeRO-3


class Packing(StrEnum):
    """How examples fill a micro-batch's rows: it decides the tokens a step computes and how
    far each token's attention reaches."""

    NONE = "none"  # one example a row (padded to the longest of its micro-batch)
    PACKED = "packed"  # examples concatenated to ctx; every token attends across them
    VARLEN = "varlen"  # concatenated to ctx; each token attends only within its own example


class Targets(StrEnum):
    QV = "qv"  # q_proj, v_proj (the original LoRA paper, old PEFT default)
    ATTN = "attn"  # q, k, v, o
    ALL = "all"  # every linear layer of the blocks (QLoRA paper, Unsloth, LLaMA-Factory)
    MLP = "mlp"  # gate, up, down only


class Quant(StrEnum):
    """How a QLoRA run's frozen linears are stored."""

    NF4 = "nf4"  # bitsandbytes NF4 (the QLoRA paper; PEFT, Unsloth, torchao's NF4 alike)
    # A GPTQ int4 checkpoint (auto-gptq through transformers' GPTQConfig): packed int4 with
    # an fp16 scale and a packed zero point per group of input rows; PEFT's k-bit preparation
    # leaves its other weights in their 16 bits.
    GPTQ = "gptq"


class Attention(StrEnum):
    FLASH = "flash"  # FlashAttention / SDPA: no s x s score matrices kept
    EAGER = "eager"


class Loss(StrEnum):
    NAIVE = "naive"  # full logits in 16-bit, fp32 upcast and fp32 gradient (HF default)
    CHUNKED = "chunked"  # chunked cross-entropy (torchtune, litgpt): one 16-bit logits copy
    FUSED = "fused"  # fused linear + cross-entropy (Cut Cross-Entropy, Liger): no full logits
    # Unsloth's own fused loss (unsloth_zoo unsloth_fused_ce_loss, from 2025.9): lm_head and
    # the loss chunk by chunk, each chunk as large as the VRAM left allows.
    ADAPTIVE = "adaptive"
    # nn.CrossEntropyLoss straight on the model's logits in their own dtype, no fp32 upcast
    # (custom loops that pass no labels to a transformers >= 4.45 model, whose logits keep
    # lm_head's dtype).
    DIRECT = "direct"


class Stack(StrEnum):
    """The training stack: it decides what the kernels keep besides the tensors themselves.
    What each one keeps, with sources, is in `estimator.stacks`."""

    HF = "hf"  # transformers Trainer / TRL + PEFT + bitsandbytes
    UNSLOTH = "unsloth"  # patched kernels: fused loss, offloaded checkpoints, lean 4-bit
    TORCHTUNE = "torchtune"  # torchao NF4, chunked loss
    LITGPT = "litgpt"  # Lightning's litgpt with bitsandbytes
    AXOLOTL = "axolotl"  # transformers + PEFT, embeddings and norms kept 16-bit
    SWIFT = "swift"  # ModelScope ms-swift (transformers + PEFT)
    LLAMAFACTORY = "llamafactory"  # LLaMA-Factory (transformers + PEFT, no k-bit upcast)


@dataclass(frozen=True)
class FitQuery:
    """One fine-tuning run. `model` is a catalog id or a bare size such as "13b"."""

    model: str
    method: Method = Method.QLORA
    ctx: int = 2048
    micro_batch: int = 1
    lora_rank: int = 16
    targets: Targets = Targets.ALL
    optimizer: Optimizer = Optimizer.ADAMW
    precision: Precision = Precision.MIXED
    grad_checkpointing: Checkpointing = Checkpointing.ON
    gpus: int = 1
    shard: Sharding = Sharding.DDP
    dataset_examples: int | None = None
    tokens_per_example: int | None = None
    dataset_tokens: int | None = None  # the whole dataset in tokens (given as tokens or MB/GB)
    epochs: float = 1.0
    gpu: str | None = None  # canonical GPU id the user asked about
    stack: Stack = Stack.HF
    offload: Offload = Offload.NONE
    # Levers that the command grammar does not expose; the calibration bench sets them.
    # None: what the stack (and, for attention, the model) does by default.
    attention: Attention | None = None
    loss: Loss | None = None
    head_adapter: bool = False  # LoRA on lm_head too (torchtune apply_lora_to_output, litgpt)
    # LoRA: embed_tokens and lm_head trained whole beside the adapters (PEFT modules_to_save:
    # a trainable copy of each, in the base model's dtype, with its gradient and state).
    train_embeddings: bool = False
    optimizer_in_backward: bool = False  # torchtune: the full gradient never exists at once
    # Gradients live through the next forward pass (gradient accumulation: the sizing
    # default). False: each step frees them (zero_grad set_to_none) and backward rebuilds
    # them, so they peak at the optimizer step, with the activations gone.
    holds_gradients: bool = True
    compiled: bool = False  # torch.compile fuses elementwise ops and saves fewer tensors
    # The training loop keeps the model's output, its logits, referenced through backward
    # (NeMo Automodel's train_ft calls `.backward()` with `out` in scope); HF Trainer's
    # compute_loss returns the loss alone, and the logits are freed before backward.
    holds_logits: bool = False
    # The forward runs under torch autocast (HF --bf16/--fp16, accelerate mixed_precision,
    # Lightning's bf16-mixed). False: a model trained in its own dtype ("torch_dtype bfloat16
    # without --bf16", DeepSpeed's 16-bit engine). None: what the precision implies, on for
    # MIXED only (`estimator.memory.autocast_on`).
    autocast: bool | None = None
    double_quant: bool = True  # QLoRA: quantise the NF4 block scales too (bnb default in PEFT)
    # QLoRA on bitsandbytes before 0.43.2: MatMul4Bit kept its input as a plain ctx attribute
    # (`ctx.tensors = (A, B)`, bitsandbytes/autograd/_functions.py until 9e753741), which
    # autograd never releases after backward (only save_for_backward's are; torch's docs warn
    # of the leak): the inputs live as long as the graph does.
    old_bitsandbytes: bool = False
    quant: Quant = Quant.NF4  # QLoRA: how the frozen linears are stored
    # DeepSpeed ZeRO-2's reduce_bucket_size, elements; None: HF's "auto" (hidden x hidden).
    reduce_bucket: int | None = None
    # Share of `ctx` that real batches fill: unpacked instruction data is mostly shorter than
    # its cap. Memory follows the longest batch, so it is 1.0 unless measured otherwise.
    fill: float = 1.0
    extras: tuple[str, ...] = field(default_factory=tuple)
    packing: Packing = Packing.NONE
    # Micro-batches per optimizer step: the step, and DDP's gradient all-reduce, come once
    # per `grad_accum` micro-batches (transformers' gradient_accumulation_steps, default 1).
    grad_accum: int = 1


DEFAULTS_DOC: dict[str, str] = {
    "method": "qlora — the cheapest way to fine-tune; say full or lora for the others",
    "ctx": "2048 tokens — the longest training sample; raised to hold the examples when their"
    " length is given and ctx is not (3500 -> 4096)",
    "bs": "1 — micro-batch per GPU; use gradient accumulation for a larger effective batch",
    "rank": "16 — LoRA rank; above 64 buys little",
    "targets": "all — every linear layer of the blocks (qv, attn, mlp, all)",
    "optim": "adamw — any name transformers, torch, bitsandbytes or torchao accept"
    " (adamw_torch, paged_adamw_32bit, adamw_8bit, adamw_torch_4bit, adafactor, lion_8bit, ...)",
    "precision": "mixed — HF Trainer's AMP: fp32 master weights and adapters (bf16 = pure bf16"
    " weights and states as in torchtune/litgpt, fp16, fp32)",
    "gc": "on — gradient checkpointing (on, off, selective = every other layer, selective_op ="
    " every other matmul output, unsloth ="
    " offloaded to CPU)",
    "gpus": "1",
    "shard": "ddp for one GPU; zero3/fsdp shards weights, zero2 only grads and optimizer",
    "dataset": "none — give the number of examples to get the training time",
    "tokens": "ctx/2 — average tokens per example; a range (1500-3500) gives the longest and"
    " its middle as the average",
    "longest": "none — the longest example in tokens: ctx is raised to hold it",
    "epochs": "1",
    "gpu": "none — a GPU to check first, e.g. gpu=4090",
    "stack": "hf — transformers + PEFT + bitsandbytes (hf, unsloth, torchtune, litgpt, axolotl,"
    " swift, llamafactory)",
    "offload": "none — ZeRO/FSDP CPU offload (none, optimizer, params)",
    "budget": "none — the most you will pay, in ₽ (budget=5000)",
    "vram": "none — the least memory per card, GB as sold (vram=48)",
    "hpm": "none — hours a month the card is used, for hourly against monthly (hpm=60)",
    "loc": "any — ru: only providers in Russia",
    "rate": "none — the most per server-hour, ₽ (rate=300)",
    "gpurate": "none — the most per GPU-hour, ₽: a server's price over its cards (gpurate=600)",
    "mrate": "none — the most per month of rent, ₽ (mrate=200000)",
    "billing": "both — hour or month: the billing to show",
    "loss": "the stack's own — naive (full logits), chunked, fused (Liger, Cut Cross-Entropy),"
    " adaptive (Unsloth's chunks sized to the VRAM left)",
    "packing": "none — one example a row; packed (TRL's packing=True), varlen (padding-free)",
    "ga": "1 — micro-batches per optimizer step (gradient_accumulation_steps)",
}
