"""What the user stated of a sizing (`Given`, as `estimator.followup.stated_given` fills it)
as a short versioned ASCII text, and back: what a button, a shared link and the chat's memory
carry between messages, so that reading it calls `finish` directly and never the grammar.

    stated_text(understand("13b lora ctx=4096 ds=20k tok=512"))  -> "~1s13,alora,c4096,d20k,T512"
    sizing("~1s13,alora,c4096,d20k,T512")  -> that sizing again, by `finish`

The text is VERSION, then `<key><value>` items joined by ",": one letter names the field
(_FIELDS), the value follows it; fields not stated are left out. A model is its catalogue id,
a GPU its catalogue id or family (spaces as "_"), an enum its value, a whole number a multiple
of 1000 as "20k". A text of another version, an unknown key, a value out of the grammar's
range or a name the catalogue lacks is a StatedCodecError: anyone can send any callback data.
A text that does not start with "~" is from before this format (a /fit command): its reader
keeps a legacy path through the grammar (`is_typed`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from estimator import gpus
from estimator.config_query import with_config_model
from estimator.followup import stated_given, stated_with_method
from estimator.models import get_model
from estimator.parse import ParsedQuery, QueryError
from estimator.parsing.build import LIMITS, Given, check_epochs, check_int, check_size, finish
from estimator.parsing.command import BILLINGS
from estimator.query import (
    Checkpointing,
    Loss,
    Method,
    Offload,
    Optimizer,
    Packing,
    Precision,
    Sharding,
    Stack,
    Targets,
)
from estimator.specs import ModelSpec

VERSION = "~1"
TYPED_MARK = "~"  # what every version starts with, and no /fit command does
_SOLVABLE = ("ctx", "bs", "rank")
_INT = re.compile(r"[1-9][0-9]{0,15}k?|0")
_FLOAT = re.compile(r"[0-9]{1,16}(?:\.[0-9]{1,16}|k)?")


class StatedCodecError(ValueError):
    """A text that is not a stated sizing of a version this code reads."""


def _int(limit: str) -> Callable[[str], int]:
    def read(raw: str) -> int:
        if not _INT.fullmatch(raw):
            raise StatedCodecError(f"not a whole number: {raw!r}")
        value = int(raw[:-1]) * 1000 if raw.endswith("k") else int(raw)
        return check_int(limit, value)

    return read


def _float(limit: str) -> Callable[[str], float]:
    def read(raw: str) -> float:
        if not _FLOAT.fullmatch(raw):
            raise StatedCodecError(f"not a number: {raw!r}")
        value = float(raw[:-1]) * 1000 if raw.endswith("k") else float(raw)
        if limit == "size":
            return check_size(value)
        if limit == "epochs":
            return check_epochs(value)
        low, high = LIMITS[limit]
        if not low <= value <= high:
            raise StatedCodecError(f"{limit}={raw} is outside {low:g}..{high:g}")
        return value

    return read


def _enum(kind: type[StrEnum]) -> Callable[[str], Any]:
    def read(raw: str) -> Any:
        try:
            return kind(raw)
        except ValueError:
            raise StatedCodecError(f"not a {kind.__name__}: {raw!r}") from None

    return read


def _one_of(values: tuple[str, ...]) -> Callable[[str], str]:
    def read(raw: str) -> str:
        if raw not in values:
            raise StatedCodecError(f"not one of {values}: {raw!r}")
        return raw

    return read


def _model(raw: str) -> ModelSpec:
    try:
        return get_model(raw)
    except KeyError:
        raise StatedCodecError(f"no model {raw!r} in the catalogue") from None


def read_gpu(raw: str) -> str:
    """A catalogue GPU id written with "_" for spaces (a watch's text writes it so too)."""
    name = raw.replace("_", " ")
    try:
        return gpus.get(name).id
    except KeyError:
        raise StatedCodecError(f"no GPU {name!r} in the catalogue") from None


def read_family(raw: str) -> str:
    """A catalogue GPU family written with "_" for spaces."""
    name = raw.replace("_", " ")
    members = gpus.family_members(name)
    if not members or members[0].family != name:
        raise StatedCodecError(f"no GPU family {name!r} in the catalogue")
    return name


def _methods(raw: str) -> list[Method]:
    methods = [_enum(Method)(word) for word in raw.split("+")]
    if len(set(methods)) != len(methods):
        raise StatedCodecError(f"a method ruled out twice: {raw!r}")
    return methods


def _flag(raw: str) -> bool:
    if raw:
        raise StatedCodecError(f"a flag with a value: {raw!r}")
    return True


def _write(value: object) -> str:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, bool):
        return ""  # a flag: its key alone
    if isinstance(value, int | float):
        if not float(value).is_integer():
            return repr(float(value))
        whole = int(value)
        return f"{whole // 1000}k" if whole >= 1000 and whole % 1000 == 0 else str(whole)
    if isinstance(value, ModelSpec):
        return value.id
    if isinstance(value, list):
        return "+".join(_write(item) for item in value)
    return str(value).replace(" ", "_")


