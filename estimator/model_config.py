"""A model from its Hugging Face config.json: the ModelSpec the catalog would hold for it.

    read_config('{"model_type": "llama", "hidden_size": 4096, ...}') -> ConfigModel
    read_config(dict_from_json)                                      -> ConfigModel

The fields are the ones the catalog fills (`estimator.models`), read under the names
transformers' own configuration classes use (LlamaConfig, Qwen2Config, MistralConfig,
GemmaConfig/Gemma2Config/Gemma3TextConfig, Phi3Config, MixtralConfig, Qwen2MoeConfig,
Qwen3MoeConfig, DeepseekV2Config/DeepseekV3Config). The parameter count is computed from
the shapes the way tests/estimator/test_models.py recounts the catalog: GQA attention,
per-expert MLPs plus the router, norms, biases, embeddings once when tied.

Two layouts do not fit the catalog's fields exactly and are folded the way its DeepSeek-V3
row is (see that row's notes): MLA attention is stored as multi-head attention of
`v_head_dim` per head, and a model whose first layers are dense (`first_k_dense_replace`,
`mlp_only_layers`, `decoder_sparse_step`) gets the average number of routed experts per
layer that gives its real parameter count. Every such choice, and every default taken for a
field the file lacks, is listed in `ConfigModel.assumed`.

A config the estimator cannot size raises ConfigError, naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any

from estimator.i18n import Translator
from estimator.parsing.result import QueryError
from estimator.specs import MlpKind, ModelSpec

# The largest config.json anyone pastes: real ones are 1-8 KB (DeepSeek-V3's is ~1.7 KB);
# a quantised model's can list its modules and grow to tens of KB.
MAX_CONFIG_BYTES = 64 * 1024

# model_type values whose layout is known; any other is read as a Llama-style decoder when
# the standard fields are there (and said so).
KNOWN_TYPES = frozenset(
    {
        "llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "gemma",
        "gemma2", "gemma3", "gemma3_text", "phi3", "phi", "deepseek_v2", "deepseek_v3",
        "falcon", "yi", "internlm2", "olmo", "olmo2", "granite", "cohere", "starcoder2",
        "stablelm", "gpt_neox", "glm", "glm4",
    }
)  # fmt: skip
# transformers' default of tie_word_embeddings where the file leaves it out: True for Gemma
# (GemmaConfig, Gemma2Config, Gemma3TextConfig) and Falcon (FalconConfig), False otherwise
# (PretrainedConfig and the Llama/Qwen/Mistral/Phi/DeepSeek configs pass False).
_TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3", "gemma3_text", "falcon"})
# Pre- and post-norms around attention and MLP: four RMSNorms per layer (Gemma2/3
# modeling code: input, post_attention, pre_feedforward, post_feedforward layernorms).
_FOUR_NORMS = frozenset({"gemma2", "gemma3", "gemma3_text"})
# Plain (non-gated) MLP with LayerNorm: Phi-1.5/2 (PhiMLP fc1/fc2), Falcon, GPT-NeoX,
# StarCoder2 (c_fc/c_proj).
_PLAIN_MLP = frozenset({"phi", "falcon", "gpt_neox", "starcoder2"})
_LAYER_NORM = frozenset({"phi", "falcon", "gpt_neox", "starcoder2", "stablelm", "cohere"})
# Q/K/V carry a bias with no config field saying so: Qwen2 and Qwen2-MoE attention build
# q/k/v_proj with bias=True (modeling_qwen2.py, modeling_qwen2_moe.py).
_QKV_BIAS = frozenset({"qwen2", "qwen2_moe"})
# transformers runs these with eager attention (the catalog's hf_attention column): Gemma-2's
# soft-capping is trained eager, as the catalog's Gemma-2 rows say.
_EAGER = frozenset({"gemma2"})

# Alternative names of the standard fields (GPT-2/Falcon-style configs), first match wins.
_NAMES: dict[str, tuple[str, ...]] = {
    "hidden_size": ("hidden_size", "n_embd", "d_model"),
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "num_attention_heads": ("num_attention_heads", "n_head", "num_heads"),
    "vocab_size": ("vocab_size",),
}


class ConfigError(QueryError):
    """A config.json that cannot be sized; `key` is the missing or wrong field, `problem`
    one of "missing" (no such field), "wrong" (a value that cannot be) or "not_config" (not
    a JSON object, or too big to be one), for the bot's translated one-line answer."""

    def __init__(self, reason: str, *, key: str, problem: str = "wrong") -> None:
        super().__init__("bad_config", reason, key=key)
        self.problem = problem


