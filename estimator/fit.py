"""Which GPUs a run fits on: a grade and headroom per card, and the fewest cards of each kind.

Every verdict is on the range the estimate's own measured error puts around the run's peak on
that card (`estimator.accuracy.band`): «помещается» only when its high end leaves the
headroom free, «впритык» when the range reaches into the card's last 10 % or past it, «не
помещается» only when even its low end is over the card.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from estimator.accuracy import Band, band
from estimator.memory import (
    CALIBRATION,
    MemoryEstimate,
    MemoryParts,
    estimate_from_parts,
    memory_parts,
)
from estimator.query import FitQuery, Sharding
from estimator.specs import GpuSpec, ModelSpec
from estimator.timing import CardClass, card_class

# Less than this share of the card left free at the range's high end is "tight": a real run
# peaks above its typical step. PEFT's MetaMathQA results (calibration rows 20, 21, 69, 71) log
# both: the max reserved over the whole run, eval and longest batches included, is 4-12 %
# above the 99th-percentile training step (18.74 -> 20.76 GiB, 20.55 -> 23.00).
TIGHT_HEADROOM = 0.10
# The most cards of one kind we will suggest for a multi-GPU run (one server).
MAX_GPUS_PER_SERVER = 8


class Verdict(StrEnum):
    FITS = "fits"
    TIGHT = "tight"
    NO = "no"


@dataclass(frozen=True)
class Judged:
    """A run on one card: its estimate there, the range around it and the verdict."""

    memory: MemoryEstimate
    band: Band
    verdict: Verdict


@dataclass(frozen=True)
class GpuFit:
    gpu: GpuSpec
    usable_gib: float
    peak_gib: float  # per GPU on this card, with the query's own GPU count
    low_gib: float  # the range around it (estimator.accuracy.band)
    high_gib: float
    headroom_gib: float  # left free at the range's high end (< 0: it reaches past the card)
    verdict: Verdict
    # Fewest cards of this kind (sharded) that hold the run; None if more than one server.
    min_gpus: int | None
    # The card count it was judged at: the run's, or the one a compared card was named with
    # («сравни 2x a100 и 1x h100»).
    gpus: int = 1
    # `min_gpus` holds the run only without the headroom (no count of one server does with it).
    min_gpus_tight: bool = False

    @property
    def missing_gib(self) -> float:
        """How far even the range's low end is over the card."""
        return self.low_gib - self.usable_gib


def grade(span: Band, usable_gib: float) -> Verdict:
    if span.low > usable_gib:
        return Verdict.NO
    if span.high > (1 - TIGHT_HEADROOM) * usable_gib:
        return Verdict.TIGHT
    return Verdict.FITS


def judge(query: FitQuery, parts: MemoryParts, usable_gib: float) -> Judged:
    """The run (its `parts`, from `memory_parts`) on a card of `usable_gib`: the figure an
    answer prints for that card, its range, and the verdict on the range."""
    memory = estimate_from_parts(parts, CALIBRATION, usable_gib)
    span = band(memory.peak, query.stack, memory.must_fit, floor=memory.weights)
    return Judged(memory, span, grade(span, usable_gib))


def judge_run(query: FitQuery, model: ModelSpec, usable_gib: float) -> Judged:
    return judge(query, _parts(query, model), usable_gib)


@lru_cache(maxsize=1024)
def _parts(query: FitQuery, model: ModelSpec) -> MemoryParts:
    """A run's memory by part does not depend on the card it is judged on: the search for the
    fewest cards asks the same sharded run of every card in the table."""
    return memory_parts(query, model)


