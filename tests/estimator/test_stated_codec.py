"""estimator.stated_codec: what the user stated travels as a short versioned text, and the
run it reads back as is answered exactly as the run it was made from."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from estimator.answer import build_answer
from estimator.config_query import sizing_for_config
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.model_config import read_config
from estimator.parse import ParsedQuery
from estimator.sizing_text import render_details, render_short
from estimator.stated_codec import StatedCodecError, decode, is_typed, sizing, stated_text
from tests.estimator.test_model_config import CONFIGS

# A representative set of runs: each way a person states one.
RUNS = {
    "a size only": "13b",
    "a named model": "llama 3 8b lora ctx=4096",
    "dataset, tokens and epochs": "qwen2.5 7b lora dataset=20k tokens=512 epochs=3",
    "a dataset whose length is assumed": "13b qlora ctx=4096 dataset=20k",
    "a named GPU and count": "70b full gpus=8 gpu=h100",
    "offload": "13b full offload=optimizer gpu=a100-80",
    "packing": "8b lora packing=packed ds=50k tok=700",
    "steps": "8b qlora steps=60",
    "ctx=max": "8b qlora ctx=max gpu=3090",
    "a ruled-out method": "хочу дообучить 13b без qlora",
    "offers and billing": "7b qlora rate=300 loc=ru hpm=60 billing=month",
    "the cheapest card": "на какой самой дешёвой карте пойдёт 8b с ctx 8k",
    "a range of lengths": "8b lora примеры от 1500 до 3500 токенов 10к примеров",
    "a budget": "13b lora на 4090 уложусь в 5000 ₽ за 3 эпохи 20к примеров",
    "many settings": (
        "qwen2.5 coder 14b qlora ctx=16k dataset=50k tokens=700 epochs=3 gpu=a100-80 "
        "budget=5000 r=64 bs=2 opt=adamw8bit"
    ),
}


def read(text: str) -> ParsedQuery:
    parsed = understand(text)
    assert parsed is not None, text
    return parsed


def answers(parsed: ParsedQuery) -> tuple[str, ...]:
    answer = build_answer(parsed, load_gpus())
    return render_short(answer, "ru"), render_short(answer, "en"), render_details(answer, "ru")


@pytest.mark.parametrize("run", RUNS.values(), ids=list(RUNS))
def test_a_runs_text_is_answered_as_the_run(run: str):
    parsed = read(run)
    text = stated_text(parsed)
    assert text.isascii()
    assert is_typed(text)
    assert answers(sizing(text)) == answers(parsed)
    assert stated_text(sizing(text)) == text  # read back and written again: the same text


def test_the_text_is_short_and_says_only_what_was_stated():
    assert stated_text(read("13b")) == "~1s13"
    assert stated_text(read("13b lora ctx=4096 ds=20k tok=512")) == "~1s13,alora,c4096,d20k,T512"
    assert stated_text(read("8b qlora ctx=max gpu=3090")) == "~1s8,aqlora,qRTX_3090,Xctx"


def test_another_method_replaces_the_one_stated_or_ruled_out():
    parsed = read("хочу дообучить 13b без qlora")
    assert answers(sizing(stated_text(parsed, read("13b full").query.method))) == answers(
        read("13b full")
    )


def test_a_config_models_text_leaves_the_model_to_be_kept_aside():
    spec = read_config(json.dumps(CONFIGS["Llama-3.1-8B"])).spec
    parsed = sizing_for_config(spec, "lora ctx=2048 dataset=10k")
    text = stated_text(parsed)
    assert decode(text).model is None
    again = sizing(text, spec)
    assert again.model_from_config
    assert again.model == spec
    assert answers(again) == answers(parsed)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "13b qlora",  # a /fit command: the legacy readers' business
        "~2s13",  # a version this code does not read
        "~1",  # no model
        "~1s13,s14",  # a key twice
        "~1s13,Z5",  # an unknown key
        "~1s13,cabc",
        "~1s13,c0",
        "~1s13,c99999999",
        "~1s13,c 4096",
        "~1s13,c-1",
        "~1snan",
        "~1s1e5",
        "~1s13,anope",
        "~1mNoSuchModel",
        "~1s13,qH100",  # a family is not a card
        "~1s13,FNoFamily",
        "~1s13,z1",  # a flag with a value
        "~1s13,xqlora+qlora",
        "~1s13,afull,Xrank",  # rank=max on a full fine-tune
        "~1s13,e0",
        "~1s13,Bweek",
    ],
)
def test_a_forged_text_is_a_codec_error(text: str):
    with pytest.raises(StatedCodecError):
        sizing(text)


KEYS = "msaxcbrtopknhKflPAedDTyLSiuvHRGMBwgqFzCX"
_ITEMS = st.lists(
    st.tuples(st.sampled_from(KEYS), st.text("0189k.aflqr_+")),
    max_size=6,
).map(lambda items: "~1" + ",".join(key + value for key, value in items))


@given(st.one_of(st.text(max_size=64), st.text(max_size=60).map(lambda t: "~1" + t), _ITEMS))
def test_any_text_is_a_sizing_or_a_codec_error(text: str):
    try:
        parsed = sizing(text)
    except StatedCodecError:
        return
    assert stated_text(sizing(stated_text(parsed))) == stated_text(parsed)
