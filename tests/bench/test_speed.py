"""Predicted training throughput against the published tokens/s in the repository."""

from __future__ import annotations

import re
import statistics
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from bench import estimator_speed
from bench.estimator_speed import (
    HAND_TUNED_BEFORE,
    PRIOR,
    DataLayout,
    Prepared,
    Score,
    SpeedRow,
    claim_lines,
    errors,
    fit,
    flat_baseline,
    grouped,
    hours_errors,
    leave_one_repository_out,
    prepare,
    read_rows,
)
from estimator import speed_accuracy
from estimator.accuracy import read_lines
from estimator.interconnect import Link
from estimator.query import Checkpointing, FitQuery, Offload, Packing, Precision, Stack, Targets
from estimator.timing import CALIBRATION, Calibration, card_class

COLUMNS = (
    "gpu,gpus,interconnect,model,params_b,method,quant,stack,gc,ctx,tokens_per_sample,"
    "micro_batch,data,attention,compiled,shard,offload,optimizer,precision,grad_accum,targets,"
    "rank,tokens_per_second_per_gpu,source,notes\n"
)
SOURCE = "github.com/owner/repo README.md @0123456789"


@cache
def _out_of_sample() -> tuple[list[SpeedRow], list[float], dict[str, Calibration]]:
    """Every row with its leave-one-repository-out prediction and the constants fitted without
    each repository (computed once: a few seconds)."""
    rows = read_rows()
    predictions, fits = leave_one_repository_out(prepare(rows))
    return rows, predictions, fits


def _scored() -> tuple[list[SpeedRow], list[float]]:
    rows, predictions, _ = _out_of_sample()
    return rows, predictions


def test_every_row_reads_and_names_its_source_at_a_commit():
    rows = read_rows()
    assert len(rows) >= 140
    for row in rows:
        assert row.measured > 0
        assert re.fullmatch(r"github\.com/[\w.-]+/[\w.-]+ \S.* @[0-9a-f]{7,40}", row.source), row
    others = {row.repository for row in rows} - HAND_TUNED_BEFORE
    assert len(others) >= 10


def test_out_of_sample_the_model_meets_the_target_and_beats_a_flat_mfu_in_every_card_class():
    rows, predictions = _scored()
    mine = errors(rows, predictions)
    flat = errors(rows, [flat_baseline(row) for row in rows])
    assert Score.of(mine).met, Score.of(mine)
    others = [
        e for row, e in zip(rows, mine, strict=True) if row.repository not in HAND_TUNED_BEFORE
    ]
    assert Score.of(others).met, Score.of(others)
    flat_by_class = grouped(rows, flat, lambda row: card_class(row.gpu).value)
    for name, errs in grouped(rows, mine, lambda row: card_class(row.gpu).value).items():
        median_flat = statistics.median(abs(e) for e in flat_by_class[name])
        assert statistics.median(abs(e) for e in errs) < median_flat, name


def test_the_claim_file_is_what_the_bench_makes_of_the_data():
    """estimator/data/speed_accuracy.csv, regenerated: a change to the time model or to the
    throughputs that moves a figure fails here until `--write-claim` rewrites the file."""
    rows, predictions = _scored()
    assert claim_lines(rows, errors(rows, predictions)) == read_lines(speed_accuracy.ACCURACY_CSV)


def test_the_hours_error_is_the_speed_error_seen_from_the_clock():
    # Twice as fast as measured: half the hours (-50 %); half as fast: twice the hours.
    assert hours_errors([1.0, -0.5, 0.0]) == pytest.approx([-0.5, 1.0, 0.0])