@dataclass(frozen=True)
class Assumption:
    """One thing the file did not say and the reader assumed: a code of
    estimator/locales/*/config.ftl (`config-assumed-<code>`) and its values."""

    code: str
    values: tuple[tuple[str, str], ...] = ()

    def say(self, i18n: Translator) -> str:
        return i18n(f"config-assumed-{self.code}", **dict(self.values))


@dataclass(frozen=True)
class ConfigModel:
    spec: ModelSpec
    model_type: str
    assumed: tuple[Assumption, ...]  # what the file did not say, each worded by `say`


def read_config(config: str | bytes | Mapping[str, Any], name: str = "") -> ConfigModel:
    """The ModelSpec of a config.json (its text, or the parsed object); `name` overrides the
    display name (else `_name_or_path`, else model_type and size)."""
    data = _as_object(config)
    # Multimodal wrappers (Gemma-3, Llama-3.2-Vision, Qwen2-VL ...) keep the language model's
    # shapes under text_config: the part a text fine-tune trains.
    assumed: list[Assumption] = []
    outer_type = str(data.get("model_type") or "")
    if isinstance(data.get("text_config"), Mapping) and "hidden_size" not in data:
        data = {**data["text_config"], "_name_or_path": data.get("_name_or_path", "")}
        assumed.append(Assumption("text-config"))
    model_type = str(data.get("model_type") or outer_type or "")
    if not model_type:
        assumed.append(Assumption("no-type"))
    elif model_type not in KNOWN_TYPES:
        assumed.append(Assumption("unknown-type", (("type", model_type),)))
    reader = _Reader(data, assumed)
    spec = _spec(reader, model_type, name)
    return ConfigModel(spec=spec, model_type=model_type or "?", assumed=tuple(assumed))


