"""The model catalog: parameter counts recomputed from the architecture, name matching."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from estimator.models import (
    LLAMA_LADDER,
    SIZE_CHOICES,
    CatalogError,
    find_model_in_text,
    get_model,
    load_models,
    match_model,
    model_for_size,
    parse_row,
    read_rows,
    size_reading,
)
from estimator.specs import MlpKind

CALIBRATION_CSV = (
    Path(__file__).resolve().parents[1] / "fixtures" / "estimator" / "vram_calibration.csv"
)

# model column of tests/fixtures/estimator/vram_calibration.csv -> its params_b column, as
# published; `test_calibration_list_is_current` fails when the CSV gains a model not listed.
CALIBRATION_MODELS: dict[str, float] = {
    "Baichuan-13B-Chat": 13.26, "CodeLlama-34B": 33.74, "GLM-4-9B-chat": 9.4,
    "LLaMA-65B (Guanaco-65B)": 65.29, "Llama-2-13B": 13.02, "Llama-2-70B": 68.98,
    "Llama-2-7B": 6.74, "Llama-3-8B": 8.03, "Llama-3.1-405B": 405.85, "Llama-3.1-70B": 70.55,
    "Llama-3.1-8B": 8.03, "Llama-3.2-3B": 3.21, "Llama-3.2-3B-Instruct": 3.21,
    "Llama-3.3-70B": 70.55, "Mistral-7B-v0.1": 7.24, "Mistral-7B-v0.2": 7.24,
    "Mistral-Small-Instruct-2409": 22.25, "Phi-3-medium-4k-instruct": 13.96,
    "Phi-3-mini-4k": 3.82, "Qwen2.5-7B": 7.62, "Qwen2.5-Coder-14B-Instruct": 14.77,
    "Qwen3-32B": 32.76, "TinyLlama-1.1B": 1.1, "Yi-34B": 34.39, "bigscience/T0_3B": 2.85,
    "bigscience/bloomz-7b1": 7.07, "bigscience/mt0-xxl": 12.9, "falcon-7b": 6.92,
    "gemma-2-2b": 2.61, "gemma-2-9b": 9.24, "gemma-2b": 2.51, "gemma-3-27b-it": 27.43,
    "phi-1.5": 1.42, "phi-2": 2.78, "stablelm-base-alpha-3b": 3.64, "LLaMA-1-7B": 6.74,
    "Yi-6B-Chat": 6.06, "Yi-34B-Chat": 34.39, "gemma-7b": 8.54, "Gemma-7B": 8.54,
    "Qwen2-7B": 7.62, "Qwen1-1.8B": 1.84, "Qwen1-1.8B-Chat": 1.84, "Qwen1-1.8B-Chat-Int4": 1.84,
    "Qwen1-7B": 7.72, "Qwen1-7B-Chat": 7.72, "Qwen1-7B-Chat-Int4": 7.72, "Qwen1-14B": 14.17,
    "Qwen1-14B-Chat": 14.17, "Qwen1-14B-Chat-Int4": 14.17, "Qwen1-72B-Chat": 72.29,
    "Qwen1-72B-Chat-Int4": 72.29, "Mixtral-8x7B-Instruct-v0.1": 46.7,
    "Devstral-Small-2505": 23.57, "Magistral-Small-2506": 23.57, "Magistral-Small-2507": 23.57,
    "Llama-3.2-1B": 1.24, "Qwen3-8B": 8.19, "Qwen2.5-7B-Instruct": 7.62, "Llama-3-70B": 70.55,
    "Qwen3-30B-A3B": 30.53, "Qwen3-1.7B": 1.72, "Phi-4": 14.66,
}  # fmt: skip
# The calibration row counts the -it checkpoint's vision tower, which the catalog leaves out.
VISION_TOWER = {"gemma-3-27b-it"}


def recount(row: dict[str, str]) -> int:
    """Parameters from the architecture columns alone.

    Embeddings once when tied; q/k/v/o with GQA (q = heads x head_dim, k/v = kv_heads x
    head_dim); MLP 3·h·I (gated) or 2·h·I (plain) per expert plus the router; norms (RMSNorm
    h, LayerNorm 2h); biases where the `bias` column says. Encoder-decoder rows hold
    encoder + decoder layers in `layers`; the decoder half adds cross-attention and its norm.
    """
    h, layers, vocab = int(row["hidden"]), int(row["layers"]), int(row["vocab"])
    q = int(row["heads"]) * int(row["head_dim"])
    kv = int(row["kv_heads"]) * int(row["head_dim"])
    inter, experts = int(row["intermediate"]), int(row["experts"])
    attention = 2 * h * q + 2 * h * kv
    if row["bias"] in ("qkv", "all"):
        attention += q + 2 * kv
    if row["bias"] == "all":
        attention += h
    per_expert = (3 if row["mlp"] == "gated" else 2) * h * inter
    if row["bias"] == "all" and row["mlp"] == "plain":
        per_expert += inter + h
    mlp = experts * per_expert + (h * experts if experts > 1 else 0)
    shared = int(row["shared_expert_intermediate"])
    mlp += 3 * h * shared
    norm = 2 * h if row["norm"] == "layer" else h
    body = layers * (attention + mlp + int(row["norms_per_layer"]) * norm)
    final_norms = norm
    if row["encoder_decoder"] == "true":
        body += layers // 2 * (attention + norm)
        final_norms = 2 * norm
    embeddings = vocab * h * (1 if row["tied_embeddings"] == "true" else 2)
    return body + embeddings + final_norms


ROWS = read_rows()


def test_catalog_loads_with_unique_ids() -> None:
    models = load_models()
    assert len(models) == len(ROWS) >= 70
    assert len({m.id for m in models}) == len(models)
    assert load_models() is models  # cached


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_total_params_match_the_architecture(row: dict[str, str]) -> None:
    published = int(row["total_params"])
    # Rows whose notes say APPROX store an architecture the columns cannot hold exactly
    # (DeepSeek-V3's MLA and mixed dense/MoE layers) and say how it was folded in.
    tolerance = 0.01 if row["notes"].startswith("APPROX") else 0.005
    assert recount(row) == pytest.approx(published, rel=tolerance)


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_rows_are_consistent(row: dict[str, str]) -> None:
    spec = get_model(row["id"])
    assert spec.source
    assert spec.heads % spec.kv_heads == 0
    assert spec.q_dim >= spec.kv_dim
    assert match_model(spec.id) is spec
    for alias in spec.aliases:
        assert match_model(alias) is spec, alias


@pytest.mark.parametrize(("name", "params_b"), CALIBRATION_MODELS.items())
def test_every_calibration_model_is_in_the_catalog(name: str, params_b: float) -> None:
    spec = match_model(name)
    assert spec is not None, name
    tolerance = 0.02 if name in VISION_TOWER else 0.005
    assert spec.params_b == pytest.approx(params_b, rel=tolerance)


def test_calibration_list_is_current() -> None:
    with CALIBRATION_CSV.open(encoding="utf-8") as f:
        names = {row["model"] for row in csv.DictReader(f)}
    assert names <= set(CALIBRATION_MODELS)


def test_moe_rows() -> None:
    moe = {m.id: m for m in load_models() if m.experts > 1}
    assert set(moe) >= {"Mixtral-8x7B-v0.1", "Mixtral-8x22B-v0.1", "Qwen3-30B-A3B"}
    assert (moe["Mixtral-8x7B-v0.1"].experts, moe["Mixtral-8x7B-v0.1"].active_experts) == (8, 2)
    assert (moe["Qwen3-30B-A3B"].experts, moe["Qwen3-30B-A3B"].active_experts) == (128, 8)
    for spec in moe.values():
        assert 0 < spec.active_params < spec.total_params
    # Published active counts: Mixtral 8x7B ~12.9B, Qwen3-30B-A3B ~3.3B.
    assert moe["Mixtral-8x7B-v0.1"].active_params / 1e9 == pytest.approx(12.9, rel=0.02)
    assert moe["Qwen3-30B-A3B"].active_params / 1e9 == pytest.approx(3.3, rel=0.03)


def test_plain_mlp_and_encoder_decoder_rows() -> None:
    for model_id in ("Falcon-7B", "Falcon-40B", "Phi-1.5", "Phi-2", "BLOOMZ-7B1"):
        assert get_model(model_id).mlp is MlpKind.PLAIN
    assert get_model("Falcon-7B").kv_heads == 1  # multi-query
    assert get_model("T0-3B").encoder_decoder
    assert get_model("mT0-XXL").encoder_decoder
    assert not get_model("Llama-3.1-8B").encoder_decoder


LOOSE_NAMES = [
    ("llama 3 8b", "Llama-3.1-8B"),
    ("Llama-3.1-8B-Instruct", "Llama-3.1-8B"),
    ("meta-llama/Meta-Llama-3.1-8B", "Llama-3.1-8B"),
    ("meta-llama/Meta-Llama-3-8B-Instruct", "Llama-3.1-8B"),
    ("llama3.1 8b", "Llama-3.1-8B"),
    ("llama 31 8b", "Llama-3.1-8B"),  # version dots are optional
    ("qwen2.5 72b", "Qwen2.5-72B"),
    ("Qwen2.5-72B-Instruct", "Qwen2.5-72B"),
    ("qwen25-72b", "Qwen2.5-72B"),
    ("mixtral 8x7b", "Mixtral-8x7B-v0.1"),
    ("Mixtral-8x22B-Instruct-v0.1", "Mixtral-8x22B-v0.1"),
    ("мистраль 7б", "Mistral-7B-v0.3"),  # the newest Mistral 7B
    ("mistral 7b v0.1", "Mistral-7B-v0.1"),
    ("Mistral-7B-Instruct-v0.2", "Mistral-7B-v0.1"),  # v0.2 has v0.1's shapes
    ("ллама 3 70б", "Llama-3.3-70B"),
    ("лама 2 13b", "Llama-2-13B"),
    ("квен 2.5 7b", "Qwen2.5-7B"),
    ("gemma 2 9b", "Gemma-2-9B"),
    ("gemma-2b", "Gemma-2B"),  # Gemma 1: an exact name beats "newest"
    ("gemma 2 2b", "Gemma-2-2B"),
    ("phi-3 mini", "Phi-3-mini"),
    ("phi3-medium", "Phi-3-medium"),
    ("Phi-3.5-mini-instruct", "Phi-3-mini"),
    ("phi-1_5", "Phi-1.5"),
    ("yi 34b", "Yi-34B"),
    ("deepseek 7b", "DeepSeek-LLM-7B"),
    ("deepseek coder 33b", "DeepSeek-Coder-33B"),
    ("falcon 40b", "Falcon-40B"),
    ("tinyllama", "TinyLlama-1.1B"),
    ("codellama 34b", "CodeLlama-34B"),
    ("CodeLlama-7b-Instruct-hf", "CodeLlama-7B"),
    ("llama 70b", "Llama-3.3-70B"),  # the newest Llama 70B
    ("llama 7b", "Llama-2-7B"),  # the newest Llama with a 7B; LLaMA 1 needs "llama 1"
    ("llama 1 7b", "LLaMA-1-7B"),
    ("llama 3 1b", "Llama-3.2-1B"),  # "3" is a prefix of 3.2
    ("qwen 7b", "Qwen2.5-7B"),  # the newest generation with a 7B (Qwen3 has an 8B)
    ("qwen1 7b", "Qwen1-7B"),  # Qwen 1.0 needs its generation named
    ("Qwen1-14B-Chat-Int4", "Qwen1-14B"),
    ("qwen 72b", "Qwen2.5-72B"),
    ("devstral small 2505", "Mistral-Small-24B"),  # a text-only fine-tune of Mistral Small 3.1
    ("Magistral-Small-2507", "Mistral-Small-24B"),
    ("qwen 8b", "Qwen3-8B"),
    ("qwen coder 7b", "Qwen2.5-Coder-7B"),
    ("qwen3 30b a3b", "Qwen3-30B-A3B"),
    ("Qwen3-235B-A22B-Instruct", "Qwen3-235B-A22B"),
    ("unsloth/Llama-3.2-3B-Instruct-bnb-4bit", "Llama-3.2-3B"),
    ("unsloth/mistral-7b-v0.3-bnb-4bit", "Mistral-7B-v0.3"),
    ("Llama-2-7b-chat-hf", "Llama-2-7B"),
    ("mistral nemo", "Mistral-Nemo-12B"),
    ("Mistral-Small-24B-Instruct-2501", "Mistral-Small-24B"),
    ("saiga llama3 8b", "Llama-3.1-8B"),  # unknown words do not veto a match
    ("Vikhr-Nemo-12B-Instruct-R-21-09-24", "Mistral-Nemo-12B"),
    ("T-lite-it-1.0", "Qwen2.5-7B"),
    ("DeepSeek-R1-Distill-Qwen-32B", "Qwen2.5-32B"),
    ("glm 4 9b", "GLM-4-9B"),
    ("bloomz 7b", "BLOOMZ-7B1"),
    ("llama-30b", "LLaMA-1-33B"),
    ("ллама-3-8б", "Llama-3.1-8B"),
    ("ЛЛАМА 3 8Б", "Llama-3.1-8B"),
    ("дипсик-кодер 33б", "DeepSeek-Coder-33B"),
    ("джемма 2 27b", "Gemma-2-27B"),
    ("микстраль 8х7b", "Mixtral-8x7B-v0.1"),  # Cyrillic х
]


@pytest.mark.parametrize(("text", "model_id"), LOOSE_NAMES)
def test_loose_names(text: str, model_id: str) -> None:
    spec = match_model(text)
    assert spec is not None, text
    assert spec.id == model_id


@pytest.mark.parametrize(
    "text",
    ["", "llama", "mixtral", "qwen", "gemma 2", "phi 3", "h100", "13b", "llama 3.2 8b",
     "hello world", "t", "мистраль"],
)  # fmt: skip
def test_names_that_match_nothing(text: str) -> None:
    assert match_model(text) is None


@pytest.mark.parametrize(
    ("text", "model_id", "span"),
    [
        ("хватит ли 4090 для llama 3 8b с лорой?", "Llama-3.1-8B", "llama 3 8b"),
        ("лора на Qwen2.5-7B-Instruct, контекст 16к", "Qwen2.5-7B", "Qwen2.5-7B-Instruct"),
        ("fine-tune meta-llama/Meta-Llama-3.1-8B on a 4090?", "Llama-3.1-8B",
         "meta-llama/Meta-Llama-3.1-8B"),
        ("Llama 3.1 8B Instruct qlora", "Llama-3.1-8B", "Llama 3.1 8B Instruct"),
        ("qwen 7b 2 gpus", "Qwen2.5-7B", "qwen 7b"),
        ("дообучить мистраль 7б на двух 4090", "Mistral-7B-v0.3", "мистраль 7б"),
        ("phi-3 mini 4k context", "Phi-3-mini", "phi-3 mini"),
        ("gemma-2-9b.", "Gemma-2-9B", "gemma-2-9b"),
        # A distilled model named with spaces is its base, not the 671B teacher.
        ("deepseek r1 distill qwen 7b qlora", "Qwen2.5-7B", "deepseek r1 distill qwen 7b"),
        ("deepseek r1 distill llama 8b на 4090", "Llama-3.1-8B", "deepseek r1 distill llama 8b"),
        ("дипсик r1 дистилл квен 7b лора", "Qwen2.5-7B", "дипсик r1 дистилл квен 7b"),
        ("deepseek r1 qlora на 8 h200", "DeepSeek-V3", "deepseek r1"),
        ("llama 3 8b qwen 7b", "Llama-3.1-8B", "llama 3 8b"),  # the first model named
    ],
)  # fmt: skip
def test_find_model_in_text(text: str, model_id: str, span: str) -> None:
    found = find_model_in_text(text)
    assert found is not None
    spec, start, end = found
    assert (spec.id, text[start:end]) == (model_id, span)


@pytest.mark.parametrize("text", ["привет", "сколько стоит h100", "don't 7b", "llama?", "8k"])
def test_find_model_in_text_finds_nothing(text: str) -> None:
    assert find_model_in_text(text) is None


# A bare size a model is published at is the model people tune at that size (SIZE_CHOICES);
# any other size is a Llama-like architecture of that size: a Llama model within 10 %, else
# shapes scaled between the neighbouring Llama sizes - never another size.
NAMED_SIZES = [
    (3, "Llama-3.2-3B"),
    (7, "Llama-2-7B"),
    (8, "Llama-3.1-8B"),
    (13, "Llama-2-13B"),
    (14, "Qwen2.5-14B"),  # never Llama-2-13B, which needs 9 GiB less
    (32, "Qwen2.5-32B"),
    (34, "CodeLlama-34B"),
    (70, "Llama-3.3-70B"),
    (72, "Qwen2.5-72B"),
    (405, "Llama-3.1-405B"),
    (0.5, "Qwen2.5-0.5B"),
    (6.7, "Llama-2-7B"),  # within 10 % of a Llama size: its architecture
]


@pytest.mark.parametrize(("size", "model_id"), NAMED_SIZES)
def test_bare_sizes_are_the_model_people_tune_at_that_size(size: float, model_id: str) -> None:
    assert model_for_size(size).id == model_id
    assert size_reading(size).catalog


@pytest.mark.parametrize("size", [0.1, 1.8, 5, 20, 30, 100, 200, 671, 1000])
def test_other_bare_sizes_get_a_llama_like_architecture_of_that_size(size: float) -> None:
    spec = model_for_size(size)
    assert not size_reading(size).catalog
    assert spec.family == "llama"
    assert spec.params_b == pytest.approx(size, rel=0.08)
    assert spec.vocab in (32_000, 128_256)  # a Llama vocabulary, never 152k or 256k
    assert spec.experts == 1
    assert spec.heads % spec.kv_heads == 0


def test_a_size_reading_names_the_other_models_of_that_size() -> None:
    fourteen = size_reading(14)
    assert fourteen.others == ("Qwen3-14B", "Phi-4")
    assert size_reading(13).others == ()
    assert size_reading(6.7).others == ()  # not a size anyone publishes: no other reading


@pytest.mark.parametrize(("size", "choices"), sorted(SIZE_CHOICES.items()))
def test_size_choices_are_dense_catalog_models_of_that_size(
    size: float, choices: tuple[str, ...]
) -> None:
    for model_id in choices:
        spec = get_model(model_id)
        assert spec.params_b == pytest.approx(size, rel=0.35), model_id  # Gemma-2-2B: 2.6B
        assert spec.experts == 1  # a bare size is a dense model's
    assert len(set(choices)) == len(choices)


def test_ladder_rows_are_dense_llama_catalog_rows() -> None:
    for model_id in LLAMA_LADDER:
        spec = get_model(model_id)
        assert spec.experts == 1
        assert spec.family == "llama"


def test_deepseek_v3_is_the_671b_moe() -> None:
    spec = match_model("deepseek v3 671b")
    assert spec is not None
    assert spec.id == "DeepSeek-V3"
    assert spec.params_b == pytest.approx(671, rel=0.01)
    assert spec.experts > 1
    assert spec.active_params < spec.total_params / 5


@pytest.mark.parametrize("size", [0, -1, float("nan"), float("inf")])
def test_model_for_size_rejects_nonsense(size: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        model_for_size(size)


def _good_row() -> dict[str, str]:
    return dict(next(r for r in ROWS if r["id"] == "Llama-2-7B"))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("hidden", "abc", "hidden='abc' is not an integer"),
        ("layers", "0", "layers=0 must be positive"),
        ("kv_heads", "7", "kv_heads 7 must divide heads 32"),
        ("tied_embeddings", "maybe", "tied_embeddings='maybe' must be true or false"),
        ("mlp", "swiglu", "mlp='swiglu' must be gated or plain"),
        ("active_experts", "2", "active_experts exceeds experts"),
        ("released", "2023", "released='2023' must be YYYY-MM"),
        ("id", "", "id and family must not be empty"),
    ],
)
def test_bad_rows_are_named(field: str, value: str, message: str) -> None:
    row = _good_row()
    row[field] = value
    with pytest.raises(CatalogError, match=r"models\.csv line 7") as info:
        parse_row(7, row)
    assert message in str(info.value)
