"""Training throughput the estimator predicts against published, measured tokens/s per GPU.

Reads tests/fixtures/estimator/throughput.csv (every row names its source at a commit and the
settings its code used; provenance in tests/fixtures/estimator/README.md). The time model
(estimator/timing.py) has a few constants no datasheet or code gives (`Calibration`: the share
of the peak each class of card sustains in training matmuls, the host's time per kernel, the
share of a link's bandwidth collectives reach and how much of it hides behind compute). For
every repository the bench fits them on every *other* repository, within `RANGES`, and scores
the held-out one: the out-of-sample figure the target applies to, since a person's run comes
from a setup the model has not seen. Printed beside it, from the same run: the model as it
stood before the rebuild (bench/speed_before.py, constants set by hand from four of the
repositories) and one flat 35 % MFU for every card.

Per row: measured and predicted tokens/s per GPU; then the median |error|, the share within
25 % and the signed median (+ = predicted too fast, so too few hours quoted) overall and by
method, GPU count, card class, interconnect, data layout and stack.

    .venv/bin/python -m bench.estimator_speed [--csv FILE] [--misses] [--fit] [--write-claim]

--fit prints the constants fitted on every row (what estimator/timing.py ships);
--write-claim rewrites estimator/data/speed_accuracy.csv, the claim and band the answers show.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from pathlib import Path

from bench.speed_before import tokens_per_second as tokens_per_second_before
from estimator import speed_accuracy
from estimator.accuracy import ALL, AccuracyLine, line_from, write_lines
from estimator.fit import Verdict, judge_run
from estimator.gpus import get
from estimator.interconnect import Interconnect, Link, geforce, interconnect
from estimator.models import match_model, model_for_size
from estimator.parsing.patterns import size_value
from estimator.query import (
    Attention,
    Checkpointing,
    FitQuery,
    Loss,
    Method,
    Offload,
    Optimizer,
    Packing,
    Precision,
    Sharding,
    Stack,
    Targets,
)
from estimator.specs import GpuSpec, ModelSpec
from estimator.step import StepWork, step_work
from estimator.timing import (
    CALIBRATION,
    Calibration,
    card_class,
    flops_per_token,
    per_gpu_rate,
    single_card_work,
)

DEFAULT_CSV = Path(__file__).resolve().parents[1] / "tests/fixtures/estimator/throughput.csv"
# The goal for the time model, on repositories it was not fitted on.
TARGET_MEDIAN = 0.15
TARGET_WITHIN_25 = 0.70
WITHIN = 0.25
FLAT_MFU = 0.35
FLAT_QLORA_SPEED = 0.65

# The brackets the fit searches, from what is known of each constant:
# - matmul shares: from a third of the peak up to the largest matmul's measured ceiling where
#   one is published (A100 SXM 86.9 %, H100 SXM 80.3 %: stas00/ml-engineering
#   compute/accelerator/README.md @744d01e, "Maximum Achievable Matmul FLOPS"), else the
#   datasheet peak itself (GeForce boards boost past the reference clock their peak is quoted
#   at, hence 1.1);
# - adapters: LoRA trains 25 % faster than a full fine-tune of GPT-3 175B (Hu et al., arXiv
#   2106.09685) on 2/3 of the FLOPs, so its matmuls ran at 0.83 of full's rate; from 0.6 to 1;
# - attention: from FlashAttention-1's 25 % of an A100's peak to FlashAttention-2's 73 % (Dao,
#   arXiv 2307.08691, abstract);
# - the host's time per kernel: a CUDA launch costs a few microseconds; eager PyTorch adds its
#   Python, dispatcher and autograd work on top, tens of microseconds for small ops;
# - what NCCL reaches of a link's datasheet bandwidth: between a third and 90 %;
# - overlap: from none (each collective waits for its data) to all of it.
RANGES: dict[str, tuple[float, float]] = {
    "ampere_dc": (0.35, 0.869),
    "hopper": (0.30, 0.803),
    "workstation": (0.30, 1.0),
    "workstation_ada": (0.20, 1.0),
    "geforce": (0.35, 1.1),
    "adapter_share": (0.6, 1.0),
    "attention_share": (0.25, 0.73),
    "host_seconds_per_op": (2e-6, 40e-6),
    "link_share": (0.30, 0.90),
    "overlap": (0.0, 1.0),
}
# Where each search starts, and where a constant stays when no row informs it (a card class
# whose only repository is held out): the middle of what is known.
PRIOR = Calibration(
    ampere_dc=0.70,
    hopper=0.60,
    workstation=0.65,
    workstation_ada=0.50,
    geforce=0.75,
    adapter_share=0.83,
    attention_share=0.5,
    host_seconds_per_op=10e-6,
    link_share=0.60,
    overlap=0.5,
)
# Errors past this (in log terms, ~65 %) count as this much in the fit, so that one odd row
# cannot drag the constants for all the others.
ROBUST_CAP = 0.5

# The four repositories the old model's constants were set from by hand (bench/speed_before.py):
# scored apart, so that the figures show the rebuilt model does not lean on them.
HAND_TUNED_BEFORE = frozenset(
    {"AnswerDotAI/fsdp_qlora", "mosaicml/llm-foundry", "pytorch/torchtune", "huggingface/peft"}
)

# The training code a row names, and the nearest stack the FitQuery knows. Native PyTorch and
# Megatron trainers (fused or TE kernels, no transformers modelling code) are costed as
# torchtune; loops on transformers models as HF; Answer.AI's fsdp_qlora as axolotl, the
# transformers + PEFT + bitsandbytes stack it shares.
STACK_PROXY: dict[str, Stack] = {
    **{stack.value: stack for stack in Stack},
    "peft": Stack.HF,
    "fms-hf-tuning": Stack.HF,
    "optimum-benchmark": Stack.HF,
    "qwen-finetune": Stack.HF,
    "universal-llm-trainer": Stack.HF,
    "vectorlm": Stack.HF,
    "xtuner": Stack.HF,
    "liger": Stack.HF,
    "fsdp_qlora": Stack.AXOLOTL,
    "llm-foundry": Stack.TORCHTUNE,
    "torchtitan": Stack.TORCHTUNE,
    "nemo-automodel": Stack.TORCHTUNE,
    "megatron": Stack.TORCHTUNE,
}

# Stacks whose own kernels fuse the work between the matmuls, costed as torch.compile's fusion
# (the FitQuery's one lever for it): NeMo's and Megatron's Transformer Engine layers (fused
# norm + linear, RoPE, SwiGLU) and Liger's RMSNorm, RoPE, GeGLU and fused linear cross-entropy.
FUSED_KERNELS = frozenset({"nemo-automodel", "megatron", "liger"})
FUSED_LOSS = frozenset({"liger"})

# torchtune's `optimizer_in_bwd: True`, which the notes name where the row's config sets it: the
# update runs inside backward, so the whole model's gradient is never held and a paged
# optimizer's state has that much more of the card (estimator.timing, `paging_seconds`).
OPTIMIZER_IN_BACKWARD = "optimizer_in_bwd"

# The attention kernels a row can name; all but eager keep no s x s score matrix.
_ATTENTION = {
    "flash": Attention.FLASH,
    "sdpa": Attention.FLASH,
    "te": Attention.FLASH,
    "eager": Attention.EAGER,
}


class DataLayout(StrEnum):
    """What a row's sequences are made of: it decides attention length and tokens per step."""

    FIXED = "fixed"  # synthetic or truncated samples, every one `ctx` tokens
    PACKED = "packed"  # samples concatenated to `ctx`, causal attention across them
    PACKED_VARLEN = "packed-varlen"  # concatenated, but each token attends within its sample
    UNPACKED = "unpacked"  # one sample per row, padded to the longest of its batch


