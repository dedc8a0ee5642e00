"""The two catalogs' record types: a GPU as renters see it, a model as its config.json says."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

GIB = 2**30


class MlpKind(StrEnum):
    GATED = "gated"  # SwiGLU/GeGLU: gate, up, down (Llama, Mistral, Qwen, Gemma, Phi-3)
    PLAIN = "plain"  # fc1, fc2 with GeLU (GPT-NeoX, Falcon, Phi-1.5/2, StableLM-alpha, BLOOM)


@dataclass(frozen=True)
class GpuSpec:
    id: str  # canonical, as shown to users: "A100 80GB SXM", "RTX 4090", "H100 SXM"
    family: str  # "A100", "H100", "RTX 4090": what "/watch h100" matches
    vram_gb: float  # marketing capacity in GB as sold ("80GB")
    usable_gib: float  # what torch.cuda.get_device_properties().total_memory reports, in GiB
    bf16_tflops: float  # dense BF16 tensor TFLOPS with FP32 accumulate; 0 when no bf16
    fp16_tflops: float  # dense FP16 tensor TFLOPS with FP32 accumulate
    bandwidth_gbs: float  # memory bandwidth, GB/s
    bf16: bool  # supports bf16 (Ampere and newer)
    aliases: tuple[str, ...]  # extra spellings that resolve() must accept
    form: str = ""  # "SXM", "PCIe", "NVL" or "" for one-form cards
    datacenter: bool = True
    # A board a name has to ask for (an NVL, a modded 48 GB RTX 4090): "H100" never means
    # the NVL, and a family "as people rent it" leaves it out unless it is all there is.
    variant: bool = False

    @property
    def tflops(self) -> float:
        """The matmul throughput training can use: bf16 where supported, else fp16."""
        return self.bf16_tflops if self.bf16 else self.fp16_tflops


@dataclass(frozen=True)
class ModelSpec:
    id: str  # canonical display name: "Llama-3.1-8B"
    family: str  # "llama", "qwen", "mistral", ...
    aliases: tuple[str, ...]  # extra spellings for loose matching
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int  # dense MLP width; for MoE, one expert's width
    vocab: int
    tied_embeddings: bool
    total_params: int  # all parameters, embeddings counted once when tied
    mlp: MlpKind = MlpKind.GATED
    experts: int = 1  # MoE: routed experts per layer (1 = dense)
    active_experts: int = 1  # MoE: experts used per token
    shared_expert_intermediate: int = 0  # MoE: always-on expert width (DeepSeek-V2/Qwen-MoE)
    encoder_decoder: bool = False  # T5-style; memory is modelled as a decoder of equal size
    source: str = ""
    native_ctx: int = 0  # max_position_embeddings of the config (0: unknown)
    # transformers runs this model with eager attention (no SDPA/flash support, or, for
    # Gemma-2's soft-capping, eager recommended for training): s x s scores are kept.
    hf_eager: bool = False
    # The config's final_logit_softcapping (Gemma-2: 30.0): transformers' CausalLM divides the
    # logits by it, takes tanh and multiplies back, and tanh keeps its output for backward.
    logit_softcap: bool = False

    @property
    def params_b(self) -> float:
        return self.total_params / 1e9

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def embedding_params(self) -> int:
        """embed_tokens plus lm_head (once when tied): kept 16-bit even under QLoRA."""
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    @property
    def mlp_matrices(self) -> int:
        return 3 if self.mlp is MlpKind.GATED else 2

    @property
    def active_params(self) -> int:
        """Parameters one token passes through: all of them for a dense model."""
        if self.experts <= 1:
            return self.total_params
        per_expert = self.mlp_matrices * self.hidden * self.intermediate
        idle = (self.experts - self.active_experts) * per_expert * self.layers
        return self.total_params - idle
