"""What each training stack keeps in GPU memory besides the tensors every stack needs.

The same run (model, method, ctx, batch) peaks at very different figures on different stacks,
because their kernels save different tensors for the backward pass. Each profile below states,
with its source, the handful of facts the memory model needs. The facts were read from the
stacks' code (repository and file named in each comment); none is fitted to measurements.

Units: `loss_bytes` is bytes per (token x vocabulary entry) alive at the loss's peak;
`norm_bytes` is bytes saved per RMSNorm/LayerNorm per hidden element per token.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.query import Checkpointing, Loss, Stack


@dataclass(frozen=True)
class StackProfile:
    stack: Stack
    label: str  # how the answer names it: "HF Trainer + PEFT"
    # Bytes per token x vocab entry at the loss, by loss kind (the stack's default first).
    default_loss: Loss
    loss_bytes: dict[Loss, float]
    norm_bytes: float
    # LoRA adapter storage: 4 = fp32 adapters (their Adam moments fp32 too), 2 = bf16.
    adapter_bytes: int
    # QLoRA: PEFT's prepare_model_for_kbit_training casts every non-quantised parameter
    # (embeddings, lm_head, norms) to fp32, and with fp32 embeddings the residual stream and
    # its checkpoints become fp32 too.
    kbit_upcast: bool
    # QLoRA through bitsandbytes: MatMul4Bit saves its input A for backward whenever the input
    # needs a gradient, so every quantised linear keeps its input even without an adapter.
    bnb_saves_inputs: bool
    # QLoRA: whether linears without an adapter are quantised too.
    quantizes_all_linears: bool
    # LoRA dropout > 0 in the stack's recipes: a dropped-out copy of x per adapted module.
    lora_dropout: bool
    # Checkpointing when the user does not say.
    default_gc: Checkpointing
    # An adaptive fused loss (Loss.ADAPTIVE) takes up to this many bytes per token x vocab
    # entry in one chunk when the card has room, and shrinks towards `loss_bytes` when it has
    # not (estimator.memory sizes it on each card).
    loss_expands_to: float = 0.0
    # FSDP: embeddings and lm_head wrapped as their own units, resharded after use, instead
    # of staying whole in the root unit through backward.
    shards_embeddings: bool = False
    # AdamW through torch's foreach implementation (the default on CUDA when neither foreach
    # nor fused is passed), whose step holds a moment-sized temporary for every parameter.
    # HF Trainer's default optim "adamw_torch" (transformers 4.43 training_args.py) builds
    # torch.optim.AdamW without `fused`; so do the stacks built on it, and litgpt.
    adamw_foreach: bool = True
    # FSDP through accelerate (HF Trainer and the stacks built on it), which upcasts the
    # flat parameters that require grad to fp32 under mixed precision.
    accelerate_fsdp: bool = False
    # lm_head is a weight of its own even where the checkpoint ties it to the embeddings.
    separate_head: bool = False
    # QLoRA: lm_head is quantised too, and dequantised whole for every call.
    quantizes_head: bool = False
    # The training loop keeps the previous micro-batch's outputs bound (and with them its
    # autograd graph) until the next forward returns.
    keeps_previous_graph: bool = False
    # FSDP with use_orig_params, gradient accumulation under FSDP's no_sync.
    fsdp_no_sync: bool = False


HF = StackProfile(
    stack=Stack.HF,
    label="HF Trainer + PEFT",
    default_loss=Loss.NAIVE,
    # transformers ForCausalLMLoss (loss_utils.py): bf16 logits stay referenced by the model
    # output, `logits.float()` makes an fp32 copy, cross_entropy saves its fp32 log-softmax,
    # and backward adds an fp32 gradient: 2 + 4 + 4 + (4 - freed fp32 copy) ~ 12 bytes.
    loss_bytes={Loss.NAIVE: 12.0, Loss.CHUNKED: 6.0, Loss.FUSED: 0.5},
    # LlamaRMSNorm (modeling_llama.py): `hidden_states.to(torch.float32)` is saved by pow/mul
    # (4 bytes) and the bf16 normalised tensor by the weight multiply (2 bytes).
    norm_bytes=6.0,
    # PEFT LoraConfig autocast_adapter_dtype=True keeps adapters in fp32.
    adapter_bytes=4,
    # peft/utils/other.py prepare_model_for_kbit_training: "cast all non INT8 parameters to
    # fp32"; TRL's SFTTrainer calls it for every k-bit model given a peft_config.
    kbit_upcast=True,
    # bitsandbytes autograd/_functions.py MatMul4Bit.forward: `ctx.tensors = (A, B)` when any
    # input needs a gradient.
    bnb_saves_inputs=True,
    quantizes_all_linears=True,  # BitsAndBytesConfig quantises every nn.Linear but lm_head
    lora_dropout=True,  # PEFT/TRL examples use lora_dropout 0.05-0.1
    default_gc=Checkpointing.ON,
    accelerate_fsdp=True,
)

UNSLOTH = StackProfile(
    stack=Stack.UNSLOTH,
    label="Unsloth",
    # Unsloth's loss path changed twice (`unsloth_loss` below has the versions). Today it is
    # unsloth_zoo's unsloth_fused_ce_loss: lm_head + CE chunk by chunk, each chunk's fp32
    # logits kept under a target sized to the VRAM left (ADAPTIVE; its minimum here, what
    # the card's room adds in estimator.memory). Before 2024.11.8,
    # unsloth/kernels/cross_entropy_loss.py worked on materialised 16-bit logits and wrote the
    # gradient into them in place (CHUNKED here: 2 bytes); in between, Cut Cross-Entropy.
    default_loss=Loss.ADAPTIVE,
    loss_bytes={Loss.NAIVE: 4.0, Loss.CHUNKED: 2.0, Loss.FUSED: 0.5, Loss.ADAPTIVE: 0.5},
    # unsloth/kernels/rms_layernorm.py saves X and one fp32 1/rms per row.
    norm_bytes=2.0,
    # unsloth_zoo prepare_model_for_kbit_training casts only lora_A/lora_B to fp32; the
    # embeddings, lm_head and norms stay 16-bit.
    adapter_bytes=4,
    kbit_upcast=False,
    # Unsloth dequantises NF4 itself (fast_dequantize into a reused buffer) inside its fused
    # LoRA_MLP / LoRA_QKV / LoRA_W autograd functions, which save the layer input once.
    bnb_saves_inputs=False,
    quantizes_all_linears=True,
    lora_dropout=False,  # Unsloth's fast path needs lora_dropout = 0 (its notebooks' default)
    default_gc=Checkpointing.UNSLOTH,  # use_gradient_checkpointing="unsloth" in every notebook
    # unsloth_zoo fused_losses/cross_entropy_loss.py (@ce232d6cef) UnslothFusedLoss: "target_gb
    # specifies the max GB memory the fused loss can use - default detects VRAM left"; each
    # chunk is upcast to fp32 and its gradient computed in the forward (torch.func
    # grad_and_value): fp32 logits + fp32 gradient of a chunk, 4 + 4 bytes a value.
    loss_expands_to=8.0,
)

TORCHTUNE = StackProfile(
    stack=Stack.TORCHTUNE,
    label="torchtune",
    # torchtune/modules/loss CEWithChunkedOutputLoss (the recipes' default since mid-2024):
    # the output projection runs in 8 chunks; each chunk is upcast and its log-softmax kept,
    # the bf16 chunks are deleted by the recipe (`del logits`). Plain CE: bf16 + fp32 + fp32.
    default_loss=Loss.CHUNKED,
    loss_bytes={Loss.NAIVE: 12.0, Loss.CHUNKED: 4.0, Loss.FUSED: 0.5},
    norm_bytes=6.0,  # torchtune/modules/rms_norm.py: x.float() and the bf16 normed x
    adapter_bytes=2,  # recipes run in dtype=bf16: adapters and their Adam moments bf16
    kbit_upcast=False,
    # torchao linear_nf4 saves only the NF4 weight for the input gradient.
    bnb_saves_inputs=False,
    # pytorch/torchtune#1398: only the linears that carry LoRA are NF4; the rest stay bf16.
    quantizes_all_linears=False,
    lora_dropout=False,  # torchtune's LoRA configs default lora_dropout to 0.0
    default_gc=Checkpointing.ON,  # enable_activation_checkpointing: True in the configs
    # The distributed configs set custom_sharded_layers: ['tok_embeddings', 'output']
    # ("useful for large vocab size models"): each is its own fully_shard unit.
    shards_embeddings=True,
    # The recipes' configs pass `fused: True` to torch.optim.AdamW (150 of the 159 configs
    # that use it, pytorch/torchtune recipes/configs): one fused kernel, no temporaries.
    adamw_foreach=False,
)

LITGPT = StackProfile(
    stack=Stack.LITGPT,
    label="litgpt",
    # litgpt/utils.py chunked_cross_entropy over lm_head_chunk_size=128 chunks, on logits
    # that the finetune loop keeps referenced through backward. Fabric hands them back in
    # fp32: _FabricModule.forward passes the output through precision.convert_output, which
    # casts every float tensor to torch.get_default_dtype() (Lightning-AI/pytorch-lightning
    # src/lightning/fabric/wrappers.py and plugins/precision/half.py @70f188b9, the 2.4 the
    # litgpt tables pinned). fp32 logits 4 + the fp32 log-softmax each chunk's
    # cross_entropy saves 4.
    default_loss=Loss.CHUNKED,
    loss_bytes={Loss.NAIVE: 12.0, Loss.CHUNKED: 8.0, Loss.FUSED: 0.5},
    norm_bytes=6.0,  # litgpt/model.py RMSNorm: x.float(), then the normed x cast back
    adapter_bytes=2,  # bf16-true: everything 16-bit
    kbit_upcast=False,
    bnb_saves_inputs=True,  # bnb.nn.Linear4bit through Lightning's BitsandbytesPrecision
    quantizes_all_linears=True,
    lora_dropout=True,  # litgpt finetune/lora.py lora_dropout default 0.05
    default_gc=Checkpointing.OFF,  # litgpt finetunes without activation checkpointing
    # litgpt's GPT builds lm_head beside wte and ties them only in pretrain.py
    # (train.tie_embeddings); scripts/convert_hf_checkpoint.py copies a tied checkpoint's
    # embeddings into lm_head.weight (Lightning-AI/litgpt @00af8b0d, still so @26857050fe).
    separate_head=True,
    # Lightning's BitsandbytesPrecision.module_init_context swaps torch.nn.Linear for its
    # 4-bit class while the model is built, lm_head's included (plugins/precision/
    # bitsandbytes.py @70f188b9), quantising from an fp16 copy: each call dequantises the
    # whole head to fp16 and casts it to bf16 (bitsandbytes MatMul4Bit.forward and backward).
    quantizes_head=True,
    # finetune/lora.py fit(): `logits = model(...)`, `loss = chunked_cross_entropy(...)` stay
    # bound until the next micro-batch's forward and loss return (@00af8b0d, 8641822b).
    keeps_previous_graph=True,
    # Fabric's FSDPStrategy sets use_orig_params=True, and no_backward_sync, which fit()
    # enters for every accumulating micro-batch, is FSDP's module.no_sync()
    # (src/lightning/fabric/strategies/fsdp.py @71aed751, the Lightning lit-gpt pinned
    # @8641822b; so still @70f188b9).
    fsdp_no_sync=True,
)

AXOLOTL = StackProfile(
    stack=Stack.AXOLOTL,
    label="axolotl",
    default_loss=Loss.NAIVE,  # transformers' loss unless the liger or cut_cross_entropy plugin
    loss_bytes=HF.loss_bytes,
    norm_bytes=6.0,
    adapter_bytes=4,
    # axolotl loaders call prepare_model_for_kbit_training, then cast norms and embeddings
    # back to the torch dtype for flash attention ("LlamaRMSNorm layers are in fp32 after
    # kbit_training ... convert them back").
    kbit_upcast=False,
    bnb_saves_inputs=True,
    quantizes_all_linears=True,
    lora_dropout=True,  # example configs: lora_dropout 0.05
    default_gc=Checkpointing.ON,  # example configs: gradient_checkpointing: true
    accelerate_fsdp=True,
)

SWIFT = StackProfile(
    stack=Stack.SWIFT,
    label="ms-swift",
    default_loss=Loss.NAIVE,  # transformers' loss
    loss_bytes=HF.loss_bytes,
    norm_bytes=6.0,
    adapter_bytes=4,
    kbit_upcast=False,  # ms-swift prepares k-bit models itself, without PEFT's fp32 upcast
    bnb_saves_inputs=True,
    quantizes_all_linears=True,
    lora_dropout=True,  # swift sft --lora_dropout default 0.05
    default_gc=Checkpointing.ON,  # swift sft --gradient_checkpointing default true
    accelerate_fsdp=True,
)

LLAMAFACTORY = StackProfile(
    stack=Stack.LLAMAFACTORY,
    label="LLaMA-Factory",
    default_loss=Loss.NAIVE,
    loss_bytes=HF.loss_bytes,
    norm_bytes=6.0,
    adapter_bytes=4,
    # LLaMA-Factory's own prepare_model_for_training upcasts norms only with
    # upcast_layernorm (default false) and never calls PEFT's k-bit preparation.
    kbit_upcast=False,
    bnb_saves_inputs=True,
    quantizes_all_linears=True,
    lora_dropout=False,  # lora_dropout default 0
    default_gc=Checkpointing.ON,  # disable_gradient_checkpointing default false
    accelerate_fsdp=True,
)

# Unsloth's loss path by release (unslothai/unsloth unsloth/models/llama.py and
# unslothai/unsloth-zoo): materialised logits and Unsloth's in-place cross-entropy kernel up
# to 2024.11.7; Cut Cross-Entropy from fa8e59eb1b (2024-11-17, during 2024.11.7's successor;
# unsloth_zoo depends on cut_cross_entropy from e5aab212, 2024-11-21); unsloth_fused_ce_loss
# with its VRAM-sized chunks from 2025.9.1 (5c1b0ae9dd, 2025-09-04, which also dropped the
# Cut Cross-Entropy condition; unsloth_zoo 770de251 sized the target from free memory).
UNSLOTH_CCE_FROM = (2024, 11, 8)
UNSLOTH_ADAPTIVE_FROM = (2025, 9, 1)


def unsloth_loss(version: tuple[int, int, int]) -> Loss:
    """The loss an Unsloth release runs, from its version (year, month, patch)."""
    if version < UNSLOTH_CCE_FROM:
        return Loss.CHUNKED
    if version < UNSLOTH_ADAPTIVE_FROM:
        return Loss.FUSED
    return Loss.ADAPTIVE


PROFILES: dict[Stack, StackProfile] = {
    p.stack: p for p in (HF, UNSLOTH, TORCHTUNE, LITGPT, AXOLOTL, SWIFT, LLAMAFACTORY)
}

# The stacks an answer compares when the user names none: the default and the ones that
# people fine-tuning on one rented card most often switch to for memory.
COMMON_STACKS: tuple[Stack, ...] = (Stack.HF, Stack.UNSLOTH, Stack.TORCHTUNE, Stack.AXOLOTL)


def profile(stack: Stack) -> StackProfile:
    return PROFILES[stack]
