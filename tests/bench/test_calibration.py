"""The calibration reader understands every published row, and accuracy does not regress."""

from __future__ import annotations

import pytest

from bench.calibration import DEFAULT_CSV, Bound, Metric, read_rows
from bench.estimator_accuracy import ours, score, summary
from estimator.models import match_model
from estimator.query import Checkpointing, Loss, Method, Sharding, Stack

pytestmark = pytest.mark.skipif(not DEFAULT_CSV.exists(), reason="shared/ is not beside the repo")


def test_every_row_is_read_and_has_a_catalog_model():
    rows = read_rows()
    assert len(rows) >= 113
    for row in rows:
        assert match_model(row.model_name) is not None, row.model_name
        assert row.measured_gib > 0


def test_rows_are_read_by_general_rules():
    rows = {row.index: row for row in read_rows()}
    litgpt = rows[31]  # litgpt LoRA, Alpaca padded to its longest sample, GB, allocated
    assert (litgpt.query.stack, litgpt.query.ctx, litgpt.metric) == (
        Stack.LITGPT,
        1304,
        Metric.ALLOCATED,
    )
    assert litgpt.measured_gib == pytest.approx(21.3 * 1e9 / 2**30)
    assert rows[34].bound is Bound.LOWER  # OOM at 40 GB
    assert rows[24].query.gpus == 2  # "2 GPUs (per GPU)"
    assert rows[24].query.shard is Sharding.FSDP
    assert not rows[24].query.cpu_offload  # "without CPU offload"
    assert rows[23].query.cpu_offload
    assert rows[6].query.loss is Loss.CHUNKED  # inherits "previous" row's chunked loss
    assert rows[49].query.grad_checkpointing is Checkpointing.UNSLOTH
    assert rows[49].query.loss is Loss.FUSED
    assert rows[50].query.stack is Stack.HF  # the HF baseline column of Unsloth's table
    assert rows[93].excluded == "suspect"
    assert rows[0].query.method is Method.LORA


def test_accuracy_stays_within_the_targets():
    rows = [row for row in read_rows() if row.excluded is None]
    median, _, _, within25 = summary(score(rows, ours))
    assert median <= 0.10
    assert within25 >= 0.85
