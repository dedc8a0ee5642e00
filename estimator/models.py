"""The model catalog (`data/models.csv`): architectures, name matching, bare sizes.

Every row comes from the model's own config.json figures (the `source` column says whose).
Besides the ModelSpec fields a row carries what the parameter recount needs (`norm`,
`norms_per_layer`, `bias`: see tests/estimator/test_models.py) and `released` (YYYY-MM), which
breaks ties towards the newest model when a name is loose ("llama 70b" -> Llama-3.3-70B).

Names are matched by `estimator.parsing.names`; bare sizes ("13b") are not names:
`model_for_size` sizes them on a Llama-like architecture of that size (`LLAMA_LADDER`).
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


def model_for_size(params_b: float) -> ModelSpec:
    """A Llama-like architecture of `params_b` billion parameters, for a bare size ("13b").

    Within 10 % of a Llama model's size it is that model's architecture (7 -> Llama-2-7B,
    13 -> Llama-2-13B, 70 -> Llama-3.3-70B); otherwise shapes scaled from the neighbouring
    Llama sizes so that the parameter count is the one asked (100 -> a 100B Llama-like).
    Never another family's model: the size is what the user asked about.
    """
    if not math.isfinite(params_b) or params_b <= 0:
        raise ValueError(f"model size must be a positive number of billions, got {params_b}")
    ladder = [get_model(model_id) for model_id in LLAMA_LADDER]
    nearest = min(ladder, key=lambda m: abs(math.log(m.params_b / params_b)))
    if abs(nearest.params_b / params_b - 1) <= LADDER_TOLERANCE:
        return nearest
    return llama_like(params_b, ladder)


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
