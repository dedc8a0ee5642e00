"""The GPU and model facts an answer must get right, and the seed guides' claims
(docs/estimator.md): the answer says the right thing. (The speed facts - H100 against A100,
T4 against a 3090 - are in test_fit_time_cost.py.)"""

from __future__ import annotations

import pytest

from estimator.answer import FitAnswer, build_answer
from estimator.fit import Verdict
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.query import Stack
from estimator.sizing_text import render_details, render_short


def answer(text: str) -> FitAnswer:
    parsed = understand(text)
    assert parsed is not None
    return build_answer(parsed, load_gpus())


def test_h100_alone_is_the_80gb_card_and_nvl_only_when_named():
    plain = answer("7b full on h100")
    assert plain.target is not None
    assert plain.target.gpu.id == "H100 PCIe"  # 80 GB, the slower of SXM and PCIe
    nvl = answer("7b full on h100 nvl")
    assert nvl.target is not None
    assert nvl.target.gpu.id == "H100 NVL"


def test_a_bare_7b_is_a_llama_like_7b_not_qwen():
    sized = answer("7b qlora")
    assert sized.model.id == "Llama-2-7B"
    assert render_short(sized, "ru").startswith("<b>7B · QLoRA")  # the size as asked
    assert 5.0 < sized.memory.peak < 9.5


def test_pascal_cards_leave_the_table_and_are_never_the_advice():
    cheap = answer("1b qlora ctx=512")
    ids = {row.gpu.id for row in cheap.table}
    assert not ids & {"P40", "P100", "GTX 1080 Ti"}
    assert cheap.smallest is not None
    assert cheap.smallest.gpu.bf16
    asked = answer("1b qlora ctx=512 gpu=p40")
    assert asked.target is not None
    assert asked.target.gpu.id == "P40"  # shown when asked about


def test_fp16_only_cards_are_marked_in_the_table():
    details = render_details(answer("7b qlora"), "ru")
    t4 = next(line for line in details.splitlines() if line.startswith(("✅ T4", "❌ T4")))
    assert "только fp16/fp32, медленно" in t4


def test_fp16_on_a_bf16_card_is_warned_about():
    codes = {c.code for c in answer("8b lora precision=fp16 gpu=4090").cautions}
    assert "fp16_on_bf16" in codes
    assert "fp16_on_bf16" not in {c.code for c in answer("8b lora gpu=4090").cautions}


def test_a_context_beyond_the_native_one_is_warned_about():
    cautions = answer("llama 2 7b qlora ctx=32k").cautions
    assert ("native_ctx", "4096") in {(c.code, c.value) for c in cautions}
    assert "native_ctx" not in {c.code for c in answer("llama 3.1 8b qlora ctx=32k").cautions}


def test_no_stack_named_gives_the_assumed_stack_and_the_range():
    plain = answer("8b qlora ctx=8192")
    assert plain.query.stack is Stack.HF
    assert set(plain.stack_peaks) >= {Stack.HF, Stack.UNSLOTH, Stack.TORCHTUNE}
    assert plain.stack_peaks[Stack.UNSLOTH] < plain.stack_peaks[Stack.HF]
    short = render_short(plain, "ru")
    assert "с HF Trainer + PEFT (если стек не указан)" in short
    assert "Unsloth" in short
    named = answer("8b qlora ctx=8192 stack=unsloth")
    assert not named.stack_peaks
    assert named.query.grad_checkpointing.value == "unsloth"  # the stack's own default


def test_gc_unsloth_implies_the_unsloth_stack():
    parsed = understand("8b qlora gc=unsloth")
    assert parsed is not None
    assert parsed.query.stack is Stack.UNSLOTH


# --- the seed guides: agree with what is right, correct what is not ----------------------------


def test_seed_7b_lora_fits_a_4090():
    result = answer("7B LoRA на RTX 4090")
    assert result.target is not None
    assert result.target.verdict is not Verdict.NO


def test_seed_70b_qlora_fits_one_a100_80gb():
    result = answer("70B QLoRA на A100 80GB")
    assert result.target is not None
    assert result.target.verdict is not Verdict.NO


def test_seed_13b_lora_on_a_4090_is_corrected_a_40gb_a100_does_hold_it():
    on_4090 = answer("13B LoRA на RTX 4090")  # the seed's table says it fits; 26 GB of weights
    assert on_4090.target is not None
    assert on_4090.target.verdict is Verdict.NO
    assert "qlora" in {a.code for a in on_4090.advice}
    on_a100 = answer("13B LoRA на A100 40GB")
    assert on_a100.target is not None
    assert on_a100.target.verdict is not Verdict.NO


def test_seed_7b_full_on_one_a100_needs_the_guides_own_levers():
    default = answer("7B full fine-tune на A100 80GB")  # AMP AdamW: 18 bytes per parameter
    assert default.target is not None
    assert default.target.verdict is Verdict.NO
    assert {"adam8bit", "pure_bf16"} <= {a.code for a in default.advice}
    lean = answer("7b full gpu=a100-80 precision=bf16 optim=adamw8bit")
    assert lean.target is not None
    assert lean.target.verdict is not Verdict.NO


def test_seed_13b_full_on_one_a100_80gb_is_corrected():
    result = answer("13B full fine-tune на A100 80GB")
    assert result.target is not None
    assert result.target.verdict is Verdict.NO
    assert result.target.min_gpus is not None
    assert result.target.min_gpus >= 2


@pytest.mark.parametrize("size", ["7b", "13b", "70b"])
def test_seed_rule_4x_params_in_fp16_overstates_lora_and_understates_amp(size: str):
    """«VRAM ≈ 4× параметров в FP16» (8 bytes per parameter) is off both ways."""
    lora = answer(f"{size} lora")
    full = answer(f"{size} full")
    rule = lora.model.total_params * 8 / 2**30
    assert lora.memory.peak < rule
    assert full.memory.peak > rule


def test_a_card_too_small_for_the_assumed_stack_names_the_stack_that_fits():
    short = render_short(answer("хватит ли a6000 для llama 3 8b qlora на 32к контексте?"), "ru")
    assert "❌ <b>RTX A6000</b>" in short
    assert "🔸 С Unsloth поместится" in short
    named = render_short(answer("llama 3 8b qlora ctx=32k gpu=a6000 stack=hf"), "ru")
    assert "🔸 С" not in named  # the user chose the stack
