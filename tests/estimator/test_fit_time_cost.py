"""Fit grades, fewest GPUs, training time and cost at given prices."""

from __future__ import annotations

from dataclasses import replace

import pytest

from estimator.accuracy import Band, band
from estimator.fit import (
    RENTED_CARDS,
    Verdict,
    fewest_gpus,
    fit_table,
    grade,
    judge_run,
    smallest_fitting,
)
from estimator.gpus import get, load_gpus
from estimator.memory import estimate_memory
from estimator.models import get_model
from estimator.query import (
    Checkpointing,
    FitQuery,
    Method,
    Optimizer,
    Packing,
    Precision,
    Sharding,
    Stack,
    Targets,
)
from estimator.timing import flops_per_token, tokens_per_second, training_time


def test_grades_and_headroom():
    """The verdict is on the range around the peak: «fits» only when its high end leaves
    10 % of the card free, «no» only when even its low end is over the card."""
    assert grade(Band(60.0, 70.0), 79.32) is Verdict.FITS
    assert grade(Band(60.0, 75.0), 79.32) is Verdict.TIGHT  # the top in the card's last 10 %
    assert grade(Band(70.0, 85.0), 79.32) is Verdict.TIGHT  # the range straddles the card
    assert grade(Band(80.0, 90.0), 79.32) is Verdict.NO


def test_a_run_a_fifth_over_the_card_is_called_too_big_not_tight():
    """A 70B full fine-tune over 8 H200s (ZeRO-3, mixed precision) is sized at ~170 GiB a card
    against 140: the HF stack's measured errors put even the range's low end over the card,
    so the answer says «не помещается», not «впритык» (issue: over-estimate tails once
    stretched the band's low end below 140 GiB)."""
    model = get_model("Llama-3.3-70B")
    query = FitQuery(model=model.id, method=Method.FULL, gpus=8, shard=Sharding.ZERO3)
    h200 = get("H200")
    judged = judge_run(query, model, h200.usable_gib)
    assert judged.memory.peak > 1.15 * h200.usable_gib
    assert judged.band.low > h200.usable_gib
    assert judged.verdict is Verdict.NO


def test_13b_qlora_fits_a_4090_and_the_table_is_ordered():
    model = get_model("Llama-2-13B")
    query = FitQuery(model=model.id, method=Method.QLORA, ctx=4096)
    memory = estimate_memory(query, model)
    table = fit_table(query, model, load_gpus())
    row_4090 = next(row for row in table if row.gpu.id == "RTX 4090")
    assert row_4090.verdict is Verdict.FITS
    assert row_4090.peak_gib == pytest.approx(memory.peak)
    span = band(memory.peak, query.stack, memory.must_fit)
    assert (row_4090.low_gib, row_4090.high_gib) == pytest.approx((span.low, span.high))
    assert row_4090.low_gib < memory.peak < row_4090.high_gib
    # What is left free even at the range's high end.
    assert row_4090.headroom_gib == pytest.approx(row_4090.usable_gib - span.high)
    order = [row.verdict for row in table]
    assert order == sorted(order, key=[Verdict.FITS, Verdict.TIGHT, Verdict.NO].index)
    smallest = smallest_fitting(table, frozenset(RENTED_CARDS))
    assert smallest is not None
    assert smallest.usable_gib <= row_4090.usable_gib
    assert smallest.gpu.id in RENTED_CARDS


def test_70b_full_fine_tune_needs_a_full_server_and_lean_settings():
    model = get_model("Llama-3.3-70B")
    mixed = FitQuery(model=model.id, method=Method.FULL)  # 18 bytes/param: 1.3 TB
    lean = FitQuery(
        model=model.id, method=Method.FULL, precision=Precision.BF16, optimizer=Optimizer.ADAMW_8BIT
    )
    assert fewest_gpus(mixed, model, get("H100 SXM")) is None  # more than 8 cards
    on_h100 = fewest_gpus(lean, model, get("H100 SXM"))
    on_h200 = fewest_gpus(lean, model, get("H200"))
    assert on_h100 is not None
    assert on_h200 is not None
    assert on_h200 < on_h100 <= 8


