"""The GPU catalog (estimator/data/gpus.csv) and the mapping from any spelling to it.

Providers and users name the same card many ways: "NVIDIA A100-SXM4-80GB", "teslaa100",
"a100-80", "4090 24гб", "а100" typed on a Russian keyboard. Everything here goes through one
normalisation (`normalize`) and one parser, so a spelling means the same to `resolve`,
`candidates`, `family_of` and `find_in_text`.

The rule is never to guess:

* `candidates(name)` lists every catalog id consistent with the name. A name is consistent
  with a row when its model words are one of the row's model keys (taken from the row's id
  and aliases), its memory size (if it states one) is the row's, and its form factor (if it
  states one) is the row's. A variant board (an NVL, a modded 48 GB RTX 4090) is a card of
  its own that a name has to ask for: by its form word, or by a memory size only it has
  ("H100 94GB", "4090 48gb"). So "H200" is the H200 SXM, "H100" is the PCIe or SXM card,
  never the NVL, and "4090" is the 24 GB card.
* `resolve(name)` returns an id only when there is exactly one candidate. Scrapers use it.
  "A100" (40 or 80GB) and "H100" (PCIe or SXM) give None.
* `resolve_for_sizing(name)` also settles the harmless ambiguities: when every candidate has
  the same usable memory and bf16 support (A100 80GB PCIe vs SXM) it returns the slowest
  one, so a time estimate is never optimistic. The estimator uses it.
* `family_of(name)` returns the family ("A100") when all candidates share it.

A caller that knows the memory size from elsewhere (a scraper reading a "VRAM" column) passes
`vram_gb=` rather than gluing it into the name.
"""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from importlib import resources

from rapidfuzz import fuzz

from estimator.specs import GpuSpec

__all__ = [
    "candidates",
    "closest",
    "family_members",
    "family_of",
    "find_in_text",
    "get",
    "load_gpus",
    "normalize",
    "parse_catalog",
    "resolve",
    "resolve_for_sizing",
    "unknown_card_in_text",
]

_COLUMNS = (
    "id",
    "family",
    "vram_gb",
    "usable_gib",
    "bf16_tflops",
    "fp16_tflops",
    "bandwidth_gbs",
    "bf16",
    "form",
    "datacenter",
    "variant",
    "aliases",
    "source",
)
_FORMS = frozenset({"", "PCIe", "SXM", "NVL"})
# Bounds on usable_gib / vram_gb. A card sold as "80GB" carries 80 GiB of chips (vram in GiB
# is vram_gb * 2^30 bytes, i.e. vram_gb * 1.074 decimal GB), so torch can never report more;
# ECC (1/16 on GDDR) plus driver reservations never take more than 15 %.
_USABLE_MAX_RATIO = 2**30 / 1e9
_USABLE_MIN_RATIO = 0.85
_ALIAS_VRAM_SLACK = 0.10  # "B200 192GB" (raw stacks) may name the 180GB row


# --------------------------------------------------------------------------- normalisation

# Cyrillic letters that look like Latin ones: people type "а100", "Н100", "т4" on a Russian
# layout. Lower-case only, because the text is lower-cased first. "×" is the multiplication
# sign in "8× H100".
_LOOKALIKES = str.maketrans("авекмнорстухі×", "abekmhopctyxix")
# Line names spelt in Cyrillic by sound, not by look («ртх 4090»: Р is R, Х is X). Same length,
# so every index stays in place.
_SPELT_BY_SOUND = {"ртх": "rtx", "гтх": "gtx"}
_BY_SOUND = re.compile(r"(?<![^\W\d_])(?:" + "|".join(_SPELT_BY_SOUND) + r")(?![^\W\d_])")
_CYRILLIC = re.compile(r"[а-яё]")
_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script; "_", "-", "/" separate
_LATIN = re.compile(r"[a-z0-9]+", re.ASCII)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_VRAM_TOKEN = re.compile(r"([0-9]+)(?:gb|gib|g)", re.ASCII)
_COUNT = re.compile(r"[0-9]+x|x[0-9]+", re.ASCII)  # "8x" before a name, "x8" after it
# Prefixes glued onto a model by slugs ("teslat4", "nvidiaa100") and counts ("8xa100").
# A glued count is one or two digits then "x" before letters or a model number ("4x4090"),
# so "a100x8" and "4090x4" keep their trailing count instead.
_GLUED_PREFIX = re.compile(
    r"(?:nvidia|tesla|geforce)(?=[a-z0-9])|[0-9]{1,2}x(?=[a-z]|[0-9]{3})", re.ASCII
)
_GLUED_COUNT_SUFFIX = re.compile(r"(?<=[0-9])x[0-9]+$", re.ASCII)  # "a100x8"

