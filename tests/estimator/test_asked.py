"""A question is not an instruction: a lever asked about is sized both ways and never switched,
and an unstated default that decides the verdict on the asked card is said."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from estimator.answer import FitAnswer, build_answer
from estimator.asked import KEYS, alternatives
from estimator.fit import Verdict
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.parse import ParsedQuery, parse_command
from estimator.query import Offload, Optimizer

# The question: «do we need CPU offload for a 70b full fine-tune on 8x H100?»
OFFLOAD_QUESTION = "70b full gpus=8 gpu=h100"


def asking(command: str, *levers: str) -> ParsedQuery:
    """The reading of a question about `levers` (what the free-text reader will give)."""
    return replace(parse_command(command), asked_about=levers)


def answer_to(command: str, *levers: str) -> FitAnswer:
    return build_answer(asking(command, *levers), load_gpus())


def test_asking_about_offload_sizes_the_run_without_it_and_compares() -> None:
    answer = answer_to(OFFLOAD_QUESTION, "offload")
    assert answer.query.offload is Offload.NONE  # never switched on
    assert answer.offload is None
    assert answer.target is not None
    assert answer.target.verdict is Verdict.NO
    assert answer.memory.peak > 150  # 167 GiB per GPU without offload
    # The lever asked about first; an unstated default that decides the verdict may follow.
    comparison = answer.levers[0]
    assert comparison.asked
    assert comparison.lever == "offload"
    assert comparison.current.setting == "offload=none"
    assert comparison.current.host_ram_gb == 0
    settings_ = [other.setting for other in comparison.others]
    assert settings_ == ["offload=optimizer", "offload=params"]
    for other in comparison.others:
        assert other.card is not None
        assert other.card.verdict is not Verdict.NO  # offload buys the fit ...
        assert other.host_ram_gb > 1500  # ... for over 1.5 TB of host RAM
        assert other.step_seconds > 30
        assert other.tokens_per_second is not None
        assert comparison.current.tokens_per_second is not None
        # A 40-second CPU step against a micro-batch of a second or so on the GPUs.
        assert other.tokens_per_second < comparison.current.tokens_per_second / 3
    assert comparison.pick.setting == "offload=optimizer"  # the lighter way that fits


@settings(max_examples=25, deadline=None)
@given(
    command=st.sampled_from(
        ["8b qlora gpu=4090", "70b full gpus=8 gpu=h100", "13b lora", "8b full gpus=2"]
    ),
    levers=st.lists(st.sampled_from(sorted(KEYS)), max_size=3, unique=True),
)
def test_a_question_never_changes_the_run(command: str, levers: list[str]) -> None:
    plain = build_answer(parse_command(command), load_gpus())
    asked = answer_to(command, *levers)
    assert asked.query == plain.query
    assert asked.memory == plain.memory
    assert {c.lever for c in asked.levers if c.asked} == {
        lever for lever in levers if alternatives(lever, plain.query)
    }


def test_the_default_that_decides_the_verdict_is_said() -> None:
    answer = answer_to(OFFLOAD_QUESTION)  # offload not asked, not stated
    offload = next(c for c in answer.levers if c.lever == "offload")
    assert not offload.asked
    assert all(offload.changes_verdict(other) for other in offload.others)


def test_checkpointing_on_by_default_is_said_where_off_would_not_fit() -> None:
    answer = answer_to("8b lora gpu=4090")
    assert answer.target is not None
    assert answer.target.verdict is not Verdict.NO
    gc = next(c for c in answer.levers if c.lever == "grad_checkpointing")
    assert gc.current.setting == "gc=on"
    assert [other.setting for other in gc.others] == ["gc=off"]
    assert gc.others[0].card is not None
    assert gc.others[0].card.verdict is Verdict.NO


def test_a_default_that_changes_nothing_is_not_said() -> None:
    answer = answer_to("llama 3.2 1b qlora gpu=h100")
    assert answer.levers == ()


def test_a_stated_setting_is_not_a_default() -> None:
    answer = answer_to("8b lora gpu=4090 gc=on")
    assert all(c.lever != "grad_checkpointing" for c in answer.levers)


def test_without_a_card_only_the_levers_asked_about_are_compared() -> None:
    answer = answer_to("70b full gpus=8", "offload")
    [comparison] = answer.levers
    assert not comparison.on_card
    current, *others = comparison.current, *comparison.others
    assert current.card is not None  # the fewest cards that hold it without offload
    for other in others:
        assert other.card is not None
        assert other.card.gpu.vram_gb < current.card.gpu.vram_gb or (
            (other.card.min_gpus or 1) < (current.card.min_gpus or 1)
        )
    assert answer_to("70b full gpus=8").levers == ()


def test_on_one_card_the_question_about_deepspeed_is_about_offload() -> None:
    answer = answer_to("8b full gpu=h100", "shard")
    [comparison] = [c for c in answer.levers if c.asked]
    # Offload is the question asked, not a second line as an unstated default.
    assert [c.lever for c in answer.levers].count("offload") == 0
    assert [other.setting for other in comparison.others] == [
        "offload=optimizer",
        "offload=params",
    ]


def test_an_8bit_optimizer_asked_about_saves_memory_at_no_ram() -> None:
    answer = answer_to("8b full gpu=h100", "optimizer")
    comparison = next(c for c in answer.levers if c.asked)
    [other] = comparison.others
    assert other.query.optimizer is Optimizer.ADAMW_8BIT
    assert other.peak_gib < comparison.current.peak_gib - 20
    assert other.host_ram_gb == 0


@pytest.mark.parametrize("lever", sorted(KEYS))
def test_every_lever_has_another_way(lever: str) -> None:
    parsed = parse_command("8b full gpus=2")
    ways = alternatives(lever, parsed.query)
    assert ways
    assert all(changed != parsed.query for _, changed in ways)


def test_a_question_naming_two_methods_compares_those_two() -> None:
    parsed = understand("8b: lora или qlora, что лучше на 4090?")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus())
    (method,) = [c for c in answer.levers if c.lever == "method"]
    assert [o.setting for o in method.others] == ["qlora"]  # not full, which nobody asked