def test_flops_per_token_follow_6n_and_4n():
    model = get_model("Llama-2-7B")
    n = model.total_params
    full = FitQuery(model=model.id, method=Method.FULL, grad_checkpointing=Checkpointing.OFF)
    lora = FitQuery(model=model.id, method=Method.LORA, grad_checkpointing=Checkpointing.OFF)
    attention = 6 * 32 * (2048 // 2) * 4096
    assert flops_per_token(full, model) == pytest.approx(6 * n + attention)
    assert flops_per_token(lora, model) == pytest.approx(4 * n + attention)
    recompute = FitQuery(model=model.id, method=Method.LORA)
    assert flops_per_token(recompute, model) == pytest.approx(6 * n + attention)


def test_training_time_scales_with_data_and_gpu_speed():
    model = get_model("Llama-3.1-8B")
    query = FitQuery(
        model=model.id, method=Method.LORA, dataset_examples=10_000, tokens_per_example=512
    )
    on_a100 = training_time(query, model, get("A100 80GB SXM"), 1)
    on_h100 = training_time(query, model, get("H100 SXM"), 1)
    assert on_a100 is not None
    assert on_h100 is not None
    assert on_a100.tokens == 10_000 * 512
    expected = on_a100.tokens * on_a100.flops_per_token / (312e12 * on_a100.mfu) / 3600
    assert on_a100.hours == pytest.approx(expected, rel=0.01)
    assert on_a100.hours == pytest.approx(on_a100.tokens / on_a100.tokens_per_second / 3600)
    # One 512-token example a micro-batch is mostly the host launching kernels, which an H100
    # does no faster; on a well-fed batch an H100 is 2-2.5x an A100 (seed guide: 1.8-2.5x), not
    # the datasheets' 3.2x.
    assert 1.2 <= on_a100.hours / on_h100.hours < 2.0
    fed = replace(query, micro_batch=4, ctx=4096, tokens_per_example=None, packing=Packing.PACKED)
    a100, h100 = (tokens_per_second(fed, model, get(gpu)) for gpu in ("A100 80GB SXM", "H100 SXM"))
    assert 2.0 <= h100 / a100 <= 2.5
    doubled = training_time(replace(query, epochs=2), model, get("A100 80GB SXM"), 1)
    assert doubled is not None
    assert doubled.hours == pytest.approx(2 * on_a100.hours)
    assert training_time(FitQuery(model=model.id), model, get("H100 SXM"), 1) is None


def test_a_t4_trains_at_about_a_third_of_a_3090():
    model = get_model("Llama-2-7B")
    query = FitQuery(model=model.id, method=Method.QLORA, micro_batch=2)
    ratio = tokens_per_second(query, model, get("T4")) / tokens_per_second(
        query, model, get("RTX 3090")
    )
    assert 0.2 <= ratio <= 0.4


def test_bitsandbytes_dequantisation_weighs_most_on_small_batches():
    model = get_model("Llama-2-7B")
    # litgpt's Alpaca2k runs: ~300-token samples, one per micro-batch.
    qlora = FitQuery(
        model=model.id, method=Method.QLORA, ctx=512, tokens_per_example=300, micro_batch=1
    )
    lora = replace(qlora, method=Method.LORA)
    gpu = get("A10G")
    small = tokens_per_second(qlora, model, gpu) / tokens_per_second(lora, model, gpu)
    big = tokens_per_second(replace(qlora, micro_batch=16), model, gpu) / tokens_per_second(
        replace(lora, micro_batch=16), model, gpu
    )
    assert small < 0.8 < big < 1.0  # litgpt's A10G runs: QLoRA at 0.69-0.72x LoRA
    # torchao's NF4 dequantises only the linears torchtune adapts, and on every pass too.
    torchao = replace(qlora, stack=Stack.TORCHTUNE, targets=Targets.QV)
    bnb = replace(torchao, stack=Stack.HF)
    assert tokens_per_second(bnb, model, gpu) < tokens_per_second(torchao, model, gpu)
    assert tokens_per_second(torchao, model, gpu) < tokens_per_second(
        replace(torchao, method=Method.LORA), model, gpu
    )
