"""Training time: what one step does (estimator.step) on what a card and its links can do.

A micro-batch on one GPU takes

    compute  = matmuls (FLOPs at the card's sustained matmul rate, never below reading the
               weights at its memory bandwidth) + attention (FLOPs at FlashAttention's share of
               the peak) + elementwise bytes at the memory bandwidth;
    comm     = the bytes the cards exchange (estimator.step) at the link's bandwidth
               (estimator.interconnect), partly hidden behind the compute;
    host     = kernels launched × the host's time per kernel;

plus, once per optimizer step (every `grad_accum` micro-batches), the optimizer's pass over its
state at the memory bandwidth, the paged optimizer state that did not fit the card crossing
PCIe (`paging_seconds`), and with CPU offload the streamed weights and the CPU step
(estimator.offload). Tokens per second per GPU = the micro-batch's tokens / its seconds.

What cannot be read from a datasheet or a stack's code is `Calibration`: the share of the dense
peak each class of card sustains in training matmuls, the host's time per kernel, the share of
a link's bandwidth collectives reach and how much of it hides behind compute. They are fitted by
bench/estimator_speed.py within the brackets its `RANGES` cite, leaving one repository out at a
time, and the bench scores each repository with the constants fitted without it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from estimator.accuracy import Band
from estimator.interconnect import (
    PCIE_BYTES_PER_S,
    Interconnect,
    Link,
    geforce,
    interconnect,
    pcie_generation,
)
from estimator.query import Checkpointing, FitQuery, Method
from estimator.specs import GIB, GpuSpec, ModelSpec
from estimator.speed_accuracy import band
from estimator.step import StepWork, attended, step_work


class CardClass(StrEnum):
    HOPPER = "hopper"
    BLACKWELL = "blackwell"
    AMPERE_DC = "ampere_dc"  # A100, A30: GA100 with HBM
    WORKSTATION = "workstation"  # GA102 with GDDR6: RTX A-series, A40, A10, A10G
    WORKSTATION_ADA = "workstation_ada"  # L40, L40S, RTX Ada, RTX PRO Blackwell
    GEFORCE = "geforce"
    POWER_LIMITED = "power_limited"  # 60-72 W inference cards: T4, A2, A16, L4
    VOLTA = "volta"
    PASCAL = "pascal"  # no tensor cores at all


_CLASS_OF_FAMILY: dict[str, CardClass] = {
    "H100": CardClass.HOPPER,
    "H200": CardClass.HOPPER,
    "GH200": CardClass.HOPPER,
    "B200": CardClass.BLACKWELL,
    "B300": CardClass.BLACKWELL,
    "A100": CardClass.AMPERE_DC,
    "A30": CardClass.AMPERE_DC,
    "A40": CardClass.WORKSTATION,
    "A10": CardClass.WORKSTATION,
    "A10G": CardClass.WORKSTATION,
    "T4": CardClass.POWER_LIMITED,
    "A2": CardClass.POWER_LIMITED,
    "A16": CardClass.POWER_LIMITED,
    "L4": CardClass.POWER_LIMITED,
    "V100": CardClass.VOLTA,
    "P40": CardClass.PASCAL,
    "P100": CardClass.PASCAL,
    "GTX 1080 Ti": CardClass.PASCAL,
}


def card_class(gpu: GpuSpec) -> CardClass:
    known = _CLASS_OF_FAMILY.get(gpu.family)
    if known is not None:
        return known
    if geforce(gpu):
        return CardClass.GEFORCE
    return CardClass.WORKSTATION if gpu.id.startswith("RTX A") else CardClass.WORKSTATION_ADA


@dataclass(frozen=True)
class Calibration:
    """The constants the speed bench fits (bench/estimator_speed.py `RANGES`)."""

    # Share of the datasheet's dense BF16 peak (FP32 accumulate) that training matmuls
    # sustain, by class of card.
    ampere_dc: float
    hopper: float
    workstation: float
    workstation_ada: float
    geforce: float
    # What LoRA and QLoRA runs sustain of that rate: their frozen-weight backward and the
    # adapters' small kernels between the big matmuls keep them below a full fine-tune's.
    adapter_share: float
    # Share of the peak FlashAttention sustains over forward and backward (on Ampere and Ada;
    # Hopper gets `HOPPER_ATTENTION_RATIO` of it).
    attention_share: float
    host_seconds_per_op: float  # the host's time to issue one kernel of eager PyTorch
    link_share: float  # of the link's datasheet bandwidth that NCCL's collectives reach
    overlap: float  # share of the shorter of compute and communication hidden by the other


# Classes no published throughput measures (none in tests/fixtures/estimator/throughput.csv):
# their shares are set from what is known of them, not fitted.
# Blackwell (B200/B300) is taken as Hopper times the ratio of their measured matmul ceilings:
# B200 1745 of 2250 TFLOPS (77.6 %) against H100 SXM 794.5 of 989 (80.3 %) (stas00/ml-engineering
# compute/accelerator/README.md @744d01e, "Maximum Achievable Matmul FLOPS").
BLACKWELL_OF_HOPPER = 0.776 / 0.803
UNMEASURED_SHARE: dict[CardClass, float] = {
    # T4 (70 W): its 65 TFLOPS need the 1.59 GHz boost clock, which it cannot hold at 70 W under
    # tensor load, and it has 320 GB/s of memory: a T4 trains at about a third of a 3090's
    # speed, not the 0.9x the datasheets suggest.
    CardClass.POWER_LIMITED: 0.20,
    CardClass.VOLTA: 0.45,
    # Pascal has no tensor cores: fp16_tflops holds its FP32 rate, of which GEMMs reach ~half.
    CardClass.PASCAL: 0.50,
}

# Fitted on the 132 rows of tests/fixtures/estimator/throughput.csv whose work is known, within
# the brackets the bench cites (`python -m bench.estimator_speed --fit`); the bench scores each
# repository with the constants fitted on the others. The matmul shares sit below the measured
# matmul ceilings (A100 86.9 %, H100 80.3 %) by what a training step's smaller and transposed
# matmuls lose; GeForce boards at the top of their bracket, above their datasheet peak (they
# boost past their rated clock); Ada/Blackwell workstation boards at under a third of their
# datasheet peak, which assumes a boost clock their 300-350 W cannot hold under tensor load:
# on four cards of Answer.AI's cloud table the RTX 6000 Ada trains Llama-2-70B QLoRA at 181
# tokens/s a card, an A100 40GB at 414 (0.44x), where the datasheets' peaks say 1.17x
# (docs/estimator.md, section Card peaks).
CALIBRATION = Calibration(
    ampere_dc=0.787,
    hopper=0.709,
    workstation=0.621,
    workstation_ada=0.297,
    geforce=1.1,
    adapter_share=0.922,
    attention_share=0.431,
    host_seconds_per_op=1.2e-05,
    link_share=0.625,
    overlap=0.5,
)

# FlashAttention-2 reaches 50-73 % of an A100's peak (Dao, arXiv 2307.08691, abstract) and
# 35 % of an H100's (Shah et al., FlashAttention-3, arXiv 2407.08608, abstract): on Hopper the
# same kernels sustain 35 / 61.5 (the middle of 50-73) of the share they reach on Ampere.
HOPPER_ATTENTION_RATIO = 0.35 / 0.615


def matmul_share(gpu: GpuSpec, calibration: Calibration = CALIBRATION) -> float:
    kind = card_class(gpu)
    fitted = {
        CardClass.AMPERE_DC: calibration.ampere_dc,
        CardClass.HOPPER: calibration.hopper,
        CardClass.WORKSTATION: calibration.workstation,
        CardClass.WORKSTATION_ADA: calibration.workstation_ada,
        CardClass.GEFORCE: calibration.geforce,
        CardClass.BLACKWELL: calibration.hopper * BLACKWELL_OF_HOPPER,
    }
    return fitted.get(kind) or UNMEASURED_SHARE[kind]


def _attention_share(gpu: GpuSpec, calibration: Calibration) -> float:
    hopper = card_class(gpu) is CardClass.HOPPER
    return calibration.attention_share * (HOPPER_ATTENTION_RATIO if hopper else 1.0)


@dataclass(frozen=True)
class TrainingTime:
    tokens: float
    flops_per_token: float
    hours: float
    mfu: float  # achieved / peak
    tokens_per_second: float  # per GPU
    link: Interconnect | None  # how the cards talk; None on one card
    # Where the true hours lie, from the model's out-of-sample error for the run's stack and
    # method (estimator.speed_accuracy).
    band: Band


def total_tokens(query: FitQuery) -> float | None:
    if query.dataset_tokens:
        return query.dataset_tokens * query.epochs
    if not query.dataset_examples:
        return None
    per_example = query.tokens_per_example or query.ctx // 2
    return query.dataset_examples * per_example * query.epochs


def flops_per_token(query: FitQuery, model: ModelSpec) -> float:
    """Model FLOPs (the MFU convention): 6N for full fine-tuning (forward 2N, backward 4N); 4N
    with frozen weights; +2N to recompute the forward under gradient checkpointing; plus
    causal attention over the span each token attends to."""
    n = model.active_params
    dense = 6.0 * n if query.method is Method.FULL else 4.0 * n
    if query.grad_checkpointing is not Checkpointing.OFF:
        dense += 2.0 * n
    return dense + 6.0 * model.layers * attended(query) * model.q_dim


def paging_seconds(work: StepWork, gpu: GpuSpec) -> float:
    """Per optimizer step: bitsandbytes' paged state that the card has no room for. Paged
    state is CUDA managed memory (`F.get_paged`); the step prefetches each parameter's state
    to the GPU (`prefetch_state`, cudaMemPrefetchAsync), updates it and synchronises before
    the next (bitsandbytes-foundation/bitsandbytes bitsandbytes/optim/optimizer.py
    @06029dd6ed, `Optimizer8bit.step`), so what lives in host RAM comes in over PCIe and what
    it displaces goes back out, every step, with nothing to hide behind: twice the overflow
    at the card's PCIe bandwidth (estimator.interconnect)."""
    room = max(0.0, gpu.usable_gib * GIB - work.resident_bytes)
    spilled = max(0.0, work.paged_bytes - room)
    return 2 * spilled / PCIE_BYTES_PER_S[pcie_generation(gpu)]