# Words that say nothing about which card it is.
_NOISE = frozenset(
    {"nvidia", "tesla", "geforce", "graphics", "generation", "gpu", "gpus", "tensor", "core"}
)
_FORM_WORDS = {
    "pcie": "PCIe",
    "sxm": "SXM",
    "sxm2": "SXM",
    "sxm3": "SXM",
    "sxm4": "SXM",
    "sxm5": "SXM",
    "sxm6": "SXM",
    "hgx": "SXM",  # HGX baseboards carry SXM modules
    "nvl": "NVL",
}
_MEMORY_TYPES = frozenset(
    {"hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr5", "gddr5x", "gddr6", "gddr6x", "gddr7"}
)
_VRAM_UNITS = frozenset({"gb", "gib", "g"})
# Words after a model number that make it another card: "4080 super", "3080 ti", "4090 d".
# find_in_text drops such a mention rather than reading it as the plain card.
_VARIANT_WORDS = frozenset(
    {"ti", "super", "d", "xt", "laptop", "mobile", "max", "maxq", "ти", "супер", "ноутбук"}
)
_FOREIGN = "~"  # marks a word we cannot read (Russian prose): never part of a model key


@dataclass(frozen=True)
class _Token:
    text: str  # folded Latin/digit form, or _FOREIGN + word for unreadable words
    start: int
    end: int


def _fold(text: str) -> str:
    """Lower-case, 'гб'→'gb', Cyrillic look-alikes→Latin; keeps every index in place."""
    lowered = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    lowered = lowered.replace("гиб", "gib").replace("гб", "gb")
    lowered = _BY_SOUND.sub(lambda m: _SPELT_BY_SOUND[m.group()], lowered)
    return lowered.translate(_LOOKALIKES)


def _russian_suffix_at(word: str, raw: str) -> int:
    """Where a Russian case ending glued to a number starts ("4090ке", "a100-й"), else len."""
    for i in range(1, len(word)):
        if not (word[i - 1].isdigit() and _CYRILLIC.match(raw[i])):
            continue
        tail = word[i:]
        if tail in _VRAM_UNITS or tail == "x":  # "24гб", "8х" are ours, not endings
            return len(word)
        if all(_CYRILLIC.match(c) for c in raw[i:]):
            return i
    return len(word)


def _split_latin(word: str, start: int) -> list[_Token]:
    """Split glued slugs: "teslat4" → tesla|t4, "8xa100" → 8x|a100, "a100x8" → a100|x8."""
    tokens: list[_Token] = []
    pos = 0
    while pos < len(word):
        rest = word[pos:]
        prefix = _GLUED_PREFIX.match(rest)
        if prefix:
            tokens.append(_Token(rest[: prefix.end()], start + pos, start + pos + prefix.end()))
            pos += prefix.end()
            continue
        suffix = _GLUED_COUNT_SUFFIX.search(rest)
        cut = suffix.start() if suffix else len(rest)
        tokens.append(_Token(rest[:cut], start + pos, start + pos + cut))
        if suffix:
            tokens.append(_Token(rest[cut:], start + pos + cut, start + len(word)))
        break
    return tokens


