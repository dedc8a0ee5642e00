"""What a card can run, as data with its sources: compute capability and the rules built on it.

Compute capability by family is NVIDIA's own table ("CUDA GPUs - Compute Capability",
developer.nvidia.com/cuda-gpus). The rules that read it:

* Unsloth needs compute capability 7.0 or newer (Unsloth's requirements: "NVIDIA GPUs since
  2018+, minimum CUDA capability 7.0 (V100, T4, Titan V, RTX 20, 30, 40x, A100, H100, L40
  etc.)"; its Triton kernels need Volta's instructions). A Pascal card cannot run it at all.
* bf16 tensor cores arrive with Ampere, compute capability 8.0 (CUDA programming guide,
  "__nv_bfloat16" arithmetic and mma.sync bf16 shapes need sm_80). The catalog's `bf16` column
  must agree (a test checks it).
* FlashAttention 2 needs compute capability 8.0 or newer (Dao-AILab/flash-attention README:
  "FlashAttention-2 currently supports: Ampere, Ada, or Hopper GPUs"; Turing is FA1 only).
  Without it every stack's attention falls back to PyTorch SDPA, whose dispatcher then picks
  the memory-efficient kernel (sm_50+; torch/nn/attention sdp_kernel): HF Trainer
  (attn_implementation="sdpa", its default when flash_attention_2 is refused), torchtune
  (SDPA always), Unsloth on T4/V100 (xformers, the same cutlass kernel). That kernel, like
  flash, saves only its output and one fp32 log-sum-exp per head and token: the attention
  memory stays linear in ctx, so the estimate's FLASH case holds. Only eager attention
  (models without SDPA support, `ModelSpec.hf_eager`) keeps the ctx² score matrices.
"""

from __future__ import annotations

from estimator.specs import GpuSpec

UNSLOTH_MIN_CAPABILITY = 7.0
BF16_MIN_CAPABILITY = 8.0
FLASH_ATTENTION_2_MIN_CAPABILITY = 8.0

# Family -> compute capability (NVIDIA's table). Families the table lacks are newer cards:
# `capability` falls back to the architecture read from the name, never to a guess that
# would promise more than the card has.
COMPUTE_CAPABILITY: dict[str, float] = {
    # Pascal
    "GTX 1080 Ti": 6.1,
    "P40": 6.1,
    "P100": 6.0,
    # Volta
    "V100": 7.0,
    # Turing
    "T4": 7.5,
    "RTX 2080 Ti": 7.5,
    # Ampere
    "A100": 8.0,
    "A30": 8.0,
    "A2": 8.6,
    "A10": 8.6,
    "A10G": 8.6,
    "A16": 8.6,
    "A40": 8.6,
    "RTX 3080": 8.6,
    "RTX 3090": 8.6,
    "RTX 3090 Ti": 8.6,
    "RTX A2000": 8.6,
    "RTX A4000": 8.6,
    "RTX A5000": 8.6,
    "RTX A5500": 8.6,
    "RTX A6000": 8.6,
    # Ada Lovelace
    "L4": 8.9,
    "L40": 8.9,
    "L40S": 8.9,
    "RTX 4070 Ti": 8.9,
    "RTX 4080": 8.9,
    "RTX 4090": 8.9,
    "RTX 4000 Ada": 8.9,
    "RTX 6000 Ada": 8.9,
    # Hopper
    "H100": 9.0,
    "H200": 9.0,
    "GH200": 9.0,
    # Blackwell: data centre 10.0, GeForce and workstation 12.0
    "B200": 10.0,
    "B300": 10.3,
    "RTX 5080": 12.0,
    "RTX 5090": 12.0,
    "RTX PRO 6000 Blackwell": 12.0,
}


def capability(gpu: GpuSpec) -> float:
    """The card's compute capability. A family outside the table is judged by its bf16
    support alone: Ampere-or-newer (8.0) or, without bf16, the oldest that has tensor cores
    (Volta, 7.0) - the catalog marks cards without tensor cores in the table above."""
    known = COMPUTE_CAPABILITY.get(gpu.family)
    if known is not None:
        return known
    return BF16_MIN_CAPABILITY if gpu.bf16 else 7.0


def runs_unsloth(gpu: GpuSpec) -> bool:
    return capability(gpu) >= UNSLOTH_MIN_CAPABILITY


def runs_flash_attention_2(gpu: GpuSpec) -> bool:
    return capability(gpu) >= FLASH_ATTENTION_2_MIN_CAPABILITY


def attention_kernel(gpu: GpuSpec, eager_model: bool = False) -> str:
    """The attention kernel a run gets on this card: "eager" for models without SDPA
    support, "flash_attention_2" from Ampere on, else SDPA's "memory_efficient" kernel."""
    if eager_model:
        return "eager"
    return "flash_attention_2" if runs_flash_attention_2(gpu) else "memory_efficient"
