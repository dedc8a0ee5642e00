"""What CPU offload costs: the host RAM it needs and the time of the optimizer step on the CPU.

ZeRO-Offload (DeepSpeed `offload_optimizer`) and FSDP's CPUOffload move the fp32 master
weights, the gradients and the optimizer state to host RAM and run the optimizer step on the
CPU; `offload_param` (and FSDP, which offloads both) keeps the parameters there too and
streams them to the GPU layer by layer. estimator.memory sizes what is left on the GPU; this
module sizes the other side, per server (every rank of one server shares its RAM and CPUs).

Host RAM follows DeepSpeed's own estimate of the model states it offloads
(deepspeedai/DeepSpeed deepspeed/runtime/zero/stage3.py
`estimate_zero3_model_states_mem_needs` @edaa7221: 16 bytes a parameter with the optimizer
offloaded, 18 with the parameters too, times `additional_buffer_factor=1.5`), written out by
what each byte is so that other precisions, optimizers and adapter runs follow from the same
rule. The model must also pass through host RAM once when it is loaded: Answer.AI's fsdp_qlora
filled 128 GB of RAM loading Llama-2-70B (141 GB in 16 bits) for an offloaded QLoRA run and
needed swap to get past it (AnswerDotAI/fsdp_qlora benchmarks_03_2024.md @23fafdfb4a, "Llama
70B"), so the need is never below the 16-bit checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.memory import base_width, estimate_memory, quantised_linears, stored_model
from estimator.optimizers import Width, state_of
from estimator.optimizers import bytes_per_param as optimizer_bytes
from estimator.query import (
    Checkpointing,
    FitQuery,
    Method,
    Offload,
    Optimizer,
    Precision,
    Sharding,
)
from estimator.specs import ModelSpec
from estimator.stacks import profile

# DeepSpeed's margin over the bytes of the offloaded states: its pinned transfer buffers,
# partition padding and fragmentation (`additional_buffer_factor=1.5`, stage3.py and
# stage_1_and_2.py @edaa7221).
BUFFER_FACTOR = 1.5
# The state the CPU optimizer keeps, what estimator.optimizers says each optimizer keeps, in
# fp32 where the GPU optimizer would have quantised it: DeepSpeed's offload runs
# DeepSpeedCPUAdam ("Optimizer states stay fp32 on CPU", docs/_pages/config-json.md @edaa7221)
# and refuses a client optimizer such as bitsandbytes' 8-bit AdamW unless forced; torch's CPU
# optimizers keep the parameter's own dtype.
_QUANTISED = frozenset({Width.INT8, Width.INT4})
# The CPU step's rate below was measured with Adam: its fp32 update reads the parameter, the
# gradient and two moments and writes the parameter and the moments (3 × 4 + 2 × 8 bytes).
# Another optimizer's step takes as long as its update's bytes against those.
ADAM_CPU_UPDATE_BYTES = 3 * 4.0 + 2 * 8.0
# Parameters one server's CPUs update a second, gradients down and parameters back up over
# PCIe included. DeepSpeed's ZenFlow post measures the CPU path of a ZeRO-Offload step of
# Llama-2-7B (6.74B parameters) on 4x A100 at "longer than 4s" (blogs/deepspeed-zenflow/
# README.md @edaa7221): at most 1.7e9 a second. A maintainer-read report of Qwen-72B on 4 nodes
# of 8x A100-80GB, optimizer and parameters offloaded, steps in ~10 s against ~0.2 s without
# (github.com/deepspeedai/DeepSpeed/issues/6834, 2024-12-11): 72.7e9 / 4 nodes / 10 s =
# 1.8e9 a second a node. The slower figure is taken.
CPU_STEP_PARAMS_PER_SECOND = 1.7e9
# Host-to-GPU bandwidth that streams offloaded parameters: PCIe 4.0 x16, "≈ 32 GB/s" (the
# ZenFlow post's figure). Counted as not overlapping the compute, though DeepSpeed and FSDP
# prefetch the next layer: the safe side, and slower servers ("a cloud machine with slower RAM
# and a wimpy CPU ... many times slower", the fsdp_qlora benchmarks) do exist.
PCIE_BYTES_PER_SECOND = 32e9
# The optimizer, and so the CPU step, comes once per optimizer step: every `FitQuery.grad_accum`
# micro-batches, 1 unless the run says otherwise (transformers' gradient_accumulation_steps
# defaults to 1: huggingface/transformers src/transformers/training_args.py @00349ae8).


@dataclass(frozen=True)
class HostRam:
    """Bytes of host RAM one server needs for an offloaded run, by part."""

    master: float  # fp32 master weights of what is trained
    gradients: float  # the gradients the CPU optimizer reads
    optimizer: float  # the optimizer's moments
    params: float  # the parameters themselves, with offload=params (frozen base included)
    checkpoint: float  # the 16-bit model, which passes through host RAM as it loads

    @property
    def states(self) -> float:
        return self.master + self.gradients + self.optimizer + self.params

    @property
    def needed(self) -> float:
        """What the server must have: the states with DeepSpeed's margin, never less than the
        checkpoint it loads."""
        return max(self.states * BUFFER_FACTOR, self.checkpoint)


@dataclass(frozen=True)
class OffloadCost:
    """What one offloaded run costs beyond the GPU: RAM and CPU time."""

    offload: Offload
    ram: HostRam
    step_seconds: float  # one optimizer step on the server's CPUs
    stream_seconds: float  # streaming the offloaded parameters for one micro-batch, per GPU

    @property
    def ram_gb(self) -> float:
        """Host RAM needed, in GB as providers sell it (10^9 bytes)."""
        return self.ram.needed / 1e9


def trained_width(precision: Precision) -> float:
    """Bytes of a trained tensor's master copy and gradient: fp32 unless pure 16-bit."""
    return 2.0 if precision in (Precision.BF16, Precision.FP16) else 4.0