def micro_batch_seconds(
    work: StepWork, gpu: GpuSpec, link: Interconnect | None, calibration: Calibration
) -> float:
    """One micro-batch on one GPU, with its share of the optimizer step."""
    bandwidth = gpu.bandwidth_gbs * 1e9
    peak = gpu.tflops * 1e12
    rate = peak * matmul_share(gpu, calibration)
    if work.adapters:
        rate *= calibration.adapter_share
    matmuls = max(work.matmul_flops / rate, work.weight_bytes / bandwidth)
    compute = matmuls + work.attention_flops / (peak * _attention_share(gpu, calibration))
    compute += work.memory_bytes / bandwidth
    accum = work.grad_accum
    comm = 0.0
    if link is not None:
        comm = (work.comm_bytes + work.comm_step_bytes / accum) / (
            link.effective * calibration.link_share
        )
    busy = max(compute, comm) + (1 - calibration.overlap) * min(compute, comm)
    host = work.host_ops * calibration.host_seconds_per_op
    step = work.optimizer_bytes / bandwidth + work.offload_step_seconds
    step = (step + paging_seconds(work, gpu)) / accum
    return busy + host + step + work.offload_seconds


def _link(gpu: GpuSpec, gpus: int, stated: Link | None) -> Interconnect | None:
    return interconnect(gpu, gpus, stated) if gpus > 1 else None