def _word_tokens(word: str, raw: str, start: int) -> list[_Token]:
    cut = _russian_suffix_at(word, raw)
    head, tail = word[:cut], word[cut:]
    has_cyrillic = bool(_CYRILLIC.search(raw[:cut]))
    # A Russian word made only of look-alike letters ("на", "сор") must not become Latin;
    # one with digits ("а100", "т4") is a GPU typed on the wrong layout.
    readable = bool(_LATIN.fullmatch(head)) and (
        not has_cyrillic
        or any(c.isdigit() for c in head)
        or head in _VRAM_UNITS
        or head == "x"
        or raw[:cut] in _SPELT_BY_SOUND
    )
    tokens = (
        _split_latin(head, start) if readable else [_Token(_FOREIGN + head, start, start + cut)]
    )
    if tail:
        tokens.append(_Token(_FOREIGN + tail, start + cut, start + len(word)))
    return tokens


def _tokens(text: str) -> list[_Token]:
    folded = _fold(text)
    tokens: list[_Token] = []
    for match in _WORD.finditer(folded):
        raw = text[match.start() : match.end()].lower()
        if len(raw) != len(match.group()):  # odd case mapping; treat as unreadable
            tokens.append(_Token(_FOREIGN + match.group(), match.start(), match.end()))
            continue
        tokens.extend(_word_tokens(match.group(), raw, match.start()))
    return tokens


def _canonical(texts: Sequence[str]) -> list[str]:
    """Drop noise, join "80"+"gb" and "pci"+"e", spell forms one way ("sxm4" → "sxm")."""
    out: list[str] = []
    i = 0
    while i < len(texts):
        text, nxt = texts[i], texts[i + 1] if i + 1 < len(texts) else ""
        if text in _NOISE:
            pass
        elif _DIGITS.fullmatch(text) and nxt in _VRAM_UNITS:
            out.append(f"{int(text)}gb")
            i += 1
        elif (vram := _VRAM_TOKEN.fullmatch(text)) is not None:
            out.append(f"{int(vram.group(1))}gb")
        elif text == "pci" and nxt in ("e", "express"):
            out.append("pcie")
            i += 1
        elif text in _FORM_WORDS:
            out.append(_FORM_WORDS[text].lower())
        else:
            out.append(text)
        i += 1
    return out


def normalize(name: str) -> str:
    """The one canonical spelling every lookup works on.

    Lower case, Cyrillic look-alikes turned Latin, "гб"/"gb"/"g" after a number written "NNgb",
    "nvidia", "tesla", "geforce", "graphics", "generation" and punctuation dropped, forms
    written "pcie"/"sxm"/"nvl". Words that are not a GPU word (Russian prose) keep a "~" mark.
    normalize("NVIDIA A100-SXM4-80GB") == "a100 sxm 80gb"; normalize("4090 24 гб") == "4090 24gb".
    """
    return " ".join(_canonical([t.text for t in _tokens(name)]))


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class _Name:
    """What a spelling says: model words (joined), and memory size / form when it says them."""

    model: str
    parts: tuple[str, ...]
    vram: int | None = None
    form: str | None = None
    memory: frozenset[str] = frozenset()


def _skip_count(words: list[str]) -> list[str]:
    """Drop a GPU count ("8x a100", "2 x 4090", "a100 x8"): it is not part of the name."""
    if words and _COUNT.fullmatch(words[0]):
        words = words[1:]
    elif len(words) > 1 and _DIGITS.fullmatch(words[0]) and words[1] == "x":
        words = words[2:]
    if words and _COUNT.fullmatch(words[-1]):
        words = words[:-1]
    return words


def _parse(texts: Sequence[str], vram_sizes: frozenset[int], *, counts: bool) -> _Name | None:
    """Read token texts into a _Name; None when the spelling contradicts itself."""
    words = _canonical(texts)
    if counts:
        words = _skip_count(words)
    parts: list[str] = []
    vram: int | None = None
    form: str | None = None
    memory: set[str] = set()
    for word in words:
        size = _VRAM_TOKEN.fullmatch(word)
        # A bare number after the model is a memory size only when some card has that size:
        # "a100-80", "gpu_a100_40". "rtx 4090" keeps 4090 as a model word.
        bare = bool(_DIGITS.fullmatch(word)) and bool(parts) and vram is None
        bare = bare and int(word) in vram_sizes
        if size is not None or bare:
            value = int(size.group(1)) if size is not None else int(word)
            if vram is not None and vram != value:
                return None
            vram = value
        elif word in ("pcie", "sxm", "nvl"):
            canonical = _FORM_WORDS[word]
            if form is not None and form != canonical:
                return None
            form = canonical
        elif word in _MEMORY_TYPES:
            memory.add(word)
        else:
            parts.append(word)
    return _Name("".join(parts), tuple(parts), vram, form, frozenset(memory))


