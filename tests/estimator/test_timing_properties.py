"""What the time model must never say, over generated runs: a bigger micro-batch is
never slower per token, more cards never faster than linear, PCIe never faster than NVLink,
offload never faster than keeping everything on the cards."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from estimator.gpus import load_gpus
from estimator.interconnect import Link
from estimator.models import get_model
from estimator.query import (
    Checkpointing,
    FitQuery,
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
from estimator.timing import tokens_per_second

MODELS = (
    "Llama-3.2-1B",
    "Llama-2-7B",
    "Llama-3.1-8B",
    "Qwen2.5-14B",
    "Llama-3.3-70B",
    "Mixtral-8x7B-v0.1",
)
GPUS = [gpu for gpu in load_gpus() if gpu.tflops > 0]
EXAMPLES = settings(max_examples=40, deadline=None)


@st.composite
def runs(draw: st.DrawFn) -> tuple[FitQuery, ModelSpec, GpuSpec]:
    model = get_model(draw(st.sampled_from(MODELS)))
    query = FitQuery(
        model=model.id,
        method=draw(st.sampled_from(Method)),
        stack=draw(st.sampled_from(Stack)),
        ctx=draw(st.sampled_from((256, 1024, 2048, 8192, 32768))),
        micro_batch=draw(st.integers(1, 16)),
        lora_rank=draw(st.sampled_from((8, 16, 64))),
        targets=draw(st.sampled_from(Targets)),
        optimizer=draw(st.sampled_from(Optimizer)),
        precision=draw(st.sampled_from(Precision)),
        grad_checkpointing=draw(st.sampled_from(Checkpointing)),
        compiled=draw(st.booleans()),
        packing=draw(st.sampled_from(Packing)),
        grad_accum=draw(st.sampled_from((1, 4, 16))),
        shard=draw(st.sampled_from(Sharding)),
        tokens_per_example=draw(st.none() | st.integers(64, 4096)),
    )
    return query, model, draw(st.sampled_from(GPUS))


@EXAMPLES
@given(runs(), st.integers(2, 8), st.integers(1, 8))
def test_a_bigger_micro_batch_is_never_slower_per_token(run, factor, gpus):
    query, model, gpu = run
    query = replace(query, gpus=gpus)
    bigger = replace(query, micro_batch=query.micro_batch * factor)
    assert tokens_per_second(bigger, model, gpu, gpus) >= tokens_per_second(
        query, model, gpu, gpus
    ) * (1 - 1e-9)


@EXAMPLES
@given(runs(), st.integers(2, 8))
def test_more_cards_are_never_faster_than_linear(run, gpus):
    query, model, gpu = run
    alone = tokens_per_second(replace(query, gpus=1), model, gpu, 1)
    together = tokens_per_second(replace(query, gpus=gpus), model, gpu, gpus)
    assert together <= alone * (1 + 1e-9)  # per card: n cards never do more than n times one


@EXAMPLES
@given(runs(), st.integers(2, 8))
def test_pcie_is_never_faster_than_nvlink_for_the_same_run(run, gpus):
    query, model, gpu = run
    query = replace(query, gpus=gpus)
    nvlink = tokens_per_second(query, model, gpu, gpus, Link.NVLINK)
    pcie = tokens_per_second(query, model, gpu, gpus, Link.PCIE)
    host = tokens_per_second(query, model, gpu, gpus, Link.PCIE_HOST)
    assert host <= pcie * (1 + 1e-9)
    assert pcie <= nvlink * (1 + 1e-9)


@EXAMPLES
@given(runs(), st.sampled_from((Offload.OPTIMIZER, Offload.PARAMS)), st.integers(1, 8))
def test_offload_never_makes_a_run_faster(run, offload, gpus):
    query, model, gpu = run
    query = replace(query, gpus=gpus, offload=Offload.NONE)
    kept = tokens_per_second(query, model, gpu, gpus)
    offloaded = tokens_per_second(replace(query, offload=offload), model, gpu, gpus)
    assert offloaded <= kept * (1 + 1e-9)