def per_gpu_rate(
    work: StepWork,
    single: StepWork | None,
    gpu: GpuSpec,
    link: Interconnect | None,
    calibration: Calibration = CALIBRATION,
) -> float:
    """Tokens per second on one GPU of a run whose micro-batch is `work`. A card never trains
    faster for having company: sharding spreads the optimizer's update over the cards, and where
    that saves more than the collectives cost the figure would promise more than linear scaling,
    which no published run shows; the run on one card (`single`) caps it (the safe side)."""
    rate = work.tokens / micro_batch_seconds(work, gpu, link, calibration)
    if single is None:
        return rate
    return min(rate, single.tokens / micro_batch_seconds(single, gpu, None, calibration))


def single_card_work(query: FitQuery, model: ModelSpec) -> StepWork:
    """The same run on one card, which caps each card's rate in a bigger run: its memory (and
    so what a paged optimizer spills) is sized for one card too, not for the sharded run."""
    return step_work(replace(query, gpus=1), model, 1)


def tokens_per_second(
    query: FitQuery,
    model: ModelSpec,
    gpu: GpuSpec,
    gpus: int = 1,
    link: Link | None = None,
    calibration: Calibration = CALIBRATION,
) -> float:
    """Training throughput per GPU; `link` as stated, else read from the card."""
    work = step_work(query, model, gpus)
    single = single_card_work(query, model) if gpus > 1 else None
    return per_gpu_rate(work, single, gpu, _link(gpu, gpus, link), calibration)


def training_time(
    query: FitQuery,
    model: ModelSpec,
    gpu: GpuSpec,
    gpus: int,
    link: Link | None = None,
    speed: float = 1.0,
) -> TrainingTime | None:
    """The run's time on `gpus` cards; `speed` scales the model's throughput by a person's own
    measurement of their setup (estimator.measurement)."""
    tokens = total_tokens(query)
    if tokens is None or gpu.tflops <= 0:
        return None
    per_gpu = tokens_per_second(query, model, gpu, gpus, link) * speed
    per_token = flops_per_token(query, model)
    hours = tokens / (per_gpu * gpus) / 3600
    return TrainingTime(
        tokens=tokens,
        flops_per_token=per_token,
        hours=hours,
        mfu=per_gpu * per_token / (gpu.tflops * 1e12),
        tokens_per_second=per_gpu,
        link=_link(gpu, gpus, link),
        band=band(hours, query.stack, query.method),
    )
