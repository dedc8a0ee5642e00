"""What a question about inference, a preference objective or training from scratch is told
beside the sizing."""

from __future__ import annotations

import pytest

from estimator.answer import build_answer
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.inference import GIB, inference_memory
from estimator.memory import GPTQ_BYTES
from estimator.models import get_model
from estimator.sizing_text import render_short, to_plain


def test_the_parts_are_the_weights_and_the_cache_of_the_config() -> None:
    model = get_model("Llama-3.1-8B")
    held = inference_memory(model, 8192)
    embeddings = model.vocab * model.hidden * 2  # untied: embed_tokens and lm_head
    blocks = model.total_params - embeddings
    assert held.weights_bf16_gib == pytest.approx(model.total_params * 2 / GIB)
    assert held.weights_int8_gib == pytest.approx((blocks + embeddings * 2) / GIB)
    assert held.weights_int4_gib == pytest.approx((blocks * GPTQ_BYTES + embeddings * 2) / GIB)
    # 32 layers x (K and V) x 8 KV heads x 128 x 8192 tokens x 2 bytes = 1 GiB
    assert held.kv_cache_gib == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("text", "language", "said"),
    [
        ("сколько памяти надо для инференса 70b?", "ru", "Это расчёт дообучения"),
        (
            "how much vram for inference of qwen2.5 7b at 32k context",
            "en",
            "This sizes fine-tuning",
        ),
    ],
)
def test_a_question_about_inference_is_told_what_running_the_model_holds(
    text: str, language: str, said: str
) -> None:
    parsed = understand(text)
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), [])
    first = to_plain(render_short(answer, language)).splitlines()[0]
    held = inference_memory(answer.model, answer.query.ctx)
    assert first.startswith(f"ℹ️ {said}")
    bf16 = f"{held.weights_bf16_gib:.1f}"
    assert (bf16 if language == "en" else bf16.replace(".", ",")) in first


def test_a_training_question_says_nothing_of_inference() -> None:
    parsed = understand("70b qlora ctx=4096")
    assert parsed is not None
    short = render_short(build_answer(parsed, load_gpus(), []), "ru")
    assert "инференс" not in short


@pytest.mark.parametrize(
    ("text", "objective", "reference"),
    [
        ("dpo на 8b модели, lora — сколько нужно памяти?", "DPO", False),
        ("full dpo for llama 3.1 8b", "DPO", True),
        ("orpo full 8b", "ORPO", False),
    ],
)
def test_a_preference_objective_is_said_with_its_batch_and_reference(
    text: str, objective: str, reference: bool
) -> None:
    parsed = understand(text)
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), [])
    first = to_plain(render_short(answer, "en")).splitlines()[0]
    assert first.startswith(f"ℹ️ {objective} is sized as supervised fine-tuning")
    assert f"bs={2 * answer.query.micro_batch}" in first
    assert ("reference model" in first) is reference


@pytest.mark.parametrize(("text", "reference"), [("kto lora 8b", False), ("kto full 1b", True)])
def test_kto_is_said_to_run_at_the_batch_asked(text: str, reference: bool) -> None:
    """TRL's KTOTrainer pairs nothing: its batch is the one asked, not twice it as DPO's."""
    parsed = understand(f"{text} bs=4")
    assert parsed is not None
    first = to_plain(render_short(build_answer(parsed, load_gpus(), []), "en")).splitlines()[0]
    assert first.startswith("ℹ️ KTO is sized as supervised fine-tuning at bs=4")
    assert ("reference model" in first) is reference


@pytest.mark.parametrize(
    "text", ["можно ли запустить обучение 8b на маке m2 с 32 гб?", "8b lora на macbook pro m3 max"]
)
def test_a_mac_is_said_not_to_be_sized(text: str) -> None:
    """A Mac's memory was a floor on the offers («карта от 32 ГБ») or a number not counted,
    and nothing said the answer is for NVIDIA cards."""
    parsed = understand(text)
    assert parsed is not None
    assert parsed.min_vram_gib is None
    short = to_plain(render_short(build_answer(parsed, load_gpus(), []), "ru"))
    assert "ℹ️ Mac не считаю: оценка — для видеокарт NVIDIA" in short
    assert "Не учёл" not in short
    other = understand("8b lora")
    assert other is not None
    assert "Mac" not in to_plain(render_short(build_answer(other, load_gpus(), []), "ru"))


def test_training_from_scratch_is_sized_as_a_full_run_and_said_to_be() -> None:
    parsed = understand("хочу обучить свою модель с нуля на 1b параметров")
    assert parsed is not None
    assert parsed.query.method.value == "full"
    first = to_plain(render_short(build_answer(parsed, load_gpus(), []), "ru")).splitlines()[0]
    assert first.startswith("ℹ️ Обучение с нуля считаю как full")