# Key -> (Given field, reader). Keys never change meaning within a version: a new field takes
# a free letter, a changed meaning takes a new VERSION.
_FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "m": ("model", _model),
    "s": ("size_b", _float("size")),
    "a": ("method", _enum(Method)),
    "x": ("ruled_out", _methods),
    "c": ("ctx", _int("ctx")),
    "b": ("micro_batch", _int("bs")),
    "r": ("lora_rank", _int("rank")),
    "t": ("targets", _enum(Targets)),
    "o": ("optimizer", _enum(Optimizer)),
    "p": ("precision", _enum(Precision)),
    "k": ("grad_checkpointing", _enum(Checkpointing)),
    "n": ("gpus", _int("gpus")),
    "h": ("shard", _enum(Sharding)),
    "K": ("stack", _enum(Stack)),
    "f": ("offload", _enum(Offload)),
    "l": ("loss", _enum(Loss)),
    "P": ("packing", _enum(Packing)),
    "A": ("grad_accum", _int("ga")),
    "e": ("epochs", _float("epochs")),
    "d": ("dataset_examples", _int("dataset")),
    "D": ("dataset_tokens", _int("dataset_tokens")),
    "T": ("tokens_per_example", _int("tokens")),
    "y": ("tokens_assumed", _int("tokens")),
    "L": ("longest_tokens", _int("tokens")),
    "S": ("shortest_tokens", _int("tokens")),
    "i": ("steps", _int("steps")),
    "u": ("budget_rub", _float("budget")),
    "v": ("min_vram_gib", _float("vram")),
    "H": ("hours_per_month", _float("hpm")),
    "R": ("max_rub_per_hour", _float("rate")),
    "G": ("max_rub_per_gpu_hour", _float("rate")),
    "M": ("max_rub_per_month", _float("mrate")),
    "B": ("billing", _one_of(BILLINGS)),
    "w": ("time_budget_hours", _float("hours")),
    "g": ("card_gb", _float("cardgb")),
    "q": ("target_gpu", read_gpu),
    "F": ("target_family", read_family),
    "z": ("russia_only", _flag),
    "C": ("cheapest", _flag),
    "X": ("solve", _one_of(_SOLVABLE)),
}


def encode(given: Given) -> str:
    """The text of `given`'s stated fields (the ones _FIELDS names; the words that said them,
    `said`, stay behind: no answer shows them). A model must be the catalogue's: a config's
    model is kept aside by whoever stores the text."""
    if given.model is not None and _model(given.model.id) != given.model:
        raise StatedCodecError(f"model {given.model.id!r} is not the catalogue's")
    items = [VERSION]
    for key, (name, _) in _FIELDS.items():
        value = getattr(given, name)
        if value is None or value is False or value == []:
            continue
        items.append(key + _write(value))
    return items[0] + ",".join(items[1:])


def stated_text(parsed: ParsedQuery, method: Method | None = None) -> str:
    """The text of what the user stated of `parsed` (with `method` named instead, when given).
    A config's model is left out: whoever stores the text keeps the model aside."""
    given = stated_given(parsed) if method is None else stated_with_method(parsed, method)
    if parsed.model_from_config:
        given.model = None
    return encode(given)


def is_typed(text: str) -> bool:
    """Whether `text` is this format (of any version) rather than an older /fit command."""
    return text.startswith(TYPED_MARK)


def decode(text: str) -> Given:
    """The Given `text` states; StatedCodecError for anything but a valid text of VERSION."""
    if not text.startswith(VERSION):
        raise StatedCodecError(f"not a stated sizing of version {VERSION}: {text[:8]!r}")
    body = text[len(VERSION) :]
    given = Given()
    seen: set[str] = set()
    for item in body.split(",") if body else []:
        key, raw = item[:1], item[1:]
        if key not in _FIELDS or key in seen:
            raise StatedCodecError(f"an unknown or repeated key in {item!r}")
        seen.add(key)
        name, read = _FIELDS[key]
        try:
            setattr(given, name, read(raw))
        except QueryError as error:
            raise StatedCodecError(error.reason) from None
    return given


def sizing(text: str, config_model: ModelSpec | None = None) -> ParsedQuery:
    """The sizing `text` states, completed by `finish`; with `config_model`, on the model of
    the user's config.json (kept aside, since no text names it). StatedCodecError for a text
    that does not decode or states no run `finish` accepts (no model, rank=max on full)."""
    given = decode(text)
    if config_model is not None:
        given.model, given.size_b = config_model, None
    try:
        parsed = finish(given)
    except QueryError as error:
        raise StatedCodecError(error.reason) from None
    return with_config_model(parsed, config_model) if config_model is not None else parsed
