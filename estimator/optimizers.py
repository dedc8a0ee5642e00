"""Every optimizer name the four libraries people fine-tune with accept, and what each keeps.

An optimizer's memory is its state per trainable parameter: how many parameter-sized tensors
it keeps, at what width (the parameter's own dtype, fp32 whatever the parameter, or 8/4-bit
codes with one fp32 scale per block), and whether bitsandbytes pages it (CUDA managed memory:
outside torch's allocator, spilled to host RAM when the card is full). Each name below is
mapped to the `Optimizer` the estimator sizes, and each `Optimizer` to its `OptimizerState`,
read from the code at the commit named beside the table. Names are matched lower-case, as the
command grammar reads values (`optim=paged_adamw_32bit`, `optim=PagedAdamW8bit`).

A name two libraries share means different things: torch's `AdamW` keeps its moments in the
parameter's dtype, bitsandbytes' `AdamW` (optim_bits=32) in fp32; torch's `SGD` keeps nothing
by default (momentum=0), bitsandbytes' `SGD` refuses to run without momentum. `NAMES` takes
transformers' meaning first, then torch's, then bitsandbytes' and torchao's class names that
no earlier library uses; each library's own table keeps its meaning
(tests/estimator/test_optimizers.py walks every one).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from estimator.query import Optimizer


class Width(StrEnum):
    """The storage of one state tensor."""

    PARAM = "param"  # the parameter's own dtype (torch.optim: zeros_like(p))
    FP32 = "fp32"  # fp32 whatever the parameter (bitsandbytes optim_bits=32, AnyPrecision)
    INT8 = "int8"  # one byte a value (bitsandbytes 8-bit, torchao AdamW8bit/AdamWFp8)
    INT4 = "int4"  # half a byte a value (torchao AdamW4bit)


@dataclass(frozen=True)
class OptimizerState:
    """What an optimizer keeps for one trainable matrix, per parameter."""

    tensors: int  # parameter-sized state tensors (moments, momentum, EMA, z)
    width: Width = Width.PARAM
    block: int = 0  # elements per fp32 absmax/scale of a quantised state (0: none)
    paged: bool = False  # bitsandbytes is_paged: CUDA managed memory (F.get_paged)
    # Adafactor-style second moment factored into a row and a column vector per matrix.
    factored: bool = False
    # GaLore / APOLLO: moments kept on a rank-`low_rank` projection of each targeted linear's
    # gradient (plus GaLore's projection matrix); embeddings and norms keep full AdamW state.
    low_rank: int = 0
    projector: bool = False  # the projection matrix is stored (GaLore), not reseeded (APOLLO)
    # The update runs inside backward, one parameter at a time (LOMO, AdaLomo, the layer-wise
    # GaLore/APOLLO hooks): the whole model's gradient never exists at once.
    in_backward: bool = False
    # optimi's StableAdamW keeps a Kahan compensation buffer for 16-bit parameters
    # (kahan_sum=None turns it on for low-precision parameters).
    kahan_for_16bit: bool = False


# bitsandbytes' 8-bit states: one byte a value and one fp32 absmax per block of 256
# (bitsandbytes-foundation/bitsandbytes bitsandbytes/optim/optimizer.py @95f9af309d,
# Optimizer2State/Optimizer1State.init_state: `blocksize = 256`, absmax fp32); torchao's
# AdamW8bit and AdamWFp8 store the same: uint8/fp8 codes and one fp32 scale per 256
# (pytorch/ao torchao/optim/subclass_8bit.py, subclass_fp8.py @36027d82d1 `zeros`).
INT8_BLOCK = 256
# torchao AdamW4bit: two 4-bit codes a byte, one fp32 scale per 128 (adam.py AdamW4bit
# block_size=128; subclass_4bit.py `zeros`). transformers passes block_size 256, which stores
# fewer scales: the library default is the larger state.
INT4_BLOCK = 128
# The rank transformers gives GaLore and APOLLO unless optim_args say otherwise
# (huggingface/transformers src/transformers/trainer_optimizer.py @0a14d8d782: "rank": 128).
LOW_RANK_DEFAULT = 128
# torch.optim.LBFGS keeps up to history_size (default 100) pairs of flat direction and step
# vectors, plus the direction, the previous flat gradient and one more flat temporary
# (pytorch/pytorch torch/optim/lbfgs.py: old_dirs, old_stps, d, prev_flat_grad).
LBFGS_TENSORS = 2 * 100 + 3

STATES: dict[Optimizer, OptimizerState] = {
    Optimizer.ADAMW: OptimizerState(2),
    Optimizer.ADAMW_32BIT: OptimizerState(2, Width.FP32),
    Optimizer.PAGED_ADAMW: OptimizerState(2, Width.FP32, paged=True),
    Optimizer.ADAMW_8BIT: OptimizerState(2, Width.INT8, INT8_BLOCK),
    Optimizer.PAGED_ADAMW_8BIT: OptimizerState(2, Width.INT8, INT8_BLOCK, paged=True),
    Optimizer.ADAMW_4BIT: OptimizerState(2, Width.INT4, INT4_BLOCK),
    # AdEMAMix: a fast and a slow first moment and the second moment (bitsandbytes
    # ademamix.py init_state: state1 a double buffer, state2 one).
    Optimizer.ADEMAMIX: OptimizerState(3, Width.FP32),
    Optimizer.ADEMAMIX_8BIT: OptimizerState(3, Width.INT8, INT8_BLOCK),
    Optimizer.PAGED_ADEMAMIX: OptimizerState(3, Width.FP32, paged=True),
    Optimizer.PAGED_ADEMAMIX_8BIT: OptimizerState(3, Width.INT8, INT8_BLOCK, paged=True),
    Optimizer.LION: OptimizerState(1, Width.FP32),  # one momentum (bitsandbytes lion.py)
    Optimizer.LION_8BIT: OptimizerState(1, Width.INT8, INT8_BLOCK),
    Optimizer.PAGED_LION: OptimizerState(1, Width.FP32, paged=True),
    Optimizer.PAGED_LION_8BIT: OptimizerState(1, Width.INT8, INT8_BLOCK, paged=True),
    # torch RMSprop (square_avg; momentum and centered off by default), Adagrad (sum), ASGD
    # (ax), Muon (momentum_buffer), SGD with momentum (momentum_buffer): one state tensor.
    Optimizer.RMSPROP: OptimizerState(1),
    Optimizer.RMSPROP_32BIT: OptimizerState(1, Width.FP32),  # bitsandbytes one-state, 32-bit
    Optimizer.RMSPROP_8BIT: OptimizerState(1, Width.INT8, INT8_BLOCK),
    Optimizer.SGD: OptimizerState(0),  # torch SGD's default momentum=0 keeps no buffer
    Optimizer.SGD_MOMENTUM: OptimizerState(1),
    # transformers' Adafactor (beta1=None: no first moment) and torch.optim.Adafactor keep a
    # row and a column vector of the second moment per matrix.
    Optimizer.ADAFACTOR: OptimizerState(0, Width.FP32, factored=True),
    Optimizer.LOMO: OptimizerState(0, in_backward=True),
    Optimizer.ADALOMO: OptimizerState(0, Width.FP32, factored=True, in_backward=True),
    Optimizer.GALORE: OptimizerState(2, low_rank=LOW_RANK_DEFAULT, projector=True),
    Optimizer.GALORE_8BIT: OptimizerState(
        2, Width.INT8, INT8_BLOCK, low_rank=LOW_RANK_DEFAULT, projector=True
    ),
    Optimizer.GALORE_ADAFACTOR: OptimizerState(
        0, Width.FP32, factored=True, low_rank=LOW_RANK_DEFAULT, projector=True
    ),
    Optimizer.GALORE_LAYERWISE: OptimizerState(
        2, low_rank=LOW_RANK_DEFAULT, projector=True, in_backward=True
    ),
    Optimizer.GALORE_8BIT_LAYERWISE: OptimizerState(
        2, Width.INT8, INT8_BLOCK, low_rank=LOW_RANK_DEFAULT, projector=True, in_backward=True
    ),
    Optimizer.GALORE_ADAFACTOR_LAYERWISE: OptimizerState(
        0,
        Width.FP32,
        factored=True,
        low_rank=LOW_RANK_DEFAULT,
        projector=True,
        in_backward=True,
    ),
    Optimizer.APOLLO: OptimizerState(2, low_rank=LOW_RANK_DEFAULT),
    Optimizer.APOLLO_LAYERWISE: OptimizerState(2, low_rank=LOW_RANK_DEFAULT, in_backward=True),
    # GrokAdamW: exp_avg, exp_avg_sq and the gradients' EMA (grok_ema).
    Optimizer.GROKADAMW: OptimizerState(3),
    Optimizer.STABLE_ADAMW: OptimizerState(2, kahan_for_16bit=True),
    Optimizer.LBFGS: OptimizerState(LBFGS_TENSORS),
}


def state_of(optimizer: Optimizer) -> OptimizerState:
    return STATES[optimizer]


def _value_bytes(width: Width, param_bytes: float) -> float:
    return {
        Width.PARAM: param_bytes,
        Width.FP32: 4.0,
        Width.INT8: 1.0,
        Width.INT4: 0.5,
    }[width]


def bytes_per_param(
    optimizer: Optimizer, param_bytes: float, rows: int, cols: int, targeted: bool = True
) -> float:
    """State bytes per parameter of a `rows` x `cols` matrix whose parameters are stored in
    `param_bytes` bytes. `targeted`: a low-rank optimizer projects this matrix (GaLore and
    APOLLO project the linears they target; other parameters get plain AdamW state)."""
    state = STATES[optimizer]
    value = _value_bytes(state.width, param_bytes)
    scales = 4.0 / state.block if state.block else 0.0
    small, large = sorted((max(1, rows), max(1, cols)))
    if state.low_rank and not targeted:
        return 2 * param_bytes
    if state.low_rank and state.low_rank < small:
        # Moments on the rank-r projection (r x the large side); GaLore keeps the projection
        # matrix too (the small side x r, in the parameter's dtype).
        share = state.low_rank / small
        projector = share * param_bytes if state.projector else 0.0
        moments = state.tensors * share * (value + scales)
        if state.factored:
            moments += 4.0 * (1 / state.low_rank + 1 / large) * share
        return moments + projector
    total = state.tensors * (value + scales)
    if state.factored:
        total += 4.0 * (1 / rows + 1 / cols)  # the fp32 row and column vectors
    if state.kahan_for_16bit and param_bytes < 4.0:
        total += param_bytes
    return total


# --- the names each library accepts -------------------------------------------------------

# huggingface/transformers src/transformers/training_args.py @00349ae87e, `OptimizerNames`,
# dispatched by src/transformers/trainer_optimizer.py @0a14d8d782 (`_OPTIMIZER_HANDLERS`).
TRANSFORMERS_NAMES: dict[str, Optimizer] = {
    "adamw_torch": Optimizer.ADAMW,  # torch.optim.AdamW
    "adamw_torch_fused": Optimizer.ADAMW,  # torch.optim.AdamW(fused=True)
    "adamw_torch_xla": Optimizer.ADAMW,  # torch_xla syncfree AdamW
    "adamw_torch_npu_fused": Optimizer.ADAMW,  # torch_npu NpuFusedAdamW
    "adamw_apex_fused": Optimizer.ADAMW,  # apex FusedAdam: moments zeros_like(p)
    "adafactor": Optimizer.ADAFACTOR,  # transformers Adafactor, beta1=None
    # torchdistx AnyPrecisionAdamW with transformers' defaults: momentum_dtype and
    # variance_dtype float32, no Kahan buffer.
    "adamw_anyprecision": Optimizer.ADAMW_32BIT,
    "adamw_torch_4bit": Optimizer.ADAMW_4BIT,  # torchao AdamW4bit
    "adamw_torch_8bit": Optimizer.ADAMW_8BIT,  # torchao AdamW8bit
    # bitsandbytes AdEMAMix, optim_bits 32 ("8bit" not in the name), not paged.
    "ademamix": Optimizer.ADEMAMIX,
    "sgd": Optimizer.SGD,  # torch.optim.SGD with the learning rate only: momentum 0
    "adagrad": Optimizer.RMSPROP,  # torch.optim.Adagrad: one `sum` state
    "adamw_bnb_8bit": Optimizer.ADAMW_8BIT,
    "adamw_8bit": Optimizer.ADAMW_8BIT,  # "just an alias for adamw_bnb_8bit"
    "ademamix_8bit": Optimizer.ADEMAMIX_8BIT,
    "lion_8bit": Optimizer.LION_8BIT,
    "lion_32bit": Optimizer.LION,
    "paged_adamw_32bit": Optimizer.PAGED_ADAMW,  # bitsandbytes AdamW, 32-bit, is_paged
    "paged_adamw_8bit": Optimizer.PAGED_ADAMW_8BIT,
    "paged_ademamix_32bit": Optimizer.PAGED_ADEMAMIX,
    "paged_ademamix_8bit": Optimizer.PAGED_ADEMAMIX_8BIT,
    "paged_lion_32bit": Optimizer.PAGED_LION,
    "paged_lion_8bit": Optimizer.PAGED_LION_8BIT,
    "rmsprop": Optimizer.RMSPROP,  # torch.optim.RMSprop
    # bitsandbytes RMSprop: 32-bit unless "8bit" is in the name; never paged.
    "rmsprop_bnb": Optimizer.RMSPROP_32BIT,
    "rmsprop_bnb_8bit": Optimizer.RMSPROP_8BIT,
    "rmsprop_bnb_32bit": Optimizer.RMSPROP_32BIT,
    "galore_adamw": Optimizer.GALORE,
    "galore_adamw_8bit": Optimizer.GALORE_8BIT,
    "galore_adafactor": Optimizer.GALORE_ADAFACTOR,
    "galore_adamw_layerwise": Optimizer.GALORE_LAYERWISE,
    "galore_adamw_8bit_layerwise": Optimizer.GALORE_8BIT_LAYERWISE,
    "galore_adafactor_layerwise": Optimizer.GALORE_ADAFACTOR_LAYERWISE,
    "lomo": Optimizer.LOMO,  # lomo_optim Lomo: the update fused into backward, no state
    "adalomo": Optimizer.ADALOMO,  # lomo_optim AdaLomo: factored second moment
    "grokadamw": Optimizer.GROKADAMW,
    "schedule_free_radam": Optimizer.ADAMW,  # RAdamScheduleFree: z and exp_avg_sq
    "schedule_free_adamw": Optimizer.ADAMW,  # AdamWScheduleFree: z and exp_avg_sq
    "schedule_free_sgd": Optimizer.SGD_MOMENTUM,  # SGDScheduleFree: z
    "apollo_adamw": Optimizer.APOLLO,
    "apollo_adamw_layerwise": Optimizer.APOLLO_LAYERWISE,
    "stable_adamw": Optimizer.STABLE_ADAMW,  # optimi StableAdamW
}

# pytorch/pytorch torch/optim/__init__.py @1d8774cf97 (`__all__`), and torch.optim.Muon
# (torch/optim/_muon.py @b5ee4d7a79, one momentum_buffer per 2-D parameter). Each keeps its
# state in the parameter's dtype (zeros_like(p)), with the constructor's defaults.
TORCH_NAMES: dict[str, Optimizer] = {
    "adafactor": Optimizer.ADAFACTOR,  # row_var and col_var per matrix, no first moment
    "adadelta": Optimizer.ADAMW,  # square_avg, acc_delta
    "adagrad": Optimizer.RMSPROP,  # sum
    "adam": Optimizer.ADAMW,  # exp_avg, exp_avg_sq (amsgrad off)
    "adamax": Optimizer.ADAMW,  # exp_avg, exp_inf
    "adamw": Optimizer.ADAMW,
    "asgd": Optimizer.RMSPROP,  # ax (eta and mu are scalars)
    "lbfgs": Optimizer.LBFGS,
    "muon": Optimizer.RMSPROP,  # momentum_buffer
    "nadam": Optimizer.ADAMW,  # exp_avg, exp_avg_sq
    "radam": Optimizer.ADAMW,  # exp_avg, exp_avg_sq
    "rmsprop": Optimizer.RMSPROP,  # square_avg
    "rprop": Optimizer.ADAMW,  # prev, step_size
    "sgd": Optimizer.SGD,  # momentum=0: no momentum_buffer
    "sparseadam": Optimizer.ADAMW,  # exp_avg, exp_avg_sq
}

# bitsandbytes-foundation/bitsandbytes bitsandbytes/optim/__init__.py @95f9af309d: the
# classes' own defaults (AdamW, Adam, Lion, AdEMAMix, RMSprop, Adagrad, SGD, LARS, LAMB:
# optim_bits=32, fp32 states; the *8bit classes 8-bit; Paged*: is_paged=True). LAMB8bit and
# LARS8bit are not block-wise: one byte a value and a few scalars, sized here as block-wise.
BITSANDBYTES_NAMES: dict[str, Optimizer] = {
    "adagrad": Optimizer.RMSPROP_32BIT,
    "adagrad8bit": Optimizer.RMSPROP_8BIT,
    "adagrad32bit": Optimizer.RMSPROP_32BIT,
    "adam": Optimizer.ADAMW_32BIT,
    "adam8bit": Optimizer.ADAMW_8BIT,
    "adam32bit": Optimizer.ADAMW_32BIT,
    "pagedadam": Optimizer.PAGED_ADAMW,
    "pagedadam8bit": Optimizer.PAGED_ADAMW_8BIT,
    "pagedadam32bit": Optimizer.PAGED_ADAMW,
    "adamw": Optimizer.ADAMW_32BIT,
    "adamw8bit": Optimizer.ADAMW_8BIT,
    "adamw32bit": Optimizer.ADAMW_32BIT,
    "pagedadamw": Optimizer.PAGED_ADAMW,
    "pagedadamw8bit": Optimizer.PAGED_ADAMW_8BIT,
    "pagedadamw32bit": Optimizer.PAGED_ADAMW,
    "ademamix": Optimizer.ADEMAMIX,
    "ademamix8bit": Optimizer.ADEMAMIX_8BIT,
    "ademamix32bit": Optimizer.ADEMAMIX,
    "pagedademamix": Optimizer.PAGED_ADEMAMIX,
    "pagedademamix8bit": Optimizer.PAGED_ADEMAMIX_8BIT,
    "pagedademamix32bit": Optimizer.PAGED_ADEMAMIX,
    "lamb": Optimizer.ADAMW_32BIT,
    "lamb8bit": Optimizer.ADAMW_8BIT,
    "lamb32bit": Optimizer.ADAMW_32BIT,
    "lars": Optimizer.RMSPROP_32BIT,  # momentum only ("LARS without momentum is not supported")
    "lars8bit": Optimizer.RMSPROP_8BIT,
    "lars32bit": Optimizer.RMSPROP_32BIT,
    "pytorchlars": Optimizer.RMSPROP,  # a torch.optim.Optimizer: momentum_buffer zeros_like(p)
    "lion": Optimizer.LION,
    "lion8bit": Optimizer.LION_8BIT,
    "lion32bit": Optimizer.LION,
    "pagedlion": Optimizer.PAGED_LION,
    "pagedlion8bit": Optimizer.PAGED_LION_8BIT,
    "pagedlion32bit": Optimizer.PAGED_LION,
    "rmsprop": Optimizer.RMSPROP_32BIT,
    "rmsprop8bit": Optimizer.RMSPROP_8BIT,
    "rmsprop32bit": Optimizer.RMSPROP_32BIT,
    "sgd": Optimizer.RMSPROP_32BIT,  # momentum required ("SGD without momentum is not supported")
    "sgd8bit": Optimizer.RMSPROP_8BIT,
    "sgd32bit": Optimizer.RMSPROP_32BIT,
}

# pytorch/ao torchao/optim/__init__.py @36027d82d1 (`__all__`; torchao.prototype.low_bit_optim
# before 0.11 exported the same classes). _AdamW keeps plain moments in the parameter's dtype.
TORCHAO_NAMES: dict[str, Optimizer] = {
    "adam4bit": Optimizer.ADAMW_4BIT,
    "adam8bit": Optimizer.ADAMW_8BIT,
    "adamfp8": Optimizer.ADAMW_8BIT,  # fp8 codes, one fp32 scale per 256
    "adamw4bit": Optimizer.ADAMW_4BIT,
    "adamw8bit": Optimizer.ADAMW_8BIT,
    "adamwfp8": Optimizer.ADAMW_8BIT,
    "_adamw": Optimizer.ADAMW,
}

LIBRARIES: dict[str, dict[str, Optimizer]] = {
    "transformers": TRANSFORMERS_NAMES,
    "torch": TORCH_NAMES,
    "bitsandbytes": BITSANDBYTES_NAMES,
    "torchao": TORCHAO_NAMES,
}


def _merged() -> dict[str, Optimizer]:
    names: dict[str, Optimizer] = {}
    for table in LIBRARIES.values():  # transformers first: its names are what people type
        for name, optimizer in table.items():
            names.setdefault(name, optimizer)
    return names


# Every name, as the command grammar reads it: transformers' meaning first, then torch's,
# then the class names of bitsandbytes and torchao no earlier library uses.
NAMES: dict[str, Optimizer] = _merged()
