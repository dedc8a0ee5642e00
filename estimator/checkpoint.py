"""What a training run leaves on disk: the adapter against the full model.

safetensors stores each tensor at its dtype with a negligible header; PEFT saves adapters in
the dtype they trained in (fp32 under autocast_adapter_dtype, bf16 in torchtune/litgpt).
Resuming a full fine-tune needs the optimizer state too: HF Trainer's optimizer.pt holds two
fp32 Adam moments (8 bytes per parameter) beside the weights.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.memory import lora_params
from estimator.query import FitQuery, Method, Optimizer, Precision
from estimator.specs import ModelSpec
from estimator.stacks import profile


@dataclass(frozen=True)
class CheckpointSize:
    adapter_bytes: int | None  # LoRA/QLoRA: the adapter file
    model_bytes: int  # the full model in bf16 (merged adapter, or a full fine-tune's weights)
    resume_bytes: int | None  # full fine-tune: weights + optimizer state to continue training


def checkpoint_size(query: FitQuery, model: ModelSpec) -> CheckpointSize:
    model_bytes = model.total_params * 2
    if query.method is Method.FULL:
        moments = {
            Optimizer.ADAMW_8BIT: 2,
            Optimizer.PAGED_ADAMW_8BIT: 2,
            Optimizer.ADAMW_4BIT: 1,  # two 4-bit moments (torchao AdamW4bit)
        }.get(query.optimizer, 8)
        master = 4 if query.precision in (Precision.MIXED, Precision.FP32) else 0
        return CheckpointSize(None, model_bytes, model.total_params * (2 + master + moments))
    width = 4 if query.precision is Precision.FP32 else profile(query.stack).adapter_bytes
    adapter = lora_params(model, query.lora_rank, query.targets, query.train_embeddings)
    return CheckpointSize(adapter * width, model_bytes, None)
