"""Predicted training throughput against the published tokens/s in the repository."""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

import pytest

from bench import estimator_speed
from bench.estimator_speed import (
    HAND_TUNED_ON,
    DataLayout,
    Interconnect,
    Score,
    by_class,
    errors,
    flat_baseline,
    ours,
    read_rows,
)
from estimator.query import Checkpointing, FitQuery, Offload, Stack

HEADER = (
    "gpu,gpus,interconnect,model,params_b,method,quant,stack,gc,ctx,tokens_per_sample,"
    "micro_batch,data,attention,compiled,shard,offload,optimizer,tokens_per_second_per_gpu,"
    "source,notes\n"
)
SOURCE = "github.com/owner/repo README.md @0123456789"


def test_every_row_reads_and_names_its_source_at_a_commit():
    rows = read_rows()
    assert len(rows) >= 140
    for row in rows:
        assert row.measured > 0
        assert re.fullmatch(r"github\.com/[\w.-]+/[\w.-]+ \S.* @[0-9a-f]{7,40}", row.source), row
    unseen = {row.repository for row in rows} - HAND_TUNED_ON
    assert len(unseen) >= 10


def test_the_model_beats_a_flat_mfu_overall_and_in_every_card_class():
    rows = read_rows()
    mine, flat = errors(rows, ours), errors(rows, flat_baseline)
    assert statistics.median(abs(e) for e in mine) < statistics.median(abs(e) for e in flat)
    flat_by_class = by_class(rows, flat)
    for name, errs in by_class(rows, mine).items():
        median_flat = statistics.median(abs(e) for e in flat_by_class[name])
        assert statistics.median(abs(e) for e in errs) < median_flat, name


def test_score_counts_the_median_the_share_within_25_percent_and_the_sign():
    score = Score.of([-0.5, -0.1, 0.2, 0.3])
    assert score.rows == 4
    assert score.median_abs == pytest.approx(0.25)
    assert score.within == pytest.approx(0.5)
    assert score.signed_median == pytest.approx(0.05)


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "throughput.csv"
    path.write_text(HEADER + "".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_settings_a_row_states_reach_the_query_and_the_rest_stay_on_the_row(tmp_path):
    path = _write(
        tmp_path,
        f"RTX 3090,2,pcie,Llama-2-7B,,lora,,fsdp_qlora,on,512,,1,fixed,sdpa,false,fsdp,params,,"
        f"101,{SOURCE},",
        f"L40S,1,,Llama-3.2-3B,,lora,,peft,off,768,210,4,unpacked,eager,false,ddp,,,6780,{SOURCE},",
        f"RTX 4090,1,,Llama-3.1-8B,,full,,torchtune,on,,,2,unpacked,,false,,,paged_adamw8bit,"
        f"1650,{SOURCE},",
        f"A100 80GB SXM,1,,Qwen-7B,7.72,qlora,gptq,qwen-finetune,on,2048,,1,fixed,flash,false,ddp,"
        f",,2341,{SOURCE},",
    )
    packed, unpacked, unknown_length, sized = read_rows(path)
    assert packed.query.stack is Stack.AXOLOTL
    assert packed.stack_name == "fsdp_qlora"
    assert packed.query.tokens_per_example == 512
    assert packed.query.offload is Offload.PARAMS
    assert packed.interconnect is Interconnect.PCIE
    assert packed.data is DataLayout.FIXED
    assert unpacked.query.tokens_per_example == 210
    assert unpacked.tokens_per_sample == 210
    assert unpacked.query.grad_checkpointing is Checkpointing.OFF
    # No length and no cap: the estimator's own defaults, as for a person who gives none.
    assert unknown_length.query.ctx == FitQuery.ctx
    assert unknown_length.query.tokens_per_example is None
    # A size the row states beats the catalog's nearest name (Qwen-7B is not Qwen2.5-7B).
    assert sized.model.params_b == pytest.approx(8.03, rel=0.05)
    assert sized.quant == "gptq"
    assert sized.repository == "owner/repo"


def test_a_stack_without_a_proxy_is_refused(tmp_path):
    path = _write(
        tmp_path,
        f"RTX 4090,1,,Llama-2-7B,,lora,,mystery,on,2048,,4,fixed,,false,ddp,,,2000,{SOURCE},",
    )
    with pytest.raises(LookupError, match="mystery"):
        read_rows(path)


def test_the_report_states_leave_one_out_and_judges_the_target_on_unseen_sources(
    tmp_path, monkeypatch, capsys
):
    path = _write(
        tmp_path,
        f"RTX 4090,1,,Llama-2-7B,,lora,,hf,on,2048,,4,fixed,,false,ddp,,,2000,{SOURCE},",
        "RTX 4090,1,,Llama-2-7B,,lora,,torchtune,on,2048,,4,unpacked,,false,ddp,,,2582,"
        "github.com/pytorch/torchtune README.md @34d70b41aa,",
    )
    monkeypatch.setattr(sys, "argv", ["estimator_speed", "--csv", str(path)])
    estimator_speed.main()
    out = capsys.readouterr().out
    assert "2 published throughputs from 2 repositories" in out
    assert "nothing in estimator/timing.py is fitted" in out
    assert re.search(r"by sources\n  tuned on +1 .*\n  unseen +1 ", out)
    assert "rows from unseen repositories" in out
    assert "1 rows)" in out
