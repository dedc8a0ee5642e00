"""What to change when a run does not fit, with the GiB each change saves, and the mistakes
the guides warn about. Codes and numbers only: the bot and the CLI word them."""

from __future__ import annotations

from dataclasses import dataclass, replace

from estimator.memory import estimate_memory
from estimator.offload import host_ram
from estimator.query import Checkpointing, FitQuery, Method, Offload, Optimizer, Precision, Stack
from estimator.specs import GpuSpec, ModelSpec

HIGH_RANK = 64


@dataclass(frozen=True)
class Advice:
    code: str  # gc_on, adam8bit, smaller_batch, shorter_ctx, qlora, unsloth, offload, h200
    saves_gib: float
    # The suggested setting, e.g. "1" for bs, "2048" for ctx; for offload, the host RAM it
    # needs in whole GB (estimator.offload): a lever is never offered without its cost.
    value: str = ""


@dataclass(frozen=True)
class Caution:
    code: str  # no_bf16, fp16_on_bf16, native_ctx, high_rank, oom_step3, dataloader_workers
    value: str = ""


def _saving(query: FitQuery, changed: FitQuery, model: ModelSpec) -> float:
    return estimate_memory(query, model).peak - estimate_memory(changed, model).peak


def memory_advice(query: FitQuery, model: ModelSpec) -> list[Advice]:
    """Each lever that would lower the peak, biggest saving first (only real savings)."""
    options: list[tuple[str, FitQuery, str]] = []
    if query.grad_checkpointing is Checkpointing.OFF:
        options.append(("gc_on", replace(query, grad_checkpointing=Checkpointing.ON), "on"))
    if query.method is Method.FULL and query.optimizer is Optimizer.ADAMW:
        options.append(("adam8bit", replace(query, optimizer=Optimizer.ADAMW_8BIT), "adamw8bit"))
    if query.method is Method.FULL and query.precision in (Precision.MIXED, Precision.FP32):
        options.append(("pure_bf16", replace(query, precision=Precision.BF16), "bf16"))
    if query.micro_batch > 1:
        options.append(("smaller_batch", replace(query, micro_batch=1), "1"))
    if query.ctx > 1024:
        shorter = query.ctx // 2
        options.append(("shorter_ctx", replace(query, ctx=shorter), str(shorter)))
    if query.method is Method.FULL and query.offload is Offload.NONE:
        # ZeRO-Offload: the optimizer state and fp32 masters go to host RAM (terabytes for a
        # 70B), and the step runs on the CPU.
        offloaded = replace(query, offload=Offload.OPTIMIZER)
        ram_gb = host_ram(offloaded, model).needed / 1e9
        options.append(("offload", offloaded, f"{ram_gb:.0f}"))
    if query.method is not Method.QLORA:
        options.append(("qlora", replace(query, method=Method.QLORA), "qlora"))
    if query.method is not Method.FULL and query.stack is Stack.HF:
        unsloth = replace(query, stack=Stack.UNSLOTH, grad_checkpointing=Checkpointing.UNSLOTH)
        options.append(("unsloth", unsloth, "unsloth"))
    advice = [
        Advice(code, saving, value)
        for code, changed, value in options
        if (saving := _saving(query, changed, model)) > 0.25
    ]
    return sorted(advice, key=lambda item: -item.saves_gib)


def cautions_for(
    query: FitQuery, gpu: GpuSpec | None, tight: bool, model: ModelSpec | None = None
) -> list[Caution]:
    found = []
    if gpu is not None and not gpu.bf16 and query.precision is Precision.BF16:
        found.append(Caution("no_bf16", gpu.id))
    if gpu is not None and gpu.bf16 and query.precision is Precision.FP16:
        # fp16's 5-bit exponent overflows without loss scaling; bf16 has fp32's range at the
        # same speed on Ampere and newer (seed guide: "FP16 loss diverge").
        found.append(Caution("fp16_on_bf16", gpu.id))
    if model is not None and 0 < model.native_ctx < query.ctx:
        found.append(Caution("native_ctx", str(model.native_ctx)))
    if query.method is not Method.FULL and query.lora_rank >= HIGH_RANK:
        found.append(Caution("high_rank", str(query.lora_rank)))
    if tight or query.method is Method.FULL:
        found.append(Caution("oom_step3"))
    if query.dataset_examples:
        found.append(Caution("dataloader_workers"))
    return found