def _as_object(config: str | bytes | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(config, Mapping):
        return config
    if len(config) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"config.json is over {MAX_CONFIG_BYTES // 1024} KB: not a model config",
            key="config",
            problem="not_config",
        )
    try:
        data = json.loads(config)
    except (ValueError, UnicodeDecodeError) as error:
        raise ConfigError(
            f"config.json is not valid JSON ({error})", key="config", problem="not_config"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(
            "config.json must be a JSON object {...}", key="config", problem="not_config"
        )
    return data


def looks_like_config(data: object) -> bool:
    """A JSON object with a model's fields: what the chat treats as a pasted config.json."""
    if not isinstance(data, Mapping):
        return False
    inner = data.get("text_config")
    fields = {*data, *(inner if isinstance(inner, Mapping) else ())}
    return "model_type" in fields or {"hidden_size", "num_hidden_layers"} <= fields


class _Reader:
    """Typed access to the config's fields, with errors and assumptions that name them."""

    def __init__(self, data: Mapping[str, Any], assumed: list[Assumption]) -> None:
        self.data = data
        self.assumed = assumed

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def whole(self, key: str, default: int | None = None, *, why: str = "") -> int:
        """`why`: the Assumption code said when `default` stands in for a missing key."""
        names = _NAMES.get(key, (key,))
        raw = next((self.data[n] for n in names if self.data.get(n) is not None), None)
        if raw is None:
            if default is None:
                raise ConfigError(f"config.json has no {key}", key=key, problem="missing")
            if why:
                self.assumed.append(Assumption(why, (("key", key), ("value", str(default)))))
            return default
        if isinstance(raw, bool) or not isinstance(raw, int) or raw <= 0:
            raise ConfigError(f"{key}={raw!r} must be a positive whole number", key=key)
        return raw

    def count(self, key: str) -> int:
        """A count that may be 0 or absent (experts, dense layers)."""
        raw = self.data.get(key)
        if raw is None:
            return 0
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
            raise ConfigError(f"{key}={raw!r} must be a whole number", key=key)
        return raw

    def flag(self, key: str, default: bool) -> bool:
        raw = self.data.get(key)
        if raw is None:
            return default
        if not isinstance(raw, bool):
            raise ConfigError(f"{key}={raw!r} must be true or false", key=key)
        return raw


@dataclass(frozen=True)
class _Layout:
    """What the recount needs beyond the ModelSpec fields."""

    norm: int  # parameters of one norm: h (RMSNorm) or 2h (LayerNorm)
    norms_per_layer: int
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool


def _spec(r: _Reader, model_type: str, name: str) -> ModelSpec:
    hidden = r.whole("hidden_size")
    layers = r.whole("num_hidden_layers")
    heads = r.whole("num_attention_heads")
    vocab = r.whole("vocab_size")
    mla = r.has("kv_lora_rank")
    kv_default = heads
    if model_type == "falcon" and not r.flag("new_decoder_architecture", False):
        kv_default = 1 if r.flag("multi_query", True) else heads
    kv_key = "num_kv_heads" if model_type == "falcon" and r.has("num_kv_heads") else ""
    kv_heads = (
        r.whole(kv_key)
        if kv_key
        else r.whole("num_key_value_heads", kv_default, why="kv-heads-default")
    )
    if heads % kv_heads:
        raise ConfigError(
            f"num_key_value_heads={kv_heads} must divide num_attention_heads={heads}",
            key="num_key_value_heads",
        )
    if mla:
        # MLA: stored as multi-head attention with v_head_dim per head (the catalog's
        # DeepSeek-V3 row); the real, smaller attention weights are in the parameter count.
        head_dim = r.whole("v_head_dim")
        r.assumed.append(Assumption("mla"))
    elif r.has("head_dim"):
        head_dim = r.whole("head_dim")
    else:
        if hidden % heads:
            raise ConfigError(
                f"hidden_size={hidden} is not a multiple of num_attention_heads={heads}: "
                "head_dim is needed",
                key="head_dim",
            )
        head_dim = hidden // heads
    plain = model_type in _PLAIN_MLP
    mlp = MlpKind.PLAIN if plain else MlpKind.GATED
    dense_width = (
        r.whole("ffn_hidden_size", 4 * hidden, why="falcon-ffn-default")
        if model_type == "falcon"
        else r.whole("intermediate_size")
    )
    layout = _layout(r, model_type)

    # MoE: routed experts, experts per token, one expert's width, the always-on experts.
    routed = r.count("num_local_experts") or r.count("num_experts") or r.count("n_routed_experts")
    active, expert_width, shared_width, moe_layers = 1, dense_width, 0, 0
    extra_router = 0  # per MoE layer beyond the h x experts router (gates, biases)
    if routed > 1:
        active = r.whole("num_experts_per_tok")
        if active > routed:
            raise ConfigError(
                f"num_experts_per_tok={active} exceeds the {routed} experts",
                key="num_experts_per_tok",
            )
        if r.has("moe_intermediate_size"):
            expert_width = r.whole("moe_intermediate_size")
        if r.has("shared_expert_intermediate_size"):  # Qwen2-MoE: one shared expert
            shared_width = r.count("shared_expert_intermediate_size")
            extra_router = hidden  # shared_expert_gate: Linear(h, 1)
        elif r.count("n_shared_experts"):  # DeepSeek: n shared experts of the expert width
            shared_width = r.count("n_shared_experts") * expert_width
        if model_type == "deepseek_v3":
            extra_router = routed  # e_score_correction_bias of the noaux_tc router
        moe_layers = _moe_layer_count(r, layers)
    else:
        routed = 1

    matrices = 2 if plain else 3
    attention = _attention_params(r, hidden, heads, kv_heads, head_dim, layout, mla)
    norms = layout.norms_per_layer * layout.norm
    dense_mlp = matrices * hidden * dense_width + ((dense_width + hidden) if layout.mlp_bias else 0)
    expert = matrices * hidden * expert_width + ((expert_width + hidden) if layout.mlp_bias else 0)
    moe_mlp = routed * expert + hidden * routed + 3 * hidden * shared_width + extra_router
    tied = r.flag("tie_word_embeddings", model_type in _TIED_BY_DEFAULT)
    embeddings = vocab * hidden * (1 if tied else 2)
    dense_layers = layers - moe_layers if routed > 1 else layers
    total = (
        layers * (attention + norms)
        + dense_layers * dense_mlp
        + moe_layers * moe_mlp
        + embeddings
        + layout.norm
    )

    experts = routed
    if routed > 1 and (dense_layers or mla):
        # The catalog holds one expert count for every layer: the average that gives the
        # real parameter count on the stored (folded) attention, as its DeepSeek-V3 row does.
        stored_attention = hidden * (2 * heads * head_dim + 2 * kv_heads * head_dim)
        per_layer_rest = stored_attention + norms + 3 * hidden * shared_width
        budget = total - embeddings - layout.norm - layers * per_layer_rest
        experts = max(active, round(budget / (layers * (3 * hidden * expert_width + hidden))))
        r.assumed.append(
            Assumption(
                "dense-moe",
                (("dense", str(dense_layers)), ("moe", str(moe_layers)), ("experts", str(experts))),
            )
        )
    if routed > 1:
        dense_width = expert_width

    label = name or _display_name(r, model_type, total)
    return ModelSpec(
        id=label,
        family=model_type or "config",
        aliases=(),
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=dense_width,
        vocab=vocab,
        tied_embeddings=tied,
        total_params=total,
        mlp=mlp,
        experts=experts,
        active_experts=active,
        shared_expert_intermediate=shared_width,
        source="config.json",
        native_ctx=r.count("max_position_embeddings"),
        hf_eager=model_type in _EAGER,
        logit_softcap=bool(r.data.get("final_logit_softcapping")),
    )


def _layout(r: _Reader, model_type: str) -> _Layout:
    layer_norm = model_type in _LAYER_NORM
    hidden = r.whole("hidden_size")
    if model_type in _FOUR_NORMS:
        norms = 4
    elif model_type == "phi" or (
        model_type == "falcon" and not r.flag("new_decoder_architecture", False)
    ):
        norms = 1  # parallel attention and MLP share one input LayerNorm (PhiDecoderLayer)
    else:
        norms = 2
    # Llama/Mistral/DeepSeek: attention_bias puts a bias on q, k, v and o; Phi-1.5/2 and
    # Falcon's `bias` on every linear.
    all_bias = model_type == "phi" or (model_type == "falcon" and r.flag("bias", False))
    attention_bias = r.flag("attention_bias", False)
    return _Layout(
        norm=2 * hidden if layer_norm else hidden,
        norms_per_layer=norms,
        qkv_bias=all_bias or attention_bias or model_type in _QKV_BIAS or r.flag("qkv_bias", False),
        o_bias=all_bias or attention_bias,
        mlp_bias=all_bias or r.flag("mlp_bias", False),
    )


def _attention_params(
    r: _Reader, h: int, heads: int, kv_heads: int, head_dim: int, layout: _Layout, mla: bool
) -> int:
    if mla:
        # DeepSeek-V2/V3 multi-head latent attention (modeling_deepseek.py): q through a
        # q_lora_rank bottleneck (or a full q_proj when it is null), k/v through kv_lora_rank
        # plus a shared rotary key, each bottleneck with its RMSNorm.
        nope, rope = r.whole("qk_nope_head_dim"), r.whole("qk_rope_head_dim")
        v_dim, kv_rank = r.whole("v_head_dim"), r.whole("kv_lora_rank")
        q_rank = r.count("q_lora_rank")
        q_width = heads * (nope + rope)
        q = h * q_rank + q_rank + q_rank * q_width if q_rank else h * q_width
        kv = h * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v_dim)
        return q + kv + heads * v_dim * h
    q, kv = heads * head_dim, kv_heads * head_dim
    params = 2 * h * q + 2 * h * kv
    if layout.qkv_bias:
        params += q + 2 * kv
    if layout.o_bias:
        params += h
    return params