# How each layout fills a FitQuery's rows: a fixed-length sample of ctx tokens attends across
# its whole row, as a packed one does.
_PACKING = {
    DataLayout.FIXED: Packing.PACKED,
    DataLayout.PACKED: Packing.PACKED,
    DataLayout.PACKED_VARLEN: Packing.VARLEN,
    DataLayout.UNPACKED: Packing.NONE,
}


@dataclass(frozen=True)
class SpeedRow:
    """One published run: the query holds its settings, the fields after `source` what the
    FitQuery has no field for."""

    query: FitQuery
    model: ModelSpec
    gpu: GpuSpec
    gpus: int
    measured: float  # tokens/s per GPU, as the source counts them
    source: str  # "github.com/owner/name path @commit"
    stack_name: str  # the training code the source ran ("fsdp_qlora", "nemo-automodel")
    link: Link | None  # as the source states it; None: one GPU, or not stated
    data: DataLayout
    quant: str  # "nf4", "gptq" or "" (16-bit base)
    tokens_per_sample: int | None  # mean real tokens of a sample, where the source gives it
    # The project's research flagged the figure as implausible for the card (80-90 % MFU): it
    # is scored like every row but never fitted on ("do not calibrate on them").
    suspect: bool = False

    @property
    def fitted(self) -> bool:
        """Whether the fit may use the row: not flagged, and its work known. An unpacked run
        whose source gives no sample length processed micro-batches of unknown size (padded to
        the longest of each batch): it is scored at the estimator's default length, as a
        person who gives none is answered, but tells the fit nothing."""
        known = self.data is not DataLayout.UNPACKED or self.tokens_per_sample is not None
        return known and not self.suspect

    @property
    def repository(self) -> str:
        """owner/name of the source: the unit the fit leaves out."""
        return "/".join(self.source.split(" ")[0].split("/")[1:3])

    def interconnect(self) -> Interconnect | None:
        return interconnect(self.gpu, self.gpus, self.link) if self.gpus > 1 else None