def fewest_gpus(query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> int | None:
    """Smallest GPU count on which the run fits with room, sharding what can be sharded;
    when no count up to a server's does, the smallest on which it is tight."""
    found = _fewest_in_a_server(query, model, gpu)
    return None if found is None else found[0]


def _fewest_in_a_server(
    query: FitQuery, model: ModelSpec, gpu: GpuSpec
) -> tuple[int, Verdict] | None:
    """`fewest_gpus` with the verdict at that count (tight where no count has room)."""
    return _fewest(query, model, gpu, range(1, MAX_GPUS_PER_SERVER + 1))


def least_card_of_size(gb: float, gpus: Iterable[GpuSpec]) -> GpuSpec | None:
    """The card a size asked about stands for («хватит ли 24 гб?»): of the catalogue's cards
    people train on (bf16: a 24 GB P40 is no one's training card today) that are sold with
    `gb`, the one that gives the least usable memory, the safe side; None when none is."""
    same = [g for g in gpus if g.vram_gb == gb and trains_in_bf16(g)]
    return min(same, key=lambda gpu: (gpu.usable_gib, gpu.tflops), default=None)


# Sharded across servers of 8 («how many H100s for a 70B full fine-tune?»): up to 8 servers.
MAX_SERVERS = 8


def fewest_across_servers(query: FitQuery, model: ModelSpec, gpu: GpuSpec) -> int | None:
    """The fewest cards, in whole servers of MAX_GPUS_PER_SERVER, on which the run fits with
    room sharded across them (ZeRO-3 / FSDP over the servers); None when not even
    MAX_SERVERS servers hold it so. Never a count on which it is only tight: sharding splits
    the weights and their state, not a card's activations, so a run that is tight on several
    servers (a 14B QLoRA at bs 8 × 4096 on 32 H100) needs a smaller batch, not more servers."""
    servers = range(2, MAX_SERVERS + 1)
    counts = (n * MAX_GPUS_PER_SERVER for n in servers)
    found = _fewest(query, model, gpu, counts, tight_ok=False)
    return None if found is None else found[0]


def _fewest(
    query: FitQuery,
    model: ModelSpec,
    gpu: GpuSpec,
    counts: Iterable[int],
    *,
    tight_ok: bool = True,
) -> tuple[int, Verdict] | None:
    """The first of `counts` on which the run fits with room, sharding what can be sharded;
    else (when `tight_ok`) the first on which it is tight; with the verdict there."""
    tight = None
    for count in counts:
        sharded = query if count == 1 else replace(query, gpus=count, shard=_multi_shard(query))
        verdict = judge_run(sharded, model, gpu.usable_gib).verdict
        if verdict is Verdict.FITS:
            return count, verdict
        if verdict is Verdict.TIGHT and tight is None and tight_ok:
            tight = count, verdict
    return tight


def _multi_shard(query: FitQuery) -> Sharding:
    # With several cards, FSDP/ZeRO-3 is what makes a model that does not fit on one card
    # fit on many; keep the user's choice if they made one.
    return query.shard if query.shard is not Sharding.DDP else Sharding.FSDP


def fit_table(
    query: FitQuery,
    model: ModelSpec,
    gpus: Iterable[GpuSpec],
    asked: str | None = None,
) -> list[GpuFit]:
    """Every training-capable GPU graded on the run's range there, best fits first (then by
    VRAM): no card whose range reaches into its last 10 % comes before one that holds it.
    Cards without tensor cores (Pascal) leave the table unless `asked` names them."""
    parts = memory_parts(query, model)
    rows = []
    for gpu in gpus:
        if not has_tensor_cores(gpu) and gpu.id != asked:
            continue
        judged = judge(query, parts, gpu.usable_gib)
        fewest = _fewest_in_a_server(query, model, gpu) if judged.verdict is Verdict.NO else None
        fewest_count, fewest_verdict = fewest or (None, None)
        rows.append(
            GpuFit(
                gpu=gpu,
                usable_gib=gpu.usable_gib,
                peak_gib=judged.memory.peak,
                low_gib=judged.band.low,
                high_gib=judged.band.high,
                headroom_gib=gpu.usable_gib - judged.band.high,
                verdict=judged.verdict,
                min_gpus=query.gpus if judged.verdict is not Verdict.NO else fewest_count,
                gpus=query.gpus,
                min_gpus_tight=fewest_verdict is Verdict.TIGHT,
            )
        )
    order = {Verdict.FITS: 0, Verdict.TIGHT: 1, Verdict.NO: 2}
    return sorted(rows, key=lambda row: (order[row.verdict], row.usable_gib, -row.gpu.tflops))


def trains_in_bf16(gpu: GpuSpec) -> bool:
    """bf16 tensor cores (Ampere and newer). Without them training runs in fp16 with loss
    scaling (Turing, Volta) or, on Pascal, without tensor cores at all: slow and fragile, so
    such cards are suggested only when the user names them."""
    return gpu.bf16


def has_tensor_cores(gpu: GpuSpec) -> bool:
    # Pascal: P40, P100, GTX 10xx; the catalog stores their FP32 rate as fp16_tflops.
    return gpu.bf16 or gpu.fp16_tflops > 20


# The cards people rent for fine-tuning in Russia, smallest first: what Selectel, immers.cloud
# and HOSTKEY list (their catalogues), and what the guides advise. Advice names one of these,
# or a card on live offer; a B300 nobody rents is never "the smallest card that fits".
RENTED_CARDS = (
    "T4",
    "RTX A4000",
    "RTX 3090",
    "RTX 4090",
    "RTX A5000",
    "RTX 5090",
    "RTX A6000",
    "L40S",
    "A100 40GB PCIe",
    "A100 80GB SXM",
    "H100 SXM",
    "H200",
    "B200",
)


def _advisable(table: list[GpuFit], rented: frozenset[str]) -> list[GpuFit]:
    return [row for row in table if row.gpu.id in rented and trains_in_bf16(row.gpu)]


def _slow(gpu: GpuSpec) -> bool:
    # 60-72 W inference boards (T4, A2, A16, L4) train at a fraction of their datasheet rate.
    return card_class(gpu) is CardClass.POWER_LIMITED


def smallest_fitting(table: list[GpuFit], rented: frozenset[str]) -> GpuFit | None:
    """The smallest rented card with bf16 that holds the run on its own: comfortable fits
    before tight ones, and a training card before a power-limited inference board. fp16-only
    cards are never the advice."""
    fitting = [row for row in _advisable(table, rented) if row.verdict is not Verdict.NO]
    return min(
        fitting,
        key=lambda row: (
            row.verdict is Verdict.TIGHT,
            _slow(row.gpu),
            row.usable_gib,
            -row.gpu.tflops,
        ),
        default=None,
    )


def fewest_cards(table: list[GpuFit], rented: frozenset[str]) -> GpuFit | None:
    """When no single card holds the run: the set with the fewest cards, then the smaller."""
    sets = [row for row in _advisable(table, rented) if row.min_gpus is not None]
    return min(sets, key=lambda row: (row.min_gpus or 0, row.usable_gib), default=None)
