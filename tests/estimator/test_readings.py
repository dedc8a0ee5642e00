"""estimator.readings: which readings of a bare size or a family are worth a question."""

from __future__ import annotations

from estimator.fit_words import command_for, understand
from estimator.parse import ParsedQuery
from estimator.readings import readings_to_ask, verdict, with_model


def read(command: str) -> ParsedQuery:
    parsed = understand(command)
    assert parsed is not None
    return parsed


def test_a_bare_size_whose_models_differ_is_asked_about_default_first() -> None:
    # At 4k tokens Qwen's 152k vocabulary takes a larger card than Phi-4's 100k.
    readings = readings_to_ask(read("14b qlora ctx=4096"))
    assert [r.label for r in readings] == ["Qwen2.5-14B", "Qwen3-14B", "Phi-4"]
    assert {r.kind for r in readings} == {"model"}
    assert len({verdict(r.answer) for r in readings}) > 1
    # Each button's command reads back as its own model, named.
    for reading in readings[1:]:
        again = read(command_for(reading.parsed))
        assert again.model.id == reading.label
        assert not again.model_from_size


def test_nothing_is_asked_when_every_reading_agrees() -> None:
    assert readings_to_ask(read("13b qlora")) == []  # one model people tune at 13B
    assert readings_to_ask(read("llama 3 8b qlora")) == []  # a named model
    assert readings_to_ask(read("13b qlora gpu=a100")) == []  # both A100s hold it
    assert readings_to_ask(read("13b qlora gpu=a100-80")) == []  # the memory is named


def test_a_family_is_asked_about_when_its_memory_decides() -> None:
    readings = readings_to_ask(read("34b lora gpu=a100"))
    assert [(r.kind, r.label, r.fits) for r in readings] == [
        ("card", "A100 40GB PCIe", False),
        ("card", "A100 80GB PCIe", True),
    ]
    assert read(command_for(readings[1].parsed)).target_gpu == "A100 80GB PCIe"


def test_with_model_names_the_model_and_assumes_it_no_more() -> None:
    parsed = read("14b qlora")
    assert parsed.assumed("model") == "Qwen2.5-14B"
    phi = with_model(parsed, "Phi-4")
    assert phi.assumed("model") is None
    assert phi.query.model == "Phi-4"
    assert phi.query.method is parsed.query.method