def _model(record: dict[str, str]) -> ModelSpec:
    """A row that states its size (a model the catalog lacks) is costed at that size;
    otherwise by its size in the name, otherwise by the catalog's name."""
    if record["params_b"]:
        return model_for_size(float(record["params_b"]))
    size = size_value(record["model"])
    model = model_for_size(size) if size is not None else match_model(record["model"])
    if model is None:
        raise LookupError(f"no catalog model for {record['model']!r}")
    return model


def _stack(name: str) -> Stack:
    if name not in STACK_PROXY:
        raise LookupError(f"no stack proxy for {name!r}: add it to STACK_PROXY")
    return STACK_PROXY[name]


def _query(record: dict[str, str], model: ModelSpec, data: DataLayout) -> FitQuery:
    # Packed and fixed rows are `ctx` tokens each; a sample's own length where the source gives
    # it, else the estimator's default (half of ctx).
    ctx = int(record["ctx"]) if record["ctx"] else FitQuery.ctx
    stated = int(record["tokens_per_sample"]) if record["tokens_per_sample"] else None
    query = FitQuery(
        model=model.id,
        method=Method(record["method"]),
        stack=_stack(record["stack"]),
        grad_checkpointing=Checkpointing(record["gc"]),
        ctx=ctx,
        tokens_per_example=stated,
        micro_batch=int(record["micro_batch"]),
        compiled=record["compiled"] == "true" or record["stack"] in FUSED_KERNELS,
        gpus=int(record["gpus"]),
        shard=Sharding(record["shard"]) if record["shard"] else Sharding.DDP,
        offload=Offload(record["offload"]) if record["offload"] else Offload.NONE,
        packing=_PACKING[data],
        grad_accum=int(record["grad_accum"]) if record["grad_accum"] else 1,
        optimizer_in_backward=OPTIMIZER_IN_BACKWARD in record["notes"],
    )
    if record["attention"] in _ATTENTION:
        query = replace(query, attention=_ATTENTION[record["attention"]])
    if record["stack"] in FUSED_LOSS:
        query = replace(query, loss=Loss.FUSED)
    if record["optimizer"]:
        query = replace(query, optimizer=Optimizer(record["optimizer"]))
    if record["precision"]:
        query = replace(query, precision=Precision(record["precision"]))
    if record["targets"]:
        query = replace(query, targets=Targets(record["targets"]))
    if record["rank"]:
        query = replace(query, lora_rank=int(record["rank"]))
    if not record["shard"] and query.gpus > 1:
        query = replace(query, shard=_sharding_that_fits(query, model, get(record["gpu"])))
    return query