def test_score_counts_the_median_the_share_within_25_percent_and_the_sign():
    score = Score.of([-0.5, -0.1, 0.2, 0.3])
    assert score.rows == 4
    assert score.median_abs == pytest.approx(0.25)
    assert score.within == pytest.approx(0.5)
    assert score.signed_median == pytest.approx(0.05)


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "throughput.csv"
    path.write_text(COLUMNS + "".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_settings_a_row_states_reach_the_query_and_the_rest_stay_on_the_row(tmp_path):
    path = _write(
        tmp_path,
        f"RTX 3090,2,pcie,Llama-2-7B,,lora,,fsdp_qlora,on,512,,1,fixed,sdpa,false,fsdp,params,,"
        f"bf16,,all,64,101,{SOURCE},",
        f"L40S,1,,Llama-3.2-3B,,lora,,peft,off,768,210,4,unpacked,eager,false,ddp,,,,,qv,32,6780,"
        f"{SOURCE},",
        f"RTX 4090,1,,Llama-3.1-8B,,full,,torchtune,on,,,2,unpacked,,false,,,paged_adamw8bit,bf16,"
        f",,,1650,{SOURCE},implies 80% MFU: flagged implausible by the research",
        f"A100 80GB SXM,8,,Qwen-7B,7.72,qlora,gptq,qwen-finetune,on,2048,,1,packed-varlen,flash,"
        f"false,ddp,,,,8,,,2341,{SOURCE},",
    )
    fixed, unpacked, unknown_length, sized = read_rows(path)
    assert fixed.query.stack is Stack.AXOLOTL
    assert fixed.stack_name == "fsdp_qlora"
    assert fixed.query.packing is Packing.PACKED  # one fixed-length sample a row: ctx tokens
    assert fixed.query.offload is Offload.PARAMS
    assert fixed.query.precision is Precision.BF16
    assert (fixed.query.targets, fixed.query.lora_rank) == (Targets.ALL, 64)
    assert fixed.link is Link.PCIE_HOST  # "pcie" on a GeForce card: no peer-to-peer
    assert fixed.data is DataLayout.FIXED
    assert fixed.fitted
    assert unpacked.query.packing is Packing.NONE
    assert unpacked.query.tokens_per_example == 210
    assert unpacked.query.grad_checkpointing is Checkpointing.OFF
    assert unpacked.link is None
    # No length and no cap: the estimator's own defaults, as for a person who gives none; a
    # row whose work is unknown, or that the research flagged, is scored but never fitted on.
    assert unknown_length.query.ctx == FitQuery.ctx
    assert unknown_length.query.tokens_per_example is None
    assert unknown_length.suspect
    assert not unknown_length.fitted
    # A size the row states beats the catalog's nearest name (Qwen-7B is not Qwen2.5-7B).
    assert sized.model.params_b == pytest.approx(8.03, rel=0.05)
    assert sized.quant == "gptq"
    assert sized.query.packing is Packing.VARLEN
    assert sized.query.grad_accum == 8
    assert sized.link is None
    assert sized.interconnect() is not None
    assert sized.repository == "owner/repo"


def test_a_stack_without_a_proxy_is_refused(tmp_path):
    path = _write(
        tmp_path,
        f"RTX 4090,1,,Llama-2-7B,,lora,,mystery,on,2048,,4,fixed,,false,ddp,,,,,,,2000,{SOURCE},",
    )
    with pytest.raises(LookupError, match="mystery"):
        read_rows(path)


def test_a_constant_no_row_informs_keeps_its_prior():
    """Held out, a card class's only repository leaves nothing to fit its share on: the fit
    must not drift to the bracket's edge."""
    a100_rows = [row for row in read_rows() if row.gpu.id == "A100 80GB SXM" and row.fitted]
    fitted = fit(prepare(a100_rows[:20]), rounds=1, steps=4)
    assert fitted.workstation_ada == PRIOR.workstation_ada
    assert fitted.geforce == PRIOR.geforce


def test_leave_one_out_never_scores_a_repository_with_constants_fitted_on_it():
    rows, _, fits = _out_of_sample()
    prepared = prepare(rows)
    assert set(fits) == {row.repository for row in rows}
    # Refitting without the held-out repository gives the same constants the bench used.
    held_out = "huggingface/optimum-benchmark"
    rest = [p for p in prepared if p.row.repository != held_out and p.row.fitted]
    assert fit(rest) == fits[held_out]


def test_a_prepared_row_predicts_from_its_counted_work():
    row = next(row for row in read_rows() if row.gpus == 1)
    item = Prepared(row, prepare([row])[0].work, None, None)
    faster = replace(CALIBRATION, host_seconds_per_op=0.0)
    assert item.predict(faster) > item.predict(CALIBRATION)


def test_the_report_prints_each_figure_beside_the_old_model_and_the_flat_baseline(
    tmp_path, monkeypatch, capsys
):
    path = _write(
        tmp_path,
        f"RTX 4090,1,,Llama-2-7B,,lora,,hf,on,2048,,4,fixed,,false,ddp,,,,,,,2000,{SOURCE},",
        "RTX 4090,1,,Llama-2-7B,,lora,,torchtune,on,2048,,4,fixed,,false,ddp,,,,,,,2582,"
        "github.com/pytorch/torchtune README.md @34d70b41aa,",
    )
    monkeypatch.setattr(sys, "argv", ["estimator_speed", "--csv", str(path)])
    estimator_speed.main()
    out = capsys.readouterr().out
    assert "2 published throughputs from 2 repositories" in out
    assert "leave-one-repository-out" in out
    assert re.search(r"model: \|err\|.*shipped: \|err\|.*before: \|err\|.*flat: \|err\|", out)
    assert re.search(r"by sources\n  old model tuned on +1 .*\n  the other 10 +1 ", out)
    assert "constants fitted without each repository" in out


def test_the_shipped_constants_are_the_fit_on_every_row_the_fit_may_use():
    prepared = [item for item in prepare(read_rows()) if item.row.fitted]
    assert fit(prepared) == CALIBRATION