def base_bytes(query: FitQuery, model: ModelSpec) -> float:
    """The frozen or 16-bit compute copy of the whole model, as the GPU reads it: NF4 for the
    quantised linears of a QLoRA run, 16-bit (or fp32) for the rest."""
    rest = base_width(query)
    model = stored_model(model, profile(query.stack))
    if query.method is not Method.QLORA:
        return model.total_params * rest
    quantised, per = quantised_linears(query, model)
    return quantised * per + (model.total_params - quantised) * rest


def host_ram(query: FitQuery, model: ModelSpec) -> HostRam:
    """The host RAM an offloaded run needs on its server (zeros without offload)."""
    checkpoint = model.total_params * 2.0
    if query.offload is Offload.NONE:
        return HostRam(0.0, 0.0, 0.0, 0.0, 0.0)
    trainable = estimate_memory(query, model).trainable_params
    width = trained_width(query.precision)
    # Pure 16-bit training keeps no separate master: the parameter is its own master copy.
    master = trainable * 4.0 if query.precision is Precision.MIXED else 0.0
    gradients = trainable * width
    optimizer = trainable * cpu_state_bytes(query.optimizer, model, _moment(query))
    params = 0.0
    if query.offload is Offload.PARAMS:
        if query.method is Method.FULL:
            # The 16-bit copy beside the fp32 master (DeepSpeed's 18 against 16 bytes); pure
            # 16-bit and fp32 runs compute from the master itself.
            params = trainable * 2.0 if query.precision is Precision.MIXED else trainable * width
        else:
            params = base_bytes(query, model) + trainable * width  # base and the adapters
    return HostRam(master, gradients, optimizer, params, checkpoint)


def _passes(query: FitQuery) -> int:
    """Times a micro-batch reads every weight: forward, backward, and the forward again under
    gradient checkpointing."""
    return 2 if query.grad_checkpointing is Checkpointing.OFF else 3


def _moment(query: FitQuery) -> float:
    """Bytes of one CPU optimizer state value: fp32 beside fp32 masters, else the trained
    tensor's own width (torch's CPU optimizers keep the parameter's dtype)."""
    return 4.0 if query.precision is Precision.MIXED else trained_width(query.precision)


def cpu_state_bytes(optimizer: Optimizer, model: ModelSpec, moment: float = 4.0) -> float:
    """Bytes per trained parameter of the state the CPU optimizer keeps, `moment` bytes a value
    (quantised states kept at that width instead)."""
    state = state_of(optimizer)
    if state.width in _QUANTISED:
        return state.tensors * moment
    return optimizer_bytes(optimizer, moment, model.hidden, model.intermediate)


def step_seconds(query: FitQuery, model: ModelSpec) -> float:
    """One optimizer step on the server's CPUs (0 without offload): the measured Adam rate,
    scaled by the bytes this optimizer's update moves against fp32 Adam's, in the widths the
    host keeps (`host_ram`): a pure-bf16 run's CPU step moves half of fp32 Adam's bytes."""
    if query.offload is Offload.NONE:
        return 0.0
    width = trained_width(query.precision)
    update = 3 * width + 2 * cpu_state_bytes(query.optimizer, model, _moment(query))
    trainable = estimate_memory(query, model).trainable_params
    return trainable / CPU_STEP_PARAMS_PER_SECOND * update / ADAM_CPU_UPDATE_BYTES


def stream_seconds(query: FitQuery, model: ModelSpec, gpus: int) -> float:
    """Streaming the offloaded parameters to one GPU for one micro-batch (0 unless
    offload=params): under ZeRO-3/FSDP each GPU fetches its shard and the all-gather does the
    rest; otherwise each GPU reads the whole model over its own link."""
    if query.offload is not Offload.PARAMS:
        return 0.0
    sharded = query.shard in (Sharding.ZERO3, Sharding.FSDP) and gpus > 1
    share = base_bytes(query, model) / (gpus if sharded else 1)
    return _passes(query) * share / PCIE_BYTES_PER_SECOND


def offload_cost(query: FitQuery, model: ModelSpec) -> OffloadCost | None:
    """RAM and CPU time of the run's offload on its own card count; None when nothing is
    offloaded."""
    if query.offload is Offload.NONE:
        return None
    return OffloadCost(
        query.offload,
        host_ram(query, model),
        step_seconds(query, model),
        stream_seconds(query, model, query.gpus),
    )