def _sharding_that_fits(query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> Sharding:
    """A multi-GPU row that does not name its sharding ran one that held the run: replicas when
    one card holds it, else full sharding (ZeRO-3 for a full fine-tune, FSDP for adapters), the
    choice the planner makes for a person who does not say (estimator/planner.py)."""
    if judge_run(query, model, gpu.usable_gib).verdict is not Verdict.NO:
        return Sharding.DDP
    return Sharding.ZERO3 if query.method is Method.FULL else Sharding.FSDP


def _link(record: dict[str, str], gpu: GpuSpec) -> Link | None:
    """NVLink as stated; "pcie" says no NVLink, and a GeForce card has no peer-to-peer."""
    if record["interconnect"] == "nvlink":
        return Link.NVLINK
    if record["interconnect"] == "pcie":
        return Link.PCIE_HOST if geforce(gpu) else Link.PCIE
    return None


def read_rows(path: Path = DEFAULT_CSV) -> list[SpeedRow]:
    with path.open(newline="", encoding="utf-8") as handle:
        records = list(csv.DictReader(handle))
    rows = []
    for record in records:
        model = _model(record)
        data = DataLayout(record["data"])
        gpu = get(record["gpu"])
        rows.append(
            SpeedRow(
                query=_query(record, model, data),
                model=model,
                gpu=gpu,
                gpus=int(record["gpus"]),
                measured=float(record["tokens_per_second_per_gpu"]),
                source=record["source"],
                stack_name=record["stack"],
                link=_link(record, gpu),
                data=data,
                quant=record["quant"],
                tokens_per_sample=int(record["tokens_per_sample"])
                if record["tokens_per_sample"]
                else None,
                suspect="flagged implausible" in record["notes"],
            )
        )
    return rows


@dataclass(frozen=True)
class Prepared:
    """A row with its step's work counted once; the constants are applied cheaply."""

    row: SpeedRow
    work: StepWork
    single: StepWork | None  # the same run on one card, which caps a card's rate
    link: Interconnect | None

    def predict(self, calibration: Calibration) -> float:
        return per_gpu_rate(self.work, self.single, self.row.gpu, self.link, calibration)


def prepare(rows: Iterable[SpeedRow]) -> list[Prepared]:
    return [
        Prepared(
            row,
            step_work(row.query, row.model, row.gpus),
            single_card_work(row.query, row.model) if row.gpus > 1 else None,
            row.interconnect(),
        )
        for row in rows
    ]


def _loss(prepared: Sequence[Prepared], calibration: Calibration) -> float:
    total = sum(
        min(abs(math.log(item.predict(calibration) / item.row.measured)), ROBUST_CAP)
        for item in prepared
    )
    return total / max(1, len(prepared))


def fit(prepared: Sequence[Prepared], rounds: int = 4, steps: int = 12) -> Calibration:
    """Coordinate search over the constants, narrowing each one's range every round; a
    constant moves only when that lowers the loss, so one no row informs keeps its prior."""
    current = {field.name: getattr(PRIOR, field.name) for field in fields(Calibration)}
    spans = {name: high - low for name, (low, high) in RANGES.items()}
    best = _loss(prepared, Calibration(**current))
    for _ in range(rounds):
        for name, (low, high) in RANGES.items():
            lo = max(low, current[name] - spans[name] / 2)
            hi = min(high, current[name] + spans[name] / 2)
            for i in range(steps + 1):
                value = lo + (hi - lo) * i / steps
                loss = _loss(prepared, Calibration(**{**current, name: value}))
                if loss < best - 1e-12:
                    best, current[name] = loss, value
            spans[name] /= 2
    return Calibration(**{name: float(f"{value:.3g}") for name, value in current.items()})


def leave_one_repository_out(
    prepared: Sequence[Prepared],
) -> tuple[list[float], dict[str, Calibration]]:
    """Each row's prediction with the constants fitted on every other repository."""
    by_repository: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(prepared):
        by_repository[item.row.repository].append(index)
    predictions = [0.0] * len(prepared)
    fits: dict[str, Calibration] = {}
    for repository, held_out in by_repository.items():
        rest = [item for item in prepared if item.row.repository != repository and item.row.fitted]
        fits[repository] = fit(rest)
        for index in held_out:
            predictions[index] = prepared[index].predict(fits[repository])
    return predictions, fits


def before(row: SpeedRow) -> float:
    return tokens_per_second_before(row.query, row.model, row.gpu, row.gpus)


def flat_baseline(row: SpeedRow) -> float:
    mfu = FLAT_MFU * (FLAT_QLORA_SPEED if row.query.method is Method.QLORA else 1.0)
    return row.gpu.tflops * 1e12 * mfu / flops_per_token(row.query, row.model)


def errors(rows: Sequence[SpeedRow], predicted: Sequence[float]) -> list[float]:
    """Signed relative error of each prediction: + means predicted faster than measured."""
    return [(p - row.measured) / row.measured for row, p in zip(rows, predicted, strict=True)]


def hours_errors(speed_errors: Sequence[float]) -> list[float]:
    """The same errors as the quoted hours see them: estimate / true hours - 1."""
    return [1 / (1 + error) - 1 for error in speed_errors]


@dataclass(frozen=True)
class Score:
    rows: int
    median_abs: float
    within: float  # share of rows within WITHIN of the measurement
    signed_median: float

    @classmethod
    def of(cls, errs: Sequence[float]) -> Score:
        return cls(
            rows=len(errs),
            median_abs=statistics.median(abs(e) for e in errs),
            within=sum(abs(e) <= WITHIN for e in errs) / len(errs),
            signed_median=statistics.median(errs),
        )

    @property
    def met(self) -> bool:
        return self.median_abs <= TARGET_MEDIAN and self.within >= TARGET_WITHIN_25


def grouped(
    rows: Sequence[SpeedRow], errs: Sequence[float], key: Callable[[SpeedRow], str]
) -> dict[str, list[float]]:
    groups: dict[str, list[float]] = defaultdict(list)
    for row, err in zip(rows, errs, strict=True):
        groups[key(row)].append(err)
    return dict(sorted(groups.items()))


def _gpu_count(row: SpeedRow) -> str:
    return f"{row.gpus} GPU" + ("s" if row.gpus > 1 else "")


def _link_name(row: SpeedRow) -> str:
    link = row.interconnect()
    if link is None:
        return "1 GPU"
    return link.link.value + ("" if link.stated else " (card)")


def _before_tuned(row: SpeedRow) -> str:
    return "old model tuned on" if row.repository in HAND_TUNED_BEFORE else "the other 10"


GROUPINGS: tuple[tuple[str, Callable[[SpeedRow], str]], ...] = (
    ("method", lambda row: row.query.method.value),
    ("GPU count", _gpu_count),
    ("card class", lambda row: card_class(row.gpu).value),
    ("interconnect", _link_name),
    ("data", lambda row: row.data.value),
    ("stack (as costed)", lambda row: row.query.stack.value),
    ("sources", _before_tuned),
)


def _cells(errs: Sequence[float]) -> str:
    score = Score.of(errs)
    return f"{score.median_abs:>7.1%}{score.within:>6.0%}{score.signed_median:>+8.1%}"


def print_scores(rows: Sequence[SpeedRow], columns: Sequence[tuple[str, Sequence[float]]]) -> None:
    head = "".join(f"  {name + ': |err|':>13} {'in25':>5} {'signed':>7}" for name, _ in columns)
    print(f"\n{'group':<22}{'rows':>5}{head}")
    sections: list[tuple[str, Callable[[SpeedRow], str]]] = [("", lambda row: "all")]
    sections += list(GROUPINGS)
    for title, key in sections:
        if title:
            print(f"by {title}")
        groups = [grouped(rows, errs, key) for _, errs in columns]
        for group, errs in groups[0].items():
            cells = "".join(f"  {_cells(found[group])}" for found in groups)
            print(f"  {group:<20}{len(errs):>5}{cells}")


def print_rows(rows: Sequence[SpeedRow], mine: Sequence[float], only_misses: bool) -> None:
    print(
        f"{'gpu':<15}{'n':>2} {'link':<10}{'model':<15}{'method':<7}{'stack':<16}{'mb':>3}"
        f"{'ctx':>6} {'data':<8}{'meas':>7}{'model':>7}{'err':>6}{'before':>7}{'err':>6}"
    )
    for row, predicted in zip(rows, mine, strict=True):
        err = (predicted - row.measured) / row.measured
        if only_misses and abs(err) <= WITHIN:
            continue
        old = before(row)
        link = row.interconnect()
        print(
            f"{row.gpu.id[:14]:<15}{row.gpus:>2} {(link.link.value if link else '-'):<10}"
            f"{row.model.id[:14]:<15}{row.query.method.value:<7}{row.stack_name[:15]:<16}"
            f"{row.query.micro_batch:>3}{row.query.ctx:>6} {row.data.value[:7]:<8}"
            f"{row.measured:>7.0f}{predicted:>7.0f}{err:>+6.0%}{old:>7.0f}"
            f"{(old - row.measured) / row.measured:>+6.0%}"
        )


def claim_lines(rows: Sequence[SpeedRow], speed_errors: Sequence[float]) -> list[AccuracyLine]:
    """The claim file's lines: every row, each stack, each method and each stack's method,
    from the out-of-sample errors of the hours quoted."""
    errs = hours_errors(speed_errors)
    scopes: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        stack, method = row.query.stack.value, row.query.method.value
        for key in (
            (ALL, ALL),
            (stack, ALL),
            (ALL, method),
            (stack, method),
        ):
            scopes[key].append(index)
    lines = []
    for (scope, method), members in sorted(scopes.items(), key=_scope_order):
        repositories = len({rows[i].repository for i in members})
        lines.append(line_from(scope, method, [errs[i] for i in members], repositories))
    return lines


def _scope_order(item: tuple[tuple[str, str], list[int]]) -> tuple[bool, str, bool, str]:
    (scope, method), _ = item
    return (scope != ALL, scope, method != ALL, method)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    parser.add_argument("--misses", action="store_true", help="list only rows off by > 25%%")
    parser.add_argument("--fit", action="store_true", help="print the constants fitted on all rows")
    parser.add_argument(
        "--write-claim", action="store_true", help="rewrite estimator/data/speed_accuracy.csv"
    )
    args = parser.parse_args()
    rows = read_rows(args.csv)
    prepared = prepare(rows)
    out_of_sample, fits = leave_one_repository_out(prepared)
    print_rows(rows, out_of_sample, args.misses)
    repositories = sorted({row.repository for row in rows})
    print(
        f"\n{len(rows)} published throughputs from {len(repositories)} repositories "
        f"({args.csv.name}); + = predicted faster than measured (too few hours quoted)"
    )
    print(
        "model = estimator.timing, leave-one-repository-out: each repository scored with the "
        "constants fitted on the others;\nshipped = the constants fitted on every row "
        "(in sample); before = the model before its rebuild (bench/speed_before.py); "
        "flat = 35% MFU"
    )
    shipped = [item.predict(CALIBRATION) for item in prepared]
    columns = [
        ("model", errors(rows, out_of_sample)),
        ("shipped", errors(rows, shipped)),
        ("before", errors(rows, [before(row) for row in rows])),
        ("flat", errors(rows, [flat_baseline(row) for row in rows])),
    ]
    print_scores(rows, columns)
    mine = columns[0][1]
    overall = Score.of(mine)
    other = Score.of(
        [e for row, e in zip(rows, mine, strict=True) if row.repository not in HAND_TUNED_BEFORE]
        or [0.0]
    )
    for name, score in (
        ("all rows", overall),
        ("the repositories the old model was not tuned on", other),
    ):
        print(
            f"\ntarget, leave-one-repository-out, {name}: median |err| <= "
            f"{TARGET_MEDIAN:.0%} and >= {TARGET_WITHIN_25:.0%} within 25%: "
            f"{'met' if score.met else 'MISSED'} ({score.median_abs:.1%}, "
            f"{score.within:.0%} within, {score.rows} rows)"
        )
    print("\nconstants fitted without each repository:")
    for repository, calibration in sorted(fits.items()):
        values = " ".join(f"{getattr(calibration, f.name):.3g}" for f in fields(Calibration))
        print(f"  {repository[:36]:<36} {values}")
    if args.fit:
        print(f"\nfitted on every row: {fit([p for p in prepared if p.row.fitted])}")
        print(f"shipped:             {CALIBRATION}")
    lines = claim_lines(rows, mine)
    print(f"\nclaim (hours quoted, every row): {lines[0]}")
    if args.write_claim:
        write_lines(lines, speed_accuracy.ACCURACY_CSV)
        print(f"wrote {speed_accuracy.ACCURACY_CSV}")


if __name__ == "__main__":
    main()
