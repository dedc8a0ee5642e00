"""A model from its config.json sizes like the catalog's row of the same model.

Each config below is the model's published config.json, trimmed to the fields that shape the
model (the values are those on the Hugging Face hub page named in its comment; they are also
the figures of the catalog row, estimator/data/models.csv).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from estimator.answer import build_answer
from estimator.config_query import sizing_for_config, with_config_model
from estimator.fit_words import command_for, understand
from estimator.followup import apply_followup, stated_command
from estimator.gpus import load_gpus
from estimator.i18n import translator
from estimator.model_config import (
    ConfigError,
    ConfigModel,
    looks_like_config,
    read_config,
    spec_from_json,
    spec_json,
)
from estimator.models import get_model
from estimator.parse import QueryError

CONFIGS: dict[str, dict[str, Any]] = {
    # huggingface.co/meta-llama/Llama-3.1-8B config.json
    "Llama-3.1-8B": {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False,
        "max_position_embeddings": 131072, "attention_bias": False, "mlp_bias": False,
    },
    # huggingface.co/Qwen/Qwen2.5-1.5B config.json (tied embeddings; q/k/v bias is built in)
    "Qwen2.5-1.5B": {
        "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 1536,
        "intermediate_size": 8960, "num_hidden_layers": 28, "num_attention_heads": 12,
        "num_key_value_heads": 2, "vocab_size": 151936, "tie_word_embeddings": True,
        "max_position_embeddings": 32768,
    },
    # huggingface.co/google/gemma-2-9b config.json (head_dim 256; tied by Gemma2Config default)
    "Gemma-2-9B": {
        "architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "hidden_size": 3584,
        "intermediate_size": 14336, "num_hidden_layers": 42, "num_attention_heads": 16,
        "num_key_value_heads": 8, "head_dim": 256, "vocab_size": 256000,
        "max_position_embeddings": 8192, "attn_logit_softcapping": 50.0,
        "final_logit_softcapping": 30.0,
    },
    # huggingface.co/microsoft/Phi-3-mini-4k-instruct config.json
    "Phi-3-mini": {
        "architectures": ["Phi3ForCausalLM"], "model_type": "phi3", "hidden_size": 3072,
        "intermediate_size": 8192, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 32, "vocab_size": 32064, "tie_word_embeddings": False,
        "max_position_embeddings": 4096,
    },
    # huggingface.co/mistralai/Mistral-Nemo-Base-2407 config.json (head_dim 128 != 5120/32)
    "Mistral-Nemo-12B": {
        "architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 5120,
        "intermediate_size": 14336, "num_hidden_layers": 40, "num_attention_heads": 32,
        "num_key_value_heads": 8, "head_dim": 128, "vocab_size": 131072,
        "max_position_embeddings": 131072, "tie_word_embeddings": False,
    },
    # huggingface.co/mistralai/Mixtral-8x7B-v0.1 config.json
    "Mixtral-8x7B-v0.1": {
        "architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 4096,
        "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "num_local_experts": 8, "num_experts_per_tok": 2,
        "vocab_size": 32000, "max_position_embeddings": 32768, "tie_word_embeddings": False,
    },
    # huggingface.co/Qwen/Qwen3-30B-A3B config.json
    "Qwen3-30B-A3B": {
        "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
        "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
        "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4,
        "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8,
        "decoder_sparse_step": 1, "mlp_only_layers": [], "vocab_size": 151936,
        "tie_word_embeddings": False, "max_position_embeddings": 40960,
    },
    # huggingface.co/deepseek-ai/DeepSeek-V3 config.json (MLA; 3 dense then 58 MoE layers)
    "DeepSeek-V3": {
        "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
        "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
        "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
        "n_shared_experts": 1, "n_routed_experts": 256, "num_experts_per_tok": 8,
        "first_k_dense_replace": 3, "moe_layer_freq": 1, "kv_lora_rank": 512,
        "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
        "v_head_dim": 128, "vocab_size": 129280, "tie_word_embeddings": False,
        "max_position_embeddings": 163840, "num_nextn_predict_layers": 1,
    },
}  # fmt: skip

RUNS = ("qlora ctx=4096", "lora ctx=2048 bs=2", "full ctx=1024 gpus=8 shard=fsdp")


def _peak(model_id: str, run: str) -> tuple[float, float]:
    gpus = load_gpus()
    catalog = understand(f"{model_id} {run}")
    assert catalog is not None
    assert catalog.model.id == model_id
    spec = read_config(json.dumps(CONFIGS[model_id])).spec
    from_config = sizing_for_config(spec, run)
    assert from_config.query == replace(catalog.query, model=spec.id)  # the same run
    return (
        build_answer(from_config, gpus).memory.peak,
        build_answer(catalog, gpus).memory.peak,
    )


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("model_id", CONFIGS)
def test_config_model_peaks_like_the_catalog_row(model_id: str, run: str) -> None:
    config_peak, catalog_peak = _peak(model_id, run)
    assert config_peak == pytest.approx(catalog_peak, rel=0.01)


@pytest.mark.parametrize("model_id", CONFIGS)
def test_config_model_has_the_catalog_shapes(model_id: str) -> None:
    spec = read_config(CONFIGS[model_id]).spec
    row = get_model(model_id)
    shapes = ("hidden", "layers", "heads", "kv_heads", "head_dim", "intermediate", "vocab")
    flags = ("tied_embeddings", "experts", "active_experts", "mlp", "hf_eager", "logit_softcap")
    for field in (*shapes, *flags):
        assert getattr(spec, field) == getattr(row, field), field
    assert spec.shared_expert_intermediate == row.shared_expert_intermediate
    assert spec.total_params == pytest.approx(row.total_params, rel=0.005)


def said(model: ConfigModel, language: str = "en") -> list[str]:
    return [item.say(translator(language)) for item in model.assumed]


def test_dense_and_mla_layouts_are_said_as_assumed() -> None:
    assumed = said(read_config(CONFIGS["DeepSeek-V3"]))
    assert any("MLA" in line for line in assumed)
    assert any("3 dense and 58 MoE layers" in line for line in assumed)


def test_qwen2_moe_shared_expert_and_gate_are_counted() -> None:
    # huggingface.co/Qwen/Qwen1.5-MoE-A2.7B config.json: 14.3B parameters on its model card.
    config = {
        "model_type": "qwen2_moe", "hidden_size": 2048, "intermediate_size": 5632,
        "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
        "num_hidden_layers": 24, "num_attention_heads": 16, "num_key_value_heads": 16,
        "num_experts": 60, "num_experts_per_tok": 4, "decoder_sparse_step": 1,
        "vocab_size": 151936, "tie_word_embeddings": False,
    }  # fmt: skip
    spec = read_config(config).spec
    assert spec.experts == 60
    assert spec.active_experts == 4
    assert spec.shared_expert_intermediate == 5632
    assert spec.intermediate == 1408
    assert spec.params_b == pytest.approx(14.3, rel=0.01)


def test_unknown_model_type_with_standard_fields_is_read_and_said() -> None:
    config = {**CONFIGS["Llama-3.1-8B"], "model_type": "my_llama_finetune"}
    model = read_config(config)
    assert model.spec.total_params == get_model("Llama-3.1-8B").total_params
    assert any("“my_llama_finetune” is not known" in line for line in said(model))


def test_name_comes_from_name_or_path() -> None:
    config = {**CONFIGS["Llama-3.1-8B"], "_name_or_path": "someone/Llama-3.1-8B-ft/"}
    assert read_config(config).spec.id == "Llama-3.1-8B-ft"
    assert read_config(CONFIGS["Llama-3.1-8B"]).spec.id == "llama-8.0B (config.json)"


def test_vision_wrapper_reads_text_config() -> None:
    wrapped = {"model_type": "gemma3", "text_config": {**CONFIGS["Gemma-2-9B"]}}
    model = read_config(wrapped)
    assert model.spec.hidden == 3584
    assert any("text_config" in line for line in said(model))


@pytest.mark.parametrize(
    ("drop", "field"),
    [
        ("num_hidden_layers", "num_hidden_layers"),
        ("hidden_size", "hidden_size"),
        ("vocab_size", "vocab_size"),
        ("intermediate_size", "intermediate_size"),
    ],
)
def test_missing_field_is_named(drop: str, field: str) -> None:
    config = {k: v for k, v in CONFIGS["Llama-3.1-8B"].items() if k != drop}
    with pytest.raises(ConfigError) as raised:
        read_config(config)
    assert raised.value.key == field
    assert field in raised.value.reason


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"hidden_size": "4096"}, "hidden_size"),
        ({"num_key_value_heads": 7}, "num_key_value_heads"),
        ({"tie_word_embeddings": "no"}, "tie_word_embeddings"),
        ({"num_local_experts": 8, "num_experts_per_tok": 9}, "num_experts_per_tok"),
        ({"num_local_experts": 8}, "num_experts_per_tok"),
    ],
)
def test_wrong_field_is_named(change: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as raised:
        read_config({**CONFIGS["Llama-3.1-8B"], **change})
    assert raised.value.key == field
    assert "\n" not in raised.value.reason


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"a": ', "x" * 70_000])
def test_not_a_config_is_a_one_line_error(text: str) -> None:
    with pytest.raises(ConfigError) as raised:
        read_config(text)
    assert raised.value.key == "config"
    assert raised.value.code == "bad_config"


def test_looks_like_config() -> None:
    assert looks_like_config(CONFIGS["Mixtral-8x7B-v0.1"])
    assert looks_like_config({"text_config": {"hidden_size": 1, "num_hidden_layers": 1}})
    assert not looks_like_config({"name": "x"})
    assert not looks_like_config([1])


def test_text_may_name_no_model_and_a_named_one_is_overruled() -> None:
    spec = read_config(CONFIGS["Qwen3-30B-A3B"]).spec
    bare = sizing_for_config(spec, "")
    assert bare.model is spec
    assert bare.query.method.value == "qlora"
    assert bare.assumed("method") == "qlora"
    assert bare.assumed("model") is None
    named = sizing_for_config(spec, "llama 3 70b lora ctx=8192")
    assert named.model is spec
    assert named.query.ctx == 8192
    assert "config_model:Llama-3.3-70B" in named.notes
    with pytest.raises(QueryError) as raised:
        sizing_for_config(spec, "qlora ctx=banana")
    assert raised.value.key == "ctx"


def test_what_was_assumed_is_said_in_russian_too() -> None:
    [line] = [text for text in said(read_config(CONFIGS["DeepSeek-V3"]), "ru") if "MoE" in text]
    assert "плотных" in line
    assert "dense" not in line


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_configs_shapes_read_back_from_their_json(name: str) -> None:
    spec = read_config(CONFIGS[name]).spec
    assert spec_from_json(spec_json(spec)) == spec
    assert len(spec_json(spec)) < 1000  # a few hundred bytes are kept, not the file


def test_shapes_remembered_before_a_new_field_read_back_with_its_default() -> None:
    spec = read_config(CONFIGS["Gemma-2-9B"]).spec
    assert spec.logit_softcap
    older = json.loads(spec_json(spec))
    del older["logit_softcap"]  # a sizing remembered before the field existed
    assert not spec_from_json(json.dumps(older)).logit_softcap


@pytest.mark.parametrize("text", ["[]", '{"id": "x"}', "not json", '{"unknown_field": 1}'])
def test_other_json_is_no_models_shapes(text: str) -> None:
    with pytest.raises(ValueError, match="not a model's shapes"):
        spec_from_json(text)


def test_a_follow_up_keeps_the_configs_model_and_changes_only_what_it_names() -> None:
    spec = read_config(dict(CONFIGS["Llama-3.1-8B"], num_hidden_layers=40)).spec
    first = sizing_for_config(spec, "ctx=4096 bs=2")
    longer = apply_followup(first, "а с ctx 8192?")
    assert longer is not None
    assert longer.model == spec
    assert longer.model_from_config
    assert (longer.query.ctx, longer.query.micro_batch) == (8192, 2)
    lora = apply_followup(longer, "а на lora?")
    assert lora is not None
    assert lora.model == spec
    assert lora.query.method.value == "lora"
    assert lora.query.ctx == 8192
    # A model named in the reply replaces the config's: it is the catalog's.
    other = apply_followup(lora, "а для 70b?")
    assert other is not None
    assert not other.model_from_config
    assert other.model.id != spec.id


def test_a_remembered_config_sizing_reads_back_as_the_same_run() -> None:
    spec = read_config(CONFIGS["Qwen3-30B-A3B"]).spec
    first = sizing_for_config(spec, "lora ctx=8192 gpu=a100")
    again = understand(stated_command(first))
    assert again is not None
    assert command_for(with_config_model(again, spec)) == command_for(first)
