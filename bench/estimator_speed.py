"""Training throughput the estimator predicts against published tokens/s per GPU.

Reads tests/fixtures/estimator/throughput.csv (every row names its source) and prints, per
row, the measured and predicted tokens/s per GPU; then the median error by GPU class and
overall, beside a baseline measured in the same run: the datasheet peak at one flat 35 %
MFU for every card (x0.65 for QLoRA), which is how the estimator timed runs before.

    .venv/bin/python -m bench.estimator_speed [--csv FILE]
"""

from __future__ import annotations

import argparse
import csv
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from estimator.gpus import get
from estimator.models import match_model, model_for_size
from estimator.parsing.patterns import size_value
from estimator.query import Checkpointing, FitQuery, Method, Sharding, Stack
from estimator.specs import GpuSpec, ModelSpec
from estimator.timing import card_class, flops_per_token, tokens_per_second

DEFAULT_CSV = Path(__file__).resolve().parents[1] / "tests/fixtures/estimator/throughput.csv"
TARGET_MEDIAN = 0.25
FLAT_MFU = 0.35
FLAT_QLORA_SPEED = 0.65


@dataclass(frozen=True)
class SpeedRow:
    query: FitQuery
    model: ModelSpec
    gpu: GpuSpec
    gpus: int
    measured: float
    source: str


def read_rows(path: Path = DEFAULT_CSV) -> list[SpeedRow]:
    with path.open(newline="", encoding="utf-8") as handle:
        records = list(csv.DictReader(handle))
    rows = []
    for record in records:
        size = size_value(record["model"])
        model = model_for_size(size) if size is not None else match_model(record["model"])
        if model is None:
            raise LookupError(f"no catalog model for {record['model']!r}")
        gpus = int(record["gpus"])
        query = FitQuery(
            model=model.id,
            method=Method(record["method"]),
            stack=Stack(record["stack"]),
            grad_checkpointing=Checkpointing(record["gc"]),
            ctx=int(record["ctx"]),
            tokens_per_example=int(record["ctx"]),  # fixed-length or packed sequences
            micro_batch=int(record["micro_batch"]),
            compiled=record["compiled"] == "true",
            gpus=gpus,
            shard=Sharding(record["shard"]),
        )
        rows.append(
            SpeedRow(
                query=query,
                model=model,
                gpu=get(record["gpu"]),
                gpus=gpus,
                measured=float(record["tokens_per_second_per_gpu"]),
                source=record["source"].split(" ")[0],
            )
        )
    return rows


def ours(row: SpeedRow) -> float:
    return tokens_per_second(row.query, row.model, row.gpu, row.gpus)


def flat_baseline(row: SpeedRow) -> float:
    mfu = FLAT_MFU * (FLAT_QLORA_SPEED if row.query.method is Method.QLORA else 1.0)
    return row.gpu.tflops * 1e12 * mfu / flops_per_token(row.query, row.model)


def errors(rows: list[SpeedRow], predict: Callable[[SpeedRow], float]) -> list[float]:
    return [(predict(row) - row.measured) / row.measured for row in rows]


def by_class(rows: list[SpeedRow], errs: list[float]) -> dict[str, list[float]]:
    grouped: dict[str, list[float]] = defaultdict(list)
    for row, err in zip(rows, errs, strict=True):
        grouped[card_class(row.gpu).value].append(abs(err))
    return dict(grouped)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    args = parser.parse_args()
    rows = read_rows(args.csv)
    ours_err, flat_err = errors(rows, ours), errors(rows, flat_baseline)
    print(
        f"{'gpu':<15}{'n':>2} {'model':<15}{'method':<7}{'stack':<10}{'meas':>7}"
        f"{'ours':>7}{'err':>6}{'flat':>7}{'err':>6}"
    )
    for row, mine, flat in zip(rows, ours_err, flat_err, strict=True):
        print(
            f"{row.gpu.id:<15}{row.gpus:>2} {row.model.id[:14]:<15}{row.query.method.value:<7}"
            f"{row.query.stack.value:<10}{row.measured:>7.0f}{ours(row):>7.0f}{mine:>+6.0%}"
            f"{flat_baseline(row):>7.0f}{flat:>+6.0%}"
        )
    print(f"\n{len(rows)} published throughputs ({args.csv.name})")
    print(f"{'GPU class':<16}{'rows':>5}{'median |err| ours':>19}{'flat 35% MFU':>14}")
    mine_by, flat_by = by_class(rows, ours_err), by_class(rows, flat_err)
    for name in sorted(mine_by):
        print(
            f"{name:<16}{len(mine_by[name]):>5}{statistics.median(mine_by[name]):>19.1%}"
            f"{statistics.median(flat_by[name]):>14.1%}"
        )
    overall = statistics.median(abs(e) for e in ours_err)
    flat = statistics.median(abs(e) for e in flat_err)
    worst_class = max(statistics.median(v) for v in mine_by.values())
    print(f"{'all':<16}{len(rows):>5}{overall:>19.1%}{flat:>14.1%}")
    print(
        f"\ntarget: median |err| <= {TARGET_MEDIAN:.0%} per GPU class "
        f"({'met' if worst_class <= TARGET_MEDIAN else 'MISSED'}: worst class {worst_class:.1%})"
    )


if __name__ == "__main__":
    main()