def _moe_layer_count(r: _Reader, layers: int) -> int:
    """How many layers have routed experts.

    DeepSeek: layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0.
    Qwen-MoE: when i is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0.
    Mixtral: every layer.
    """
    first_dense = r.count("first_k_dense_replace")
    freq = r.count("moe_layer_freq") or 1
    step = r.count("decoder_sparse_step") or 1
    only_mlp = r.data.get("mlp_only_layers") or []
    if not isinstance(only_mlp, list) or not all(isinstance(i, int) for i in only_mlp):
        raise ConfigError("mlp_only_layers must be a list of layer numbers", key="mlp_only_layers")
    return sum(
        1
        for i in range(layers)
        if i >= first_dense and i % freq == 0 and (i + 1) % step == 0 and i not in only_mlp
    )


def _display_name(r: _Reader, model_type: str, total: int) -> str:
    path = str(r.data.get("_name_or_path") or "").rstrip("/")
    base = path.rsplit("/", 1)[-1]
    if base and not base.startswith("."):
        return base[:48]
    kind = model_type or "model"
    return f"{kind}-{total / 1e9:.1f}B (config.json)"


def spec_json(spec: ModelSpec) -> str:
    """The shapes read from a config, as compact JSON: what a remembered sizing keeps of the
    file (a few hundred bytes, not the file)."""
    return json.dumps(asdict(spec), separators=(",", ":"), sort_keys=True)


def spec_from_json(text: str) -> ModelSpec:
    """`spec_json` read back. ValueError for text it did not write."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    names = {f.name for f in fields(ModelSpec)}
    # A field added since the sizing was remembered takes its default (logit_softcap).
    required = {f.name for f in fields(ModelSpec) if f.default is MISSING}
    if not isinstance(data, dict) or not required <= set(data) <= names:
        raise ValueError("not a model's shapes")
    data["aliases"] = tuple(data["aliases"])
    data["mlp"] = MlpKind(data["mlp"])
    return ModelSpec(**data)
