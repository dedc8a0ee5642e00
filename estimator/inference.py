"""What running a model (inference) holds on a card, for a question that asks about it.

gpuradar sizes fine-tuning; «сколько памяти надо для инференса 70b?» is answered with the
training sizing *and* this, so that nobody takes the one for the other. The parts are the ones
the weights and the cache are made of, no fitted constant:

- weights: 2 bytes a parameter in bf16; in 8 bits (bitsandbytes LLM.int8, whose default
  `llm_int8_skip_modules` keeps lm_head in 16 bits) one byte a block weight; in 4 bits the GPTQ
  layout (`estimator.memory.GPTQ_BYTES`: 0.52 bytes a weight with its group scales). The
  embeddings and the head stay 16-bit in both quantised forms.
- the KV cache: keys and values of every layer, `kv_heads × head_dim` each, 2 bytes a value
  (bf16), for every token of the context, per sequence served at once.
- the CUDA context (`estimator.memory.CALIBRATION.cuda_context_gib`), as nvidia-smi shows it.

Servers that preallocate (vLLM takes `gpu_memory_utilization`, 0.9 of the card by default) show
more in nvidia-smi than this; what they need is still this.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.memory import CALIBRATION, GPTQ_BYTES
from estimator.specs import ModelSpec

GIB = 2**30
_BF16 = 2


@dataclass(frozen=True)
class InferenceMemory:
    weights_bf16_gib: float
    weights_int8_gib: float
    weights_int4_gib: float
    kv_cache_gib: float  # one sequence at `ctx` tokens
    ctx: int
    cuda_context_gib: float


def inference_memory(model: ModelSpec, ctx: int) -> InferenceMemory:
    embeddings = model.embedding_params
    blocks = max(model.total_params - embeddings, 0)
    kv_bytes = 2 * model.layers * model.kv_dim * ctx * _BF16
    return InferenceMemory(
        weights_bf16_gib=model.total_params * _BF16 / GIB,
        weights_int8_gib=(blocks * 1 + embeddings * _BF16) / GIB,
        weights_int4_gib=(blocks * GPTQ_BYTES + embeddings * _BF16) / GIB,
        kv_cache_gib=kv_bytes / GIB,
        ctx=ctx,
        cuda_context_gib=CALIBRATION.cuda_context_gib,
    )
