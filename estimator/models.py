"""The model catalog (`data/models.csv`): architectures, name matching, bare sizes.

Every row comes from the model's own config.json figures (the `source` column says whose).
Besides the ModelSpec fields a row carries what the parameter recount needs (`norm`,
`norms_per_layer`, `bias`: see tests/estimator/test_models.py) and `released` (YYYY-MM), which
breaks ties towards the newest model when a name is loose ("llama 70b" -> Llama-3.3-70B).

Names are matched by `estimator.parsing.names`; bare sizes ("13b") are not names:
`model_for_size` maps them to a representative row (`REPRESENTATIVES`).
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
    "norms_per_layer", "bias", "source", "notes",
)  # fmt: skip
_INT_COLUMNS = (
    "hidden", "layers", "heads", "kv_heads", "head_dim", "intermediate", "vocab",
    "total_params", "experts", "active_experts", "shared_expert_intermediate", "norms_per_layer",
)  # fmt: skip
_BOOLS = {"true": True, "false": False}

# A bare size maps to one well-known dense model of that size. Chosen for being what people
# fine-tune at that size today, and, where two are equally common, the larger footprint (a
# bigger vocabulary means more logits memory), so that the estimate errs towards "needs more".
REPRESENTATIVES: tuple[tuple[float, str], ...] = (
    (0.5, "Qwen2.5-0.5B"),
    (1.0, "Llama-3.2-1B"),
    (1.5, "Qwen2.5-1.5B"),
    (2.0, "Gemma-2-2B"),
    (3.0, "Llama-3.2-3B"),
    (4.0, "Qwen3-4B"),
    (7.0, "Qwen2.5-7B"),  # the common 7B of 2024-25; Llama-2-7B is smaller (32k vocab)
    (8.0, "Llama-3.1-8B"),
    (9.0, "Gemma-2-9B"),
    (12.0, "Mistral-Nemo-12B"),
    (13.0, "Llama-2-13B"),  # the only widely used 13B
    (14.0, "Qwen2.5-14B"),
    (22.0, "Mistral-Small-22B"),
    (24.0, "Mistral-Small-24B"),
    (27.0, "Gemma-2-27B"),
    (32.0, "Qwen2.5-32B"),
    (34.0, "Yi-34B"),  # CodeLlama-34B is the other one; Yi is a little larger
    (65.0, "LLaMA-1-65B"),
    (70.0, "Llama-3.3-70B"),
    (72.0, "Qwen2.5-72B"),
    (405.0, "Llama-3.1-405B"),
)


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
    for col in ("tied_embeddings", "encoder_decoder"):
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
    """The representative dense model for a bare size in billions (nearest on a log scale).

    13 -> Llama-2-13B, 8 -> Llama-3.1-8B, 7 -> Qwen2.5-7B; 10 -> Gemma-2-9B (nearest). The
    caller must tell the user which model stood in for the size.
    """
    if not math.isfinite(params_b) or params_b <= 0:
        raise ValueError(f"model size must be a positive number of billions, got {params_b}")
    # Ties go to the larger model: overestimating memory is the safer error.
    _, model_id = min(REPRESENTATIVES, key=lambda rep: (abs(math.log(rep[0] / params_b)), -rep[0]))
    return get_model(model_id)
