"""The time model as it stood before its rebuild from what a step does (estimator/timing.py at
e4dadd4): the datasheet peak × a hand-set share by card class × a hand-set speed by stack, plus
bitsandbytes' dequantisation, elementwise traffic and CPU offload. Kept, frozen, as the
baseline the speed bench prints beside the rebuilt model, measured in the same run; nothing
else imports it.
"""

from __future__ import annotations

from enum import StrEnum

from estimator.memory import adapted_linear_params, linear_params
from estimator.offload import step_seconds, stream_seconds
from estimator.query import Checkpointing, FitQuery, Method, Stack
from estimator.specs import GpuSpec, ModelSpec


class CardClass(StrEnum):
    HOPPER = "hopper"
    BLACKWELL = "blackwell"
    AMPERE_DC = "ampere_dc"  # A100, A30, A40, A10, A10G
    WORKSTATION = "workstation"  # RTX A-series, RTX Ada/Blackwell pro, L40, L40S
    GEFORCE = "geforce"
    POWER_LIMITED = "power_limited"  # 60-72 W inference cards: T4, A2, A16, L4
    VOLTA = "volta"
    PASCAL = "pascal"  # no tensor cores at all


# Share of the datasheet dense peak (FP32-accumulate column) that fine-tuning sustains on a
# well-fed batch, by class. Achieved TFLOPS implied by published tokens/s (FLOPs counted as
# below, recompute included):
CLASS_EFFICIENCY: dict[CardClass, float] = {
    # llm-foundry MPT-7B/13B on 8xH100, bf16: 0.44-0.46 / 0.40; fsdp_qlora 70B QLoRA: 0.33.
    # The bf16 peak (989) needs kernels bf16 fine-tuning rarely keeps fed: H100 ends up
    # 2-2.5x an A100, not the 3.2x of the datasheets (seed guide: 1.8-2.5x).
    CardClass.HOPPER: 0.42,
    # No published fine-tuning throughput yet; taken as Hopper.
    CardClass.BLACKWELL: 0.42,
    # llm-foundry MPT-7B/13B on 8xA100: 0.61-0.64; torchtune Llama-3.2-3B: 0.46-0.62;
    # fsdp_qlora 70B QLoRA on A100 40GB: 0.52.
    CardClass.AMPERE_DC: 0.58,
    # fsdp_qlora Llama-2-70B: 8x RTX A5000 0.38, 4x RTX 6000 Ada 0.21 (PCIe); PEFT's
    # MetaMathQA LoRA on an L40S: ~0.25 of 362. These 300-350 W boards cannot hold their
    # clocks under sustained tensor load: an L40S trains at ~0.6x an A100 (the MetaMathQA
    # row against torchtune's A100 rows) despite a higher
    # datasheet peak.
    CardClass.WORKSTATION: 0.30,
    # fsdp_qlora on 2x RTX 4090: 0.58-0.60; on 2x RTX 3090 (280 W): 0.69; torchtune 4090: 0.64.
    CardClass.GEFORCE: 0.66,
    # T4 (70 W): its 65 TFLOPS need the 1.59 GHz boost clock, which it cannot hold at 70 W
    # under tensor load, and it has 320 GB/s of memory: a T4 trains at about a third of a
    # 3090's speed, not the 0.9x the datasheets suggest.
    CardClass.POWER_LIMITED: 0.20,
    CardClass.VOLTA: 0.45,
    # Pascal has no tensor cores: fp16_tflops holds its FP32 rate, of which GEMMs reach ~half.
    CardClass.PASCAL: 0.50,
}

_CLASS_OF_FAMILY: dict[str, CardClass] = {
    "H100": CardClass.HOPPER,
    "H200": CardClass.HOPPER,
    "GH200": CardClass.HOPPER,
    "B200": CardClass.BLACKWELL,
    "B300": CardClass.BLACKWELL,
    "A100": CardClass.AMPERE_DC,
    "A30": CardClass.AMPERE_DC,
    "A40": CardClass.AMPERE_DC,
    "A10": CardClass.AMPERE_DC,
    "A10G": CardClass.AMPERE_DC,
    "T4": CardClass.POWER_LIMITED,
    "A2": CardClass.POWER_LIMITED,
    "A16": CardClass.POWER_LIMITED,
    "L4": CardClass.POWER_LIMITED,
    "V100": CardClass.VOLTA,
    "P40": CardClass.PASCAL,
    "P100": CardClass.PASCAL,
    "GTX 1080 Ti": CardClass.PASCAL,
}

