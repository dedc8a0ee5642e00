"""Training time from FLOPs: tokens × FLOPs per token ÷ (GPUs × dense TFLOPS × realistic MFU)."""

from __future__ import annotations

from dataclasses import dataclass

from estimator.query import Checkpointing, FitQuery, Method, Stack
from estimator.specs import GpuSpec, ModelSpec

# Model FLOPs utilisation that fine-tuning stacks reach on one GPU (research note §4):
# HF/PEFT 25-40 %, torchtune/Unsloth with packing and compile 40-55 %.
BASE_MFU = {Stack.HF: 0.35, Stack.LITGPT: 0.35, Stack.TORCHTUNE: 0.45, Stack.UNSLOTH: 0.50}
# bitsandbytes dequantises every weight on every matmul: 0.5-0.75x LoRA's speed.
QLORA_SPEED = 0.65
# Scaling over cards inside one server is good but not perfect.
MULTI_GPU_EFFICIENCY = 0.9


@dataclass(frozen=True)
class TrainingTime:
    tokens: float
    flops_per_token: float
    hours: float
    mfu: float


def total_tokens(query: FitQuery) -> float | None:
    if query.dataset_tokens:
        return query.dataset_tokens * query.epochs
    if not query.dataset_examples:
        return None
    per_example = query.tokens_per_example or query.ctx // 2
    return query.dataset_examples * per_example * query.epochs


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


def training_time(
    query: FitQuery, model: ModelSpec, gpu: GpuSpec, gpus: int
) -> TrainingTime | None:
    tokens = total_tokens(query)
    if tokens is None or gpu.tflops <= 0:
        return None
    mfu = BASE_MFU[query.stack] * (QLORA_SPEED if query.method is Method.QLORA else 1.0)
    if gpus > 1:
        mfu *= MULTI_GPU_EFFICIENCY
    per_token = flops_per_token(query, model)
    seconds = tokens * per_token / (gpus * gpu.tflops * 1e12 * mfu)
    return TrainingTime(tokens=tokens, flops_per_token=per_token, hours=seconds / 3600, mfu=mfu)
