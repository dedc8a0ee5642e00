"""What a training run leaves on disk: the adapter against the full model.

safetensors stores each tensor at its dtype with a negligible header; PEFT saves adapters in
the dtype they trained in (fp32 under autocast_adapter_dtype, bf16 in torchtune/litgpt).
Resuming a full fine-tune needs the optimizer state too: HF Trainer's optimizer.pt holds the
optimizer's state (two fp32 Adam moments, 8 bytes per parameter, for adamw_torch) beside the
weights.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.memory import base_width, lora_params, saved_module_params
from estimator.optimizers import bytes_per_param
from estimator.query import FitQuery, Method, Precision
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
        fp32 = query.precision in (Precision.MIXED, Precision.FP32)
        # The optimizer's own state, as estimator.optimizers sizes it in memory.
        state = bytes_per_param(query.optimizer, 4.0 if fp32 else 2.0, model.hidden, model.hidden)
        master = 4 if fp32 else 0
        resume = model.total_params * (2 + master + state)
        return CheckpointSize(None, model_bytes, round(resume))
    width = 4 if query.precision is Precision.FP32 else profile(query.stack).adapter_bytes
    adapter = lora_params(model, query.lora_rank, query.targets, query.head_adapter)
    # PEFT saves the modules_to_save copies whole, in the dtype they trained in.
    saved = saved_module_params(query, model) * base_width(query)
    return CheckpointSize(round(adapter * width + saved), model_bytes, None)