# --------------------------------------------------------------------------- catalog


def _float(row: dict[str, str], column: str, where: str) -> float:
    try:
        return float(row[column])
    except ValueError:
        raise ValueError(f"{where}: {column}={row[column]!r} is not a number") from None


def _bool(row: dict[str, str], column: str, where: str) -> bool:
    value = row[column].strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"{where}: {column}={row[column]!r} must be true or false")
    return value == "true"


def _check_spec(spec: GpuSpec, where: str) -> None:
    if not spec.id or not spec.family:
        raise ValueError(f"{where}: id and family must not be empty")
    if spec.form not in _FORMS:
        raise ValueError(f"{where}: form={spec.form!r} is not one of {sorted(_FORMS)}")
    if spec.vram_gb <= 0 or spec.bandwidth_gbs <= 0 or spec.fp16_tflops <= 0:
        raise ValueError(f"{where}: vram_gb, bandwidth_gbs and fp16_tflops must be positive")
    low, high = spec.vram_gb * _USABLE_MIN_RATIO, spec.vram_gb * _USABLE_MAX_RATIO
    if not low < spec.usable_gib < high:
        raise ValueError(
            f"{where}: usable_gib={spec.usable_gib} outside ({low:.2f}, {high:.2f}) for "
            f"{spec.vram_gb} GB"
        )
    if spec.bf16 != (spec.bf16_tflops > 0):
        raise ValueError(f"{where}: bf16={spec.bf16} but bf16_tflops={spec.bf16_tflops}")
    if spec.form == "NVL" and not spec.variant:
        raise ValueError(f"{where}: an NVL board is a variant (a name has to ask for it)")


def _spec_from_row(row: dict[str, str], where: str) -> GpuSpec:
    aliases = tuple(a.strip() for a in row["aliases"].split("|") if a.strip())
    spec = GpuSpec(
        id=row["id"].strip(),
        family=row["family"].strip(),
        vram_gb=_float(row, "vram_gb", where),
        usable_gib=_float(row, "usable_gib", where),
        bf16_tflops=_float(row, "bf16_tflops", where),
        fp16_tflops=_float(row, "fp16_tflops", where),
        bandwidth_gbs=_float(row, "bandwidth_gbs", where),
        bf16=_bool(row, "bf16", where),
        aliases=aliases,
        form=row["form"].strip(),
        datacenter=_bool(row, "datacenter", where),
        variant=_bool(row, "variant", where),
    )
    _check_spec(spec, where)
    return spec