# Kernels relative to an efficient stack at the same batch: transformers runs unfused norms,
# rotary and loss (and, in practice, padded batches); the HF-based trainers add packing and
# flash attention; Unsloth fuses norms, rotary, LoRA and the loss (its benchmarks: ~2x HF).
STACK_SPEED: dict[Stack, float] = {
    Stack.HF: 0.80,
    Stack.AXOLOTL: 0.95,
    Stack.SWIFT: 0.85,
    Stack.LLAMAFACTORY: 0.85,
    Stack.LITGPT: 0.85,
    Stack.TORCHTUNE: 1.00,
    Stack.UNSLOTH: 1.15,
}
# torch.compile fuses the elementwise work between matmuls (torchtune 3B table: 7075 -> 8998
# tokens/s from compile alone).
COMPILE_SPEEDUP = 1.25
# Memory traffic of the work between matmuls (norms, rotary, SwiGLU, residual adds, dtype
# casts; forward and backward), in bytes per token, layer and hidden unit: about 60 passes
# over a 16-bit activation of width h when unfused. It costs bandwidth, not FLOPs, so it
# weighs most on small models (a 3B runs at a lower MFU than a 70B on the same card).
ELEMENTWISE_BYTES_PER_HIDDEN = 120.0
# Fused kernels (Unsloth) and torch.compile make about a third of those passes.
FUSED_ELEMENTWISE_SHARE = 1 / 3
# Cards inside one server: all-reduce or all-gather overlap most, not all, of the compute.
MULTI_GPU_EFFICIENCY = 0.92
# bitsandbytes dequantises every NF4 weight on each pass: read 0.5 B, write and re-read a
# 16-bit copy (2 + 2 B) - per parameter, per forward, recompute and backward pass.
DEQUANT_BYTES_PER_PARAM_PASS = 4.5
BNB_STACKS = frozenset({Stack.HF, Stack.AXOLOTL, Stack.SWIFT, Stack.LLAMAFACTORY, Stack.LITGPT})


def card_class(gpu: GpuSpec) -> CardClass:
    known = _CLASS_OF_FAMILY.get(gpu.family)
    if known is not None:
        return known
    workstation = gpu.id.startswith(("RTX A", "L40")) or any(
        word in gpu.id for word in ("Ada", "PRO")
    )
    return CardClass.WORKSTATION if workstation else CardClass.GEFORCE


def achieved_tflops(query: FitQuery, gpu: GpuSpec, gpus: int = 1) -> float:
    tflops = gpu.tflops * CLASS_EFFICIENCY[card_class(gpu)] * STACK_SPEED[query.stack]
    if query.compiled:
        tflops *= COMPILE_SPEEDUP
    return tflops * (MULTI_GPU_EFFICIENCY if gpus > 1 else 1.0)


def flops_per_token(query: FitQuery, model: ModelSpec) -> float:
    """6N for full fine-tuning (forward 2N, backward 4N); 4N with frozen weights; +2N to
    recompute the forward under gradient checkpointing; plus causal attention."""
    n = model.active_params
    dense = 6.0 * n if query.method is Method.FULL else 4.0 * n
    if query.grad_checkpointing is not Checkpointing.OFF:
        dense += 2.0 * n
    avg_len = query.tokens_per_example or query.ctx // 2
    attention = 6.0 * model.layers * avg_len * model.q_dim  # fwd + bwd, causal half of s²
    return dense + attention


def _dequant_seconds_per_token(query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> float:
    """bitsandbytes' dequantisation is paid per micro-batch, so per token it shrinks only as
    the micro-batch grows; Unsloth and torchao have their own fused kernels."""
    if query.method is not Method.QLORA or query.stack not in BNB_STACKS:
        return 0.0
    passes = 3 if query.grad_checkpointing is not Checkpointing.OFF else 2
    quantised = (
        linear_params(model)
        if query.stack is not Stack.TORCHTUNE
        else (adapted_linear_params(model, query.targets))
    )
    # Sharded or not, every GPU dequantises every layer it computes with: all of them.
    seconds = passes * quantised * DEQUANT_BYTES_PER_PARAM_PASS / (gpu.bandwidth_gbs * 1e9)
    return seconds / micro_batch_tokens(query)


def micro_batch_tokens(query: FitQuery) -> int:
    """Tokens one GPU takes in one micro-batch: what a per-micro-batch cost is spread over."""
    return max(1, query.micro_batch * (query.tokens_per_example or query.ctx))


def _offload_seconds_per_token(query: FitQuery, model: ModelSpec, gpus: int) -> float:
    """CPU offload: every GPU waits for the optimizer step on the server's CPUs (once per
    `MICRO_BATCHES_PER_STEP` micro-batches) and, with the parameters offloaded, for their
    transfer on each pass (estimator.offload)."""
    per_micro_batch = step_seconds(query, model)
    per_micro_batch += stream_seconds(query, model, gpus)
    return per_micro_batch / micro_batch_tokens(query)


def _elementwise_seconds_per_token(query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> float:
    per_hidden = ELEMENTWISE_BYTES_PER_HIDDEN
    if query.compiled or query.stack is Stack.UNSLOTH:
        per_hidden *= FUSED_ELEMENTWISE_SHARE
    passes = 4 / 3 if query.grad_checkpointing is not Checkpointing.OFF else 1.0  # recompute
    return passes * per_hidden * model.hidden * model.layers / (gpu.bandwidth_gbs * 1e9)


def tokens_per_second(query: FitQuery, model: ModelSpec, gpu: GpuSpec, gpus: int = 1) -> float:
    """Training throughput per GPU."""
    compute = flops_per_token(query, model) / (achieved_tflops(query, gpu, gpus) * 1e12)
    memory = _elementwise_seconds_per_token(query, model, gpu)
    dequant = _dequant_seconds_per_token(query, model, gpu)
    return 1.0 / (compute + memory + dequant + _offload_seconds_per_token(query, model, gpus))
