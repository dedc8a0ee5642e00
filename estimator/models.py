"""The model catalog (`data/models.csv`): architectures, name matching, bare sizes.

Every row comes from the model's own config.json figures (the `source` column says whose).
Besides the ModelSpec fields a row carries what the parameter recount needs (`norm`,
`norms_per_layer`, `bias`: see tests/estimator/test_models.py) and `released` (YYYY-MM), which
breaks ties towards the newest model when a name is loose ("llama 70b" -> Llama-3.3-70B).

Names are matched by `estimator.parsing.names`; bare sizes ("13b") are not names:
`size_reading` picks the model people fine-tune at that size (`SIZE_CHOICES`: «14b» is
Qwen2.5-14B), else a Llama-like architecture of that size (`LLAMA_LADDER`), and says which.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import re
from dataclasses import dataclass
from importlib import resources

from estimator.parsing.names import NameClashError, NameIndex
from estimator.specs import MlpKind, ModelSpec

CSV_COLUMNS: tuple[str, ...] = (
    "id", "family", "aliases", "hidden", "layers", "heads", "kv_heads", "head_dim",
    "intermediate", "vocab", "tied_embeddings", "total_params", "mlp", "experts",
    "active_experts", "shared_expert_intermediate", "encoder_decoder", "released", "norm",
    "norms_per_layer", "bias", "source", "notes", "native_ctx", "hf_attention", "logit_softcap",
)  # fmt: skip
_INT_COLUMNS = (
    "hidden", "layers", "heads", "kv_heads", "head_dim", "intermediate", "vocab",
    "total_params", "experts", "active_experts", "shared_expert_intermediate", "norms_per_layer",
    "native_ctx",
)  # fmt: skip
_BOOLS = {"true": True, "false": False}

# A bare size is sized on a Llama-like architecture of that size (the question did not name a
# model, and the Llama line is the typical shape: GQA, SwiGLU, a 32k-128k vocabulary). These
# are the Llama family's own sizes; a size within LADDER_TOLERANCE of one uses that model's
# shapes, any other size gets shapes scaled between its two neighbours (`llama_like`).
LLAMA_LADDER: tuple[str, ...] = (
    "Llama-3.2-1B",
    "Llama-3.2-3B",
    "Llama-2-7B",
    "Llama-3.1-8B",
    "Llama-2-13B",
    "CodeLlama-34B",
    "Llama-3.3-70B",
    "Llama-3.1-405B",
)
LADDER_TOLERANCE = 0.10

# A bare size names no model: these are the models people fine-tune at each size they say,
# the first the one the answer sizes (and says it did), the others the readings the bot asks
# between when their verdict differs (estimator.readings). Where a Llama has that size it
# comes first, as the estimator always sized it; elsewhere the line people tune at that size.
# Source: Unsloth's free-notebook tables on its Hugging Face model cards (huggingface.co/
# unsloth, e.g. Mistral-Small-24B-Instruct-2501 and Qwen2-7B READMEs, 2024-2025): Llama-3.1
# (8B), Llama-3.2 (1B, 3B), Qwen2.5 (all sizes: 0.5B-72B), Mistral (7B), Mistral Nemo (12B),
# Gemma 2 (2B, 9B, 27B), Phi-3 medium and Phi-4 (14B), CodeLlama (34B), Mistral Small (22B,
# 24B); Qwen3 and Gemma 3 at their own sizes. A size said here is matched exactly ("14b");
# any other goes to the Llama ladder below.
SIZE_CHOICES: dict[float, tuple[str, ...]] = {
    0.5: ("Qwen2.5-0.5B",),
    0.6: ("Qwen3-0.6B",),
    1: ("Llama-3.2-1B", "Gemma-3-1B"),
    1.5: ("Qwen2.5-1.5B",),
    1.7: ("Qwen3-1.7B",),
    2: ("Gemma-2-2B",),
    3: ("Llama-3.2-3B", "Qwen2.5-3B"),
    4: ("Qwen3-4B", "Gemma-3-4B"),
    7: ("Llama-2-7B", "Qwen2.5-7B", "Mistral-7B-v0.3"),
    8: ("Llama-3.1-8B", "Qwen3-8B"),
    9: ("Gemma-2-9B",),
    12: ("Mistral-Nemo-12B", "Gemma-3-12B"),
    13: ("Llama-2-13B",),
    14: ("Qwen2.5-14B", "Qwen3-14B", "Phi-4"),
    22: ("Mistral-Small-22B",),
    24: ("Mistral-Small-24B",),
    27: ("Gemma-3-27B", "Gemma-2-27B"),
    32: ("Qwen2.5-32B", "Qwen3-32B"),
    34: ("CodeLlama-34B", "Yi-34B"),
    70: ("Llama-3.3-70B",),
    72: ("Qwen2.5-72B",),
    405: ("Llama-3.1-405B",),
}
# A synthetic width is a multiple of this (GPU-friendly shapes; Llama widths are too).
WIDTH_STEP = 64


class CatalogError(ValueError):
    """A row of models.csv is malformed; the message names the line and the field."""


@dataclass(frozen=True)
class _Catalog:
    specs: tuple[ModelSpec, ...]
    names: NameIndex


def parse_row(line: int, row: dict[str, str]) -> tuple[ModelSpec, str]:
    """One CSV row (file line `line`) to its ModelSpec and release month, validated."""
    where = f"models.csv line {line} ({row.get('id') or '?'})"
    missing = [c for c in CSV_COLUMNS if row.get(c) is None]
    if missing:
        raise CatalogError(f"{where}: missing columns {', '.join(missing)}")
    if not row["id"].strip() or not row["family"].strip():
        raise CatalogError(f"{where}: id and family must not be empty")
    ints: dict[str, int] = {}
    for col in _INT_COLUMNS:
        try:
            ints[col] = int(row[col])
        except ValueError:
            raise CatalogError(f"{where}: {col}={row[col]!r} is not an integer") from None
        if ints[col] < 0 or (ints[col] == 0 and col != "shared_expert_intermediate"):
            raise CatalogError(f"{where}: {col}={ints[col]} must be positive")
    bools: dict[str, bool] = {}
    for col in ("tied_embeddings", "encoder_decoder", "logit_softcap"):
        if row[col] not in _BOOLS:
            raise CatalogError(f"{where}: {col}={row[col]!r} must be true or false")
        bools[col] = _BOOLS[row[col]]
    try:
        mlp = MlpKind(row["mlp"])
    except ValueError:
        raise CatalogError(f"{where}: mlp={row['mlp']!r} must be gated or plain") from None
    if ints["heads"] % ints["kv_heads"]:
        raise CatalogError(
            f"{where}: kv_heads {ints['kv_heads']} must divide heads {ints['heads']}"
        )
    if ints["active_experts"] > ints["experts"]:
        raise CatalogError(f"{where}: active_experts exceeds experts")
    if not re.fullmatch(r"\d{4}-\d{2}", row["released"]):
        raise CatalogError(f"{where}: released={row['released']!r} must be YYYY-MM")
    if row["norm"] not in ("rms", "layer") or row["bias"] not in ("none", "qkv", "all"):
        raise CatalogError(f"{where}: norm must be rms|layer and bias none|qkv|all")
    if row["hf_attention"] not in ("sdpa", "eager"):
        raise CatalogError(f"{where}: hf_attention must be sdpa or eager")
    aliases = tuple(a.strip() for a in row["aliases"].split("|") if a.strip())
    spec = ModelSpec(
        id=row["id"].strip(),
        family=row["family"].strip(),
        aliases=aliases,
        hidden=ints["hidden"],
        layers=ints["layers"],
        heads=ints["heads"],
        kv_heads=ints["kv_heads"],
        head_dim=ints["head_dim"],
        intermediate=ints["intermediate"],
        vocab=ints["vocab"],
        tied_embeddings=bools["tied_embeddings"],
        total_params=ints["total_params"],
        mlp=mlp,
        experts=ints["experts"],
        active_experts=ints["active_experts"],
        shared_expert_intermediate=ints["shared_expert_intermediate"],
        encoder_decoder=bools["encoder_decoder"],
        source=row["source"],
        native_ctx=ints["native_ctx"],
        hf_eager=row["hf_attention"] == "eager",
        logit_softcap=bools["logit_softcap"],
    )
    return spec, row["released"]


def read_rows() -> list[dict[str, str]]:
    """The raw CSV rows (the tests recount parameters from the extra columns)."""
    text = resources.files("estimator").joinpath("data/models.csv").read_text(encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text))
    if tuple(reader.fieldnames or ()) != CSV_COLUMNS:
        raise CatalogError(f"models.csv: header must be {','.join(CSV_COLUMNS)}")
    return list(reader)


@functools.cache
def _catalog() -> _Catalog:
    specs: list[ModelSpec] = []
    released: list[str] = []
    for line, row in enumerate(read_rows(), start=2):
        spec, date = parse_row(line, row)
        if any(s.id == spec.id for s in specs):
            raise CatalogError(f"models.csv line {line}: duplicate id {spec.id}")
        specs.append(spec)
        released.append(date)
    try:
        names = NameIndex(((s.id, *s.aliases), d) for s, d in zip(specs, released, strict=True))
    except NameClashError as clash:
        raise CatalogError(
            f"models.csv line {clash.row + 2} ({specs[clash.row].id}): {clash.name!r} reads "
            f"the same as a name of {specs[clash.other].id}"
        ) from None
    return _Catalog(tuple(specs), names)


def load_models() -> tuple[ModelSpec, ...]:
    """All catalog rows, validated; raises CatalogError naming the bad line."""
    return _catalog().specs


def get_model(model_id: str) -> ModelSpec:
    """The row with this exact id (KeyError if none)."""
    for spec in load_models():
        if spec.id == model_id:
            return spec
    raise KeyError(model_id)


# --- matching ---------------------------------------------------------------------------------


def match_model(text: str) -> ModelSpec | None:
    """The catalog row a model phrase names ("llama 3 8b"), or None when it names none or
    several ("mixtral"). See `estimator.parsing.names` for the rules."""
    catalog = _catalog()
    row = catalog.names.match(text)
    return None if row is None else catalog.specs[row]


def find_model_in_text(text: str) -> tuple[ModelSpec, int, int] | None:
    """The first model named in free text, with its span: «хватит ли 4090 для llama 3 8b с
    лорой?» -> (Llama-3.1-8B, 19, 29)."""
    catalog = _catalog()
    found = catalog.names.find(text)
    if found is None:
        return None
    row, start, end = found
    return catalog.specs[row], start, end


# --- bare sizes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SizeReading:
    """What a bare size was read as, for the answer to say so («модель 14B не названа —
    считаю Qwen2.5-14B») and for the bot to ask when another reading changes the verdict."""

    size_b: float  # as asked ("14b" -> 14.0)
    model: ModelSpec
    # A catalog model (by SIZE_CHOICES or the Llama within 10 %); False: shapes scaled
    # between the neighbouring Llama sizes (`llama_like`), a model nobody published.
    catalog: bool
    others: tuple[str, ...] = ()  # the other models people tune at this size, by id


def size_reading(params_b: float) -> SizeReading:
    """The model a bare size ("14b") is sized on, and the other readings of it.

    A size people tune a named model at is that model (`SIZE_CHOICES`: 14 -> Qwen2.5-14B,
    7 -> Llama-2-7B with Qwen2.5-7B and Mistral-7B as the other readings). Any other size
    within 10 % of a Llama model's is that model's architecture (6.7 -> Llama-2-7B); beyond,
    shapes scaled from the neighbouring Llama sizes so that the parameter count is the one
    asked (100 -> a 100B Llama-like). Never another size: the size is what the user asked.
    """
    if not math.isfinite(params_b) or params_b <= 0:
        raise ValueError(f"model size must be a positive number of billions, got {params_b}")
    said = next((size for size in SIZE_CHOICES if math.isclose(size, params_b)), None)
    if said is not None:
        first, *others = SIZE_CHOICES[said]
        return SizeReading(params_b, get_model(first), catalog=True, others=tuple(others))
    ladder = [get_model(model_id) for model_id in LLAMA_LADDER]
    nearest = min(ladder, key=lambda m: abs(math.log(m.params_b / params_b)))
    if abs(nearest.params_b / params_b - 1) <= LADDER_TOLERANCE:
        return SizeReading(params_b, nearest, catalog=True)
    return SizeReading(params_b, llama_like(params_b, ladder), catalog=False)


def model_for_size(params_b: float) -> ModelSpec:
    """The model a bare size ("13b") is sized on: `size_reading(params_b).model`."""
    return size_reading(params_b).model


def llama_like(params_b: float, ladder: list[ModelSpec]) -> ModelSpec:
    """Shapes for a size between (or beyond) the Llama sizes: depth interpolated on a log
    scale between the neighbours, the width solved from the parameter count, the rest (head
    size, KV groups, MLP ratio, vocabulary) from the nearer neighbour."""
    below = [m for m in ladder if m.params_b <= params_b] or ladder[:1]
    above = [m for m in ladder if m.params_b > params_b] or ladder[-1:]
    low, high = below[-1], above[0]
    if low is high:
        depth = float(low.layers) * (params_b / low.params_b) ** (1 / 3)
    else:
        share = math.log(params_b / low.params_b) / math.log(high.params_b / low.params_b)
        depth = low.layers + share * (high.layers - low.layers)
    template = min((low, high), key=lambda m: abs(math.log(m.params_b / params_b)))
    layers = max(2, round(depth))
    mlp_ratio = template.intermediate / template.hidden
    kv_share = template.kv_heads / template.heads
    vocab = template.vocab
    # params = layers * h² * (2 + 2*kv_share + 3*mlp_ratio) + 2 * vocab * h, solved for h.
    a = layers * (2 + 2 * kv_share + 3 * mlp_ratio)
    b = 2.0 * vocab
    width = (-b + math.sqrt(b * b + 4 * a * params_b * 1e9)) / (2 * a)
    head_dim = template.head_dim

    def shapes(hidden: int) -> tuple[int, int, int, int]:
        heads = max(1, round(hidden / head_dim))
        divisors = [d for d in range(1, heads + 1) if heads % d == 0]
        kv_heads = min(divisors, key=lambda d: abs(d - heads * kv_share))
        intermediate = max(WIDTH_STEP, round(hidden * mlp_ratio / WIDTH_STEP) * WIDTH_STEP)
        q, kv = heads * head_dim, kv_heads * head_dim
        per_layer = hidden * (2 * q + 2 * kv) + 3 * hidden * intermediate + 2 * hidden
        return heads, kv_heads, intermediate, layers * per_layer + 2 * vocab * hidden + hidden

    # The GPU-friendly width whose parameter count comes closest to the size asked.
    widths = range(WIDTH_STEP, max(2, round(width * 1.3 / WIDTH_STEP) + 2) * WIDTH_STEP, WIDTH_STEP)
    hidden = min(widths, key=lambda h: abs(shapes(h)[3] - params_b * 1e9))
    heads, kv_heads, intermediate, total = shapes(hidden)
    return ModelSpec(
        id=f"Llama-like-{params_b:g}B",
        family="llama",
        aliases=(),
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=intermediate,
        vocab=vocab,
        tied_embeddings=False,
        total_params=total,
        native_ctx=template.native_ctx,
        source=f"scaled between {low.id} and {high.id}",
    )


def name_words() -> tuple[frozenset[str], frozenset[str]]:
    """The catalog's model lines ("llama", "qwen", "deepseek") and every word of its names:
    what a name of a model the catalog lacks is recognised by (`estimator.unknown_model`)."""
    names = _catalog().names
    return names.lines, names.vocabulary


def could_name(text: str) -> int:
    """How many catalog rows a model phrase could name when it names none for sure: "qwen 2"
    could be Qwen2-7B or Qwen2-72B; a model the catalog lacks could be none."""
    return _catalog().names.candidates(text)