def parse_catalog(text: str) -> tuple[GpuSpec, ...]:
    """Parse gpus.csv text ("#" lines are comments); ValueError names the bad line and row."""
    lines = [
        (number, line)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    records = list(csv.reader(line for _, line in lines))
    if not records or tuple(records[0]) != _COLUMNS:
        raise ValueError(f"gpus.csv: header must be {','.join(_COLUMNS)}")
    specs: list[GpuSpec] = []
    seen: set[str] = set()
    for (number, _), record in zip(lines[1:], records[1:], strict=True):
        where = f"gpus.csv line {number} ({record[0] if record else ''!r})"
        if len(record) != len(_COLUMNS):
            raise ValueError(f"{where}: {len(record)} columns, expected {len(_COLUMNS)}")
        spec = _spec_from_row(dict(zip(_COLUMNS, record, strict=True)), where)
        if spec.id in seen:
            raise ValueError(f"{where}: duplicate id")
        seen.add(spec.id)
        specs.append(spec)
    return tuple(specs)


@functools.cache
def load_gpus() -> tuple[GpuSpec, ...]:
    """The catalog, in file order (read once)."""
    data = resources.files("estimator").joinpath("data").joinpath("gpus.csv")
    return parse_catalog(data.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- index


@dataclass(frozen=True)
class _Index:
    gpus: tuple[GpuSpec, ...]
    by_id: dict[str, GpuSpec]
    by_key: dict[str, tuple[GpuSpec, ...]]  # model key → rows, in catalog order
    parts: frozenset[str]  # every model word the catalog uses; other words never match
    vram_sizes: frozenset[int]
    extra_vram: dict[str, frozenset[int]]  # id → sizes its aliases may also state
    exact: dict[_Name, GpuSpec]  # aliases naming a memory type ("H100 80GB HBM3")


def _model_keys(name: _Name) -> set[str]:
    """The model key, plus its form without "rtx"/"gtx": users write "4090" and "a5000".
    A bare number names an RTX card only: "1080" is as often a count of examples or tokens
    as the GTX 1080, so that card needs its "gtx" ("1080ti" keeps its "ti" and stays a key)."""
    keys = {name.model}
    for prefix in ("rtx", "gtx"):
        rest = name.model.removeprefix(prefix)
        if rest == name.model or not any(c.isdigit() for c in rest):
            continue
        if prefix == "gtx" and rest.isdigit():
            continue
        keys.add(rest)
    return keys


def _spellings(spec: GpuSpec) -> tuple[str, ...]:
    return (spec.id, *spec.aliases)


def _parse_spelling(spelling: str, spec: GpuSpec, vram_sizes: frozenset[int]) -> _Name:
    name = _parse([t.text for t in _tokens(spelling)], vram_sizes, counts=False)
    where = f"gpus.csv row {spec.id!r}: spelling {spelling!r}"
    if name is None or not name.model:
        raise ValueError(f"{where} does not name a model")
    if name.form is not None and name.form != spec.form:
        raise ValueError(f"{where} says form {name.form}, the row says {spec.form!r}")
    if name.vram is not None and abs(name.vram - spec.vram_gb) > spec.vram_gb * _ALIAS_VRAM_SLACK:
        raise ValueError(f"{where} says {name.vram}GB, the row says {spec.vram_gb}GB")
    return name


def _check_family_keys(by_key: dict[str, list[GpuSpec]]) -> None:
    for key, rows in by_key.items():
        families = {g.family for g in rows}
        if len(families) > 1:  # family_of must be well defined for every bare model name
            raise ValueError(f"gpus.csv: model key {key!r} is shared by families {families}")


def _build_index(gpus: tuple[GpuSpec, ...]) -> _Index:
    vram_sizes = frozenset(int(g.vram_gb) for g in gpus)
    by_key: dict[str, list[GpuSpec]] = {}
    parts: set[str] = set()
    extra_vram: dict[str, set[int]] = {}
    exact: dict[_Name, GpuSpec] = {}
    names: list[tuple[GpuSpec, str, _Name]] = []
    for spec in gpus:
        for spelling in _spellings(spec):
            name = _parse_spelling(spelling, spec, vram_sizes)
            names.append((spec, spelling, name))
            for key in _model_keys(name):
                rows = by_key.setdefault(key, [])
                if spec not in rows:
                    rows.append(spec)
                parts.add(key)
            parts.update(name.parts)
            if name.vram is not None:
                extra_vram.setdefault(spec.id, set()).add(name.vram)
            if name.memory:
                exact[name] = spec
    _check_family_keys(by_key)
    index = _Index(
        gpus=gpus,
        by_id={g.id: g for g in gpus},
        by_key={k: tuple(v) for k, v in by_key.items()},
        parts=frozenset(parts),
        vram_sizes=vram_sizes | {v for s in extra_vram.values() for v in s},
        extra_vram={k: frozenset(v) for k, v in extra_vram.items()},
        exact=exact,
    )
    _check_spellings_pin_their_row(index, names)
    return index


def _check_spellings_pin_their_row(index: _Index, names: list[tuple[GpuSpec, str, _Name]]) -> None:
    """Every id and alias must name its own row and no other, so an alias can't smuggle in a
    guess. An alias with a memory type ("H100 80GB HBM3") is the one allowed to narrow what its
    other words leave open, and those words must still include its row."""
    for spec, spelling, name in names:
        structural = _match(replace(name, memory=frozenset()), index)
        ok = spec in structural if name.memory else structural == (spec,)
        if not ok:
            ids = [g.id for g in structural]
            raise ValueError(f"gpus.csv row {spec.id!r}: spelling {spelling!r} matches {ids}")


@functools.cache
def _index() -> _Index:
    return _build_index(load_gpus())


# --------------------------------------------------------------------------- matching


def _vram_fits(spec: GpuSpec, vram: int | None, index: _Index) -> bool:
    if vram is None:
        return True
    if vram > 100_000:  # no card has that; also keeps float() away from absurd integers
        return False
    return abs(spec.vram_gb - vram) < 0.5 or vram in index.extra_vram.get(spec.id, ())


def _form_fits(spec: GpuSpec, form: str | None) -> bool:
    if form is None:
        return True
    # Single-form cards ("") are all PCIe boards, so "RTX 4090 PCIe" is still the RTX 4090.
    return spec.form == form or (form == "PCIe" and spec.form == "")


def _match(name: _Name | None, index: _Index) -> tuple[GpuSpec, ...]:
    if name is None or not name.model:
        return ()
    if name.memory and name in index.exact:
        return (index.exact[name],)
    # Every model word must be one the catalog uses, so "a 100" never becomes "a100".
    if not all(part in index.parts for part in name.parts):
        return ()
    rows = index.by_key.get(name.model, ())
    found = tuple(g for g in rows if _vram_fits(g, name.vram, index) and _form_fits(g, name.form))
    # A variant only when asked (its form word or a memory only it has): it is another board
    # (memory, clocks, price), not a twin of the usual one.
    return tuple(g for g in found if not g.variant) or found


def _name_of(text: str, vram_gb: float | None, index: _Index) -> _Name | None:
    name = _parse([t.text for t in _tokens(text)], index.vram_sizes, counts=True)
    if name is None or vram_gb is None:
        return name
    if name.vram is not None and abs(name.vram - vram_gb) >= 0.5:
        return None  # the name and the caller disagree on the memory size
    return _Name(name.model, name.parts, round(vram_gb), name.form, name.memory)


def _specs_for(name: str, vram_gb: float | None) -> tuple[GpuSpec, ...]:
    index = _index()
    return _match(_name_of(name, vram_gb, index), index)


def candidates(name: str, *, vram_gb: float | None = None) -> tuple[str, ...]:
    """Every catalog id consistent with `name` (and with `vram_gb` when given), catalog order."""
    return tuple(g.id for g in _specs_for(name, vram_gb))


def stated_vram_gb(name: str) -> int | None:
    """The memory size the name itself states ("a100 80gb", "a100-80"), if any."""
    parsed = _name_of(name, None, _index())
    return None if parsed is None else parsed.vram


def resolve(name: str, *, vram_gb: float | None = None) -> str | None:
    """The canonical id when `name` pins exactly one GPU, else None. Never guesses."""
    found = _specs_for(name, vram_gb)
    return found[0].id if len(found) == 1 else None


def resolve_for_sizing(name: str, *, vram_gb: float | None = None) -> str | None:
    """Like resolve, but when all candidates fit the same memory and bf16 support (A100 80GB
    PCIe vs SXM, H100 80GB PCIe vs SXM), the slowest one: sizing must not be optimistic."""
    found = _specs_for(name, vram_gb)
    if not found:
        return None
    first = found[0]
    if any(
        (g.usable_gib, g.bf16, g.family) != (first.usable_gib, first.bf16, first.family)
        for g in found
    ):
        return None
    return min(found, key=lambda g: (g.tflops, g.bandwidth_gbs, g.id)).id


def family_of(name: str) -> str | None:
    """The family every candidate of `name` belongs to: "h100", "H100 NVL" → "H100"."""
    families = {g.family for g in _specs_for(name, None)}
    return families.pop() if len(families) == 1 else None


def get(gpu_id: str) -> GpuSpec:
    """The spec of a canonical id; KeyError for anything else (no normalisation here)."""
    return _index().by_id[gpu_id]


def family_members(family: str) -> tuple[GpuSpec, ...]:
    """Rows of a family (case-insensitive: "h100" works), catalog order; () when unknown."""
    wanted = family.casefold()
    return tuple(g for g in _index().gpus if g.family.casefold() == wanted)


# --------------------------------------------------------------------------- free text

_MAX_WINDOW = 8  # "rtx pro 6000 blackwell server edition 96gb" is 7 words
_GAP = re.compile(r"[\s\-_/]*")  # what may separate the words of one GPU name


def _can_start(token: _Token) -> bool:
    text = token.text
    return not (
        text.startswith(_FOREIGN)
        or text in _NOISE
        or text in _FORM_WORDS
        or text in _MEMORY_TYPES
        or _COUNT.fullmatch(text)
        or _VRAM_TOKEN.fullmatch(text)
    )


def _can_end(token: _Token) -> bool:
    return not (token.text in _NOISE or _COUNT.fullmatch(token.text))


def _adjacent(text: str, left: _Token, right: _Token) -> bool:
    return _GAP.fullmatch(text, left.end, right.start) is not None


def _window_end(text: str, tokens: Sequence[_Token], i: int) -> int:
    """How far a name starting at token i may reach: adjacent, readable words only."""
    end = i + 1
    while (
        end < len(tokens)
        and end - i < _MAX_WINDOW
        and not tokens[end].text.startswith(_FOREIGN)
        and _adjacent(text, tokens[end - 1], tokens[end])
    ):
        end += 1
    return end


def _followed_by_variant(text: str, tokens: Sequence[_Token], last: int) -> bool:
    nxt = last + 1
    if nxt >= len(tokens) or not _adjacent(text, tokens[last], tokens[nxt]):
        return False
    return text[tokens[nxt].start : tokens[nxt].end].lower() in _VARIANT_WORDS


def _label(found: Iterable[GpuSpec]) -> str | None:
    specs = tuple(found)
    if len(specs) == 1:
        return specs[0].id
    families = {g.family for g in specs}
    return families.pop() if len(families) == 1 else None


def _mention_at(
    text: str, tokens: Sequence[_Token], i: int, index: _Index
) -> tuple[str, int] | None:
    """Longest GPU name starting at token i: (label, index of its last token). A name followed
    by a variant word ("4080 super") is another card: its label is "" and its last token the
    variant word, for `unknown_card_in_text` to name it."""
    for end in range(_window_end(text, tokens, i), i, -1):
        if not _can_end(tokens[end - 1]):
            continue
        name = _parse([t.text for t in tokens[i:end]], index.vram_sizes, counts=False)
        label = _label(_match(name, index))
        if label is None:
            continue
        if _followed_by_variant(text, tokens, end - 1):
            return "", end  # "4080 super" is not an RTX 4080: say nothing rather than guess
        return label, end - 1
    return None


# "h100s", "4090s", "a100s": an English plural of a card's name, the "s" glued to its number.
_PLURAL = re.compile(r"(?<![\w-])([a-z]{1,3}\d{1,4}|\d{2,4})s(?![\w-])", re.IGNORECASE | re.ASCII)


def _singular(text: str, index: _Index) -> str:
    """`text` with a plural card name's "s" blanked (the same length), unless the name with
    its "s" is a card's own (the L40S)."""
    return _PLURAL.sub(
        lambda m: m.group(0) if m.group(0).lower() in index.by_key else m.group(1) + " ", text
    )


def singular(name: str) -> str:
    """A card's name as `find_in_text` read it: "h100s" -> "h100", "L40S" stays."""
    return _singular(name, _index()).rstrip()


def find_in_text(text: str) -> list[tuple[str, int, int]]:
    """GPU mentions in free text (Russian or English) as (label, start, end) of `text`.

    label is the canonical id when the mention pins one GPU («хватит ли 4090 для 13b» →
    ("RTX 4090", 10, 14)); otherwise the family name ("8× H100" → "H100", "a100 80gb" →
    "A100"). For a family label, `family_members(label)` lists the family and
    `candidates(text[start:end])` the members the mention still allows (80GB ones for
    "a100 80gb"). Model sizes ("13b", "70B"), context lengths ("4096") and counts ("8×") are
    never GPUs; a name followed by a variant word ("4080 super", "3080 ti") is skipped.
    """
    index = _index()
    singular = _singular(text, index)
    tokens = _tokens(singular)
    mentions: list[tuple[str, int, int]] = []
    i = 0
    while i < len(tokens):
        found = _mention_at(text, tokens, i, index) if _can_start(tokens[i]) else None
        if found is None:
            i += 1
            continue
        label, last = found
        if label:
            end = tokens[last].end
            if singular[end : end + 1] != text[end : end + 1]:
                end += 1  # the plural's "s" belongs to the mention
            mentions.append((label, tokens[i].start, end))
        i = last + 1
    return mentions


# --------------------------------------------------------------------------- typos

# How close a misspelt model key must come to a card's (rapidfuzz's ratio, 0..100) to be
# offered as "did you mean", and by how much it must beat every other card: "h1000" is near
# the H100 (89 against 67 for the next); "rtx 4900" is as near the 4080 as the 4090 (86 each),
# and "4060" as near the 3060, 4080 and 4090 (75 each), so neither gets a suggestion.
_TYPO_SCORE = 85.0
_TYPO_MARGIN = 5.0
# Words that make the next number a card's name («rtx 4060», «gtx 1660»), known or not.
_LINE_WORDS = frozenset({"rtx", "gtx", "quadro", "titan"})
_CARD_SHAPED = re.compile(r"[a-z]{1,3}[0-9]{2,4}[a-z]{0,3}", re.ASCII)


def closest(name: str) -> str | None:
    """The one card (its id) or family a misspelt name comes close to, for a "did you mean"
    («h1000» -> "H100"); None when the name is a card already, or comes close to none or to
    several («rtx 4900»: the 4080 or the 4090). A suggestion only: a name is never read as
    the card it resembles."""
    index = _index()
    name_read = _name_of(name, None, index)
    if name_read is None or not name_read.model or _match(name_read, index):
        return None
    scores: dict[str, float] = {}
    for key, rows in index.by_key.items():
        label = _label(g for g in rows if not g.variant) or _label(rows)
        if label is not None:
            scores[label] = max(scores.get(label, 0.0), fuzz.ratio(name_read.model, key))
    ranked = sorted(scores.values(), reverse=True)
    best = max(scores, key=lambda label: scores[label], default=None)
    if best is None or ranked[0] < _TYPO_SCORE:
        return None
    if len(ranked) > 1 and ranked[1] > ranked[0] - _TYPO_MARGIN:
        return None
    return best


def unknown_card_in_text(text: str) -> str | None:
    """A card named in free text that the catalog does not know, as written («rtx 4060»,
    «a1000»), so an answer can say so instead of sizing without it; None when every card
    the text names is known. A line word and a number («rtx 4060») name a card; a word shaped
    like a card («h1000») only when it is a near miss of exactly one (`closest`), so model
    names («t5», «v2») and sizes («13b») are never taken for one."""
    index = _index()
    tokens = _tokens(text)
    known = [(start, end) for _, start, end in find_in_text(text)]
    for i, token in enumerate(tokens):
        if any(start <= token.start < end for start, end in known):
            continue
        found = _mention_at(text, tokens, i, index) if _can_start(token) else None
        if found is not None and not found[0]:  # "4080 super": a card the catalog lacks
            return text[token.start : tokens[found[1]].end]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            token.text in _LINE_WORDS
            and nxt is not None
            and _adjacent(text, token, nxt)
            and _DIGITS.match(nxt.text)
        ):
            return text[token.start : nxt.end]
        shaped = _CARD_SHAPED.fullmatch(token.text) and token.text not in index.parts
        if shaped and closest(token.text) is not None:
            return text[token.start : token.end]
    return None
