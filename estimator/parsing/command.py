"""The command grammar: `<model|size> [method] key=value ...`, positional parts in any order.

    /fit 13b qlora ctx=4k bs=2
    /fit qlora meta-llama/Meta-Llama-3.1-8B-Instruct gpu=4090 dataset=50 000 epochs=3
    /fit llama 3 70b full gpus=8 shard=fsdp

Strict where the user was explicit: a value that cannot be read, or lies outside its sane
range, raises QueryError naming the key and what is allowed. An unknown key or an unreadable
positional word is skipped with a note ("unknown_key:foo", "ignored:bar").
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from enum import StrEnum

from estimator import gpus
from estimator.models import find_model_in_text
from estimator.parsing.build import (
    CHEAPEST_WORD,
    LIMITS,
    MAX_VALUES,
    Given,
    check_epochs,
    check_int,
    check_size,
    finish,
    resolve_gpu,
    set_solve,
)
from estimator.parsing.numbers import Unit, number_in, quantities
from estimator.parsing.patterns import (
    MILLIONS,
    THOUSANDS,
    alternation,
    amount_value,
    compiled,
    language_of,
    number_value,
    size_value,
)
from estimator.parsing.result import ParsedQuery, QueryError, Slot
from estimator.parsing.text import parse_question, read_levers_and_counts
from estimator.parsing.words import (
    ANYWHERE_WORDS,
    COMMAND_KEYS,
    COMMAND_METHOD_WORDS,
    FALSE_WORDS,
    NEGATION_WORDS,
    NO_EFFECT_KEYS,
    RUSSIA_WORDS,
    SIZE_UNITS,
    TEXT_SIZE_UNITS,
    TRUE_WORDS,
    VALUE_ALIASES,
)
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

_KEY_OF: dict[str, str] = {alias: key for key, aliases in COMMAND_KEYS.items() for alias in aliases}
_ENUM_KEYS: dict[str, type[StrEnum]] = {
    "targets": Targets,
    "optim": Optimizer,
    "precision": Precision,
    "shard": Sharding,
    "stack": Stack,
    "method": Method,
    "offload": Offload,
    "loss": Loss,
    "packing": Packing,
}
_ENUM_FIELDS = {
    "targets": "targets",
    "optim": "optimizer",
    "precision": "precision",
    "shard": "shard",
    "stack": "stack",
    "method": "method",
    "offload": "offload",
    "loss": "loss",
    "packing": "packing",
}
_NEGATIONS = frozenset(w for w in NEGATION_WORDS if " " not in w)
LOCATION_EXAMPLES = ("ru", "any")
# "8xh100", "2x4090": a count glued to a GPU name.
_COUNTED_GPU = re.compile(r"(\d{1,3})\s*[x×х*]\s*(\S+)", re.IGNORECASE)


def _tidy(args: str) -> str:
    """Glue what the user spaced out: "50 000", "13 млрд", "ctx = 4096", "16 к"."""
    text = re.sub(r"[\u00a0\u202f\t\r\n]", " ", args).strip()
    text = re.sub(r"(?<=\d) (?=\d{3}(?![\w.,]))", "", text)  # not "llama 3 405b"
    text = re.sub(r"\s*=\s*", "=", text)
    units = alternation(SIZE_UNITS, left_boundary=False)
    return compiled(rf"(?<=\d) +(?={units}|{THOUSANDS}|{MILLIONS})").sub("", text)


def _allowed(enum: type[StrEnum]) -> tuple[str, ...]:
    return tuple(member.value for member in enum)


def _bad(key: str, value: str, allowed: tuple[str, ...]) -> QueryError:
    return QueryError(
        "bad_value",
        f"{key}={value!r} is not one of {', '.join(allowed)}",
        key=key,
        value=value,
        allowed=allowed,
    )


def _enum_value(key: str, raw: str) -> StrEnum:
    enum = _ENUM_KEYS[key]
    word = raw.lower()
    word = VALUE_ALIASES.get(key, {}).get(word, word)
    try:
        return enum(word)
    except ValueError:
        raise _bad(key, raw, _allowed(enum)) from None


# What a numeric key accepts, shown when its value cannot be read.
NUMBER_EXAMPLES: dict[str, tuple[str, ...]] = {
    "ctx": ("512", "4096", "8k", "32k", "max"),
    "bs": ("1", "2", "8", "max"),
    "rank": ("8", "16", "64", "max"),
    "gpus": ("1", "2", "8"),
    "dataset": ("10000", "50k", "1m", "2gb", "500mb", "50m_tokens"),
    "tokens": ("300", "512", "2k"),
    "epochs": ("1", "3", "0.5"),
    "steps": ("60", "1000"),
    "hours": ("2", "5", "24"),
    "cardgb": ("16", "24", "48", "80"),
    "budget": ("5000", "20k", "5000₽"),
    "longest": ("1000", "3500", "8k"),
    "vram": ("24", "48", "80"),
    "hpm": ("60", "200", "720"),
    "rate": ("150", "300", "300₽"),
    "gpurate": ("300", "600"),
    "mrate": ("100000", "200000"),
    "ga": ("1", "4", "16"),
}


def _amount(key: str, raw: str, thousand: int) -> float:
    """The number a value is, by the one number reader (estimator.parsing.numbers): "4096",
    "4k", «16к», "1.5k", "50000", "1м", «тысяч5» would not be a value of ours."""
    found = number_in(raw)
    value = found.value(thousand) if found is not None and found.unit is None else None
    if value is None:
        raise QueryError(
            "bad_value",
            f"{key}={raw!r} is not a number (e.g. {', '.join(NUMBER_EXAMPLES[key])})",
            key=key,
            value=raw,
            allowed=NUMBER_EXAMPLES[key],
        )
    return value


_TEXT_SIZE = re.compile(r"(\d+(?:[.,]\d+)?)\s*(" + "|".join(TEXT_SIZE_UNITS) + r")", re.I)
_TOKEN_COUNT = re.compile(r"(.+?)[\s_-]*(?:tokens?|tok|токенов|токена|т)", re.I)


def _budget(raw: str) -> float:
    value = _amount("budget", re.sub(r"(?:₽|руб\w*|rub\w*|р)$", "", raw.strip(), flags=re.I), 1000)
    low, high = LIMITS["budget"]
    if not low <= value <= high:
        raise QueryError(
            "out_of_range",
            f"budget={raw} is outside {low:g}..{high:g} roubles",
            key="budget",
            value=raw,
            allowed=(f"{low:g}", f"{high:g}"),
        )
    return value


def _bounded(key: str, raw: str, value: float) -> float:
    low, high = LIMITS[key]
    if not low <= value <= high:
        raise QueryError(
            "out_of_range",
            f"{key}={raw} is outside {low:g}..{high:g}",
            key=key,
            value=raw,
            allowed=(f"{low:g}", f"{high:g}"),
        )
    return value


def _vram(raw: str) -> float:
    """vram=48 or 48gb: the least memory per card, as sold (see estimator.parsing.market)."""
    number = re.sub(r"(?:gib|gb|гб|гиб|g|г)$", "", raw.strip(), flags=re.I)
    return _bounded("vram", raw, _amount("vram", number, 1000))


def _rate(raw: str) -> float:
    """rate=300, 300₽ or 300₽/ч: the most per server-hour."""
    number = re.sub(r"(?:/ч|/час|/h|/hr)$", "", raw.strip(), flags=re.I)
    number = re.sub(r"(?:₽|руб\w*|rub\w*|р)$", "", number, flags=re.I)
    return _bounded("rate", raw, _amount("rate", number, 1000))


def _rubles(raw: str) -> str:
    return re.sub(r"(?:₽|руб\w*|rub\w*|р)$", "", raw.strip(), flags=re.I)


BILLINGS = ("hour", "month")


def _billing(raw: str) -> str:
    word = VALUE_ALIASES["billing"].get(raw.strip().lower(), raw.strip().lower())
    if word not in BILLINGS:
        raise _bad("billing", raw, BILLINGS)
    return word


def _location(raw: str) -> bool:
    word = raw.strip().lower()
    if word in RUSSIA_WORDS:
        return True
    if word in ANYWHERE_WORDS:
        return False
    raise _bad("loc", raw, LOCATION_EXAMPLES)


def _set_dataset(given: Given, raw: str) -> None:
    """dataset= takes examples ("50k"), text size ("2gb", "500мб") or tokens ("50m_tokens")."""
    size = _TEXT_SIZE.fullmatch(raw.strip())
    if size is not None:
        value = float(size.group(1).replace(",", "."))
        if value <= 0:
            raise QueryError(
                "out_of_range", f"dataset={raw} must be above 0", key="dataset", value=raw
            )
        given.dataset_bytes = value * TEXT_SIZE_UNITS[size.group(2).lower()]
        return
    tokens = _TOKEN_COUNT.fullmatch(raw.strip())
    if tokens is not None and amount_value(tokens.group(1), thousand=1000) is not None:
        count = round(_amount("dataset", tokens.group(1), 1000))
        given.dataset_tokens = check_int("dataset_tokens", count)
        return
    given.dataset_examples = check_int("dataset", round(_amount("dataset", raw, 1000)))


_RANGE = re.compile(r"(.+?)\s*[-–—]\s*(.+)")


def _set_tokens(given: Given, raw: str) -> None:
    """tokens=500 (per example), tokens=1500-3500 (a range: its top is the longest), or
    tokens=~500 (about 500: an assumed length, kept with the data through follow-ups)."""
    if raw.startswith("~"):
        given.tokens_assumed = check_int("tokens", round(_amount("tokens", raw[1:], 1000)))
        return
    span = _RANGE.fullmatch(raw.strip())
    if span is None:
        given.tokens_per_example = check_int("tokens", round(_amount("tokens", raw, 1000)))
        return
    low = check_int("tokens", round(_amount("tokens", span.group(1), 1000)))
    high = check_int("tokens", round(_amount("tokens", span.group(2), 1000)))
    if low > high:
        raise QueryError(
            "bad_value", f"tokens={raw}: the range runs low to high", key="tokens", value=raw
        )
    given.shortest_tokens, given.longest_tokens = low, high


def _checkpointing(raw: str) -> Checkpointing:
    word = raw.lower()
    if word in TRUE_WORDS:
        return Checkpointing.ON
    if word in FALSE_WORDS:
        return Checkpointing.OFF
    try:
        return Checkpointing(word)
    except ValueError:
        raise _bad("gc", raw, _allowed(Checkpointing)) from None


def _set_gpu(given: Given, raw: str) -> None:
    given.target_gpu, given.target_family = resolve_gpu(raw)


def _or_max(lever: str, setter: Callable[[Given, str], None]) -> Callable[[Given, str], None]:
    """ctx=max, bs=max, rank=max: solve for the lever instead of setting it."""

    def apply(given: Given, raw: str) -> None:
        if raw.strip().lower() in MAX_VALUES:
            set_solve(given, lever)
        else:
            setter(given, raw)

    return apply


_SETTERS: dict[str, Callable[[Given, str], None]] = {
    "ctx": _or_max(
        "ctx", lambda g, v: setattr(g, "ctx", check_int("ctx", _amount("ctx", v, 1024)))
    ),
    "bs": _or_max(
        "bs", lambda g, v: setattr(g, "micro_batch", check_int("bs", _amount("bs", v, 1000)))
    ),
    "rank": _or_max(
        "rank",
        lambda g, v: setattr(g, "lora_rank", check_int("rank", _amount("rank", v, 1000))),
    ),
    "gpus": lambda g, v: setattr(g, "gpus", check_int("gpus", _amount("gpus", v, 1000))),
    "dataset": _set_dataset,
    "budget": lambda g, v: setattr(g, "budget_rub", _budget(v)),
    "tokens": _set_tokens,
    "longest": lambda g, v: setattr(
        g, "longest_tokens", check_int("tokens", round(_amount("longest", v, 1024)))
    ),
    "epochs": lambda g, v: setattr(g, "epochs", check_epochs(_amount("epochs", v, 1000))),
    "steps": lambda g, v: setattr(g, "steps", check_int("steps", _amount("steps", v, 1000))),
    "cardgb": lambda g, v: setattr(g, "card_gb", _bounded("cardgb", v, _amount("cardgb", v, 1000))),
    "hours": lambda g, v: setattr(
        g, "time_budget_hours", _bounded("hours", v, _amount("hours", v, 1000))
    ),
    "vram": lambda g, v: setattr(g, "min_vram_gib", _vram(v)),
    "hpm": lambda g, v: setattr(g, "hours_per_month", _bounded("hpm", v, _amount("hpm", v, 1000))),
    "loc": lambda g, v: setattr(g, "russia_only", _location(v)),
    "rate": lambda g, v: setattr(g, "max_rub_per_hour", _rate(v)),
    "gpurate": lambda g, v: setattr(g, "max_rub_per_gpu_hour", _rate(v)),
    "mrate": lambda g, v: setattr(
        g, "max_rub_per_month", _bounded("mrate", v, _amount("mrate", _rubles(v), 1000))
    ),
    "billing": lambda g, v: setattr(g, "billing", _billing(v)),
    "gc": lambda g, v: setattr(g, "grad_checkpointing", _checkpointing(v)),
    "ga": lambda g, v: setattr(g, "grad_accum", check_int("ga", _amount("ga", v, 1000))),
    "gpu": _set_gpu,
    "model": lambda g, v: _positional(g, [v]),
}


def _allowed_for(key: str) -> tuple[str, ...]:
    if key in _ENUM_KEYS:
        return _allowed(_ENUM_KEYS[key])
    if key == "gc":
        return _allowed(Checkpointing)
    if key == "gpu":
        return GPU_EXAMPLES
    if key == "model":
        return MODEL_EXAMPLES
    if key == "loc":
        return LOCATION_EXAMPLES
    if key == "billing":
        return BILLINGS
    return NUMBER_EXAMPLES.get(key, ())


# The slot each key sets (dataset= and tokens= are worked out from what they set).
_KEY_SLOTS: dict[str, Slot] = {
    "ctx": Slot.CTX, "bs": Slot.MICRO_BATCH, "rank": Slot.LORA_RANK, "targets": Slot.TARGETS,
    "optim": Slot.OPTIMIZER, "precision": Slot.PRECISION, "gc": Slot.GRAD_CHECKPOINTING,
    "gpus": Slot.GPUS, "shard": Slot.SHARD, "longest": Slot.LONGEST_TOKENS,
    "epochs": Slot.EPOCHS, "gpu": Slot.GPU, "stack": Slot.STACK, "offload": Slot.OFFLOAD,
    "budget": Slot.BUDGET, "loss": Slot.LOSS, "method": Slot.METHOD, "model": Slot.MODEL,
    "vram": Slot.MIN_VRAM, "hpm": Slot.HOURS_PER_MONTH, "loc": Slot.RUSSIA_ONLY,
    "rate": Slot.MAX_RUB_PER_HOUR, "gpurate": Slot.MAX_RUB_PER_GPU_HOUR,
    "mrate": Slot.MAX_RUB_PER_MONTH, "billing": Slot.BILLING, "packing": Slot.PACKING,
    "ga": Slot.GRAD_ACCUM, "steps": Slot.STEPS, "hours": Slot.TIME_BUDGET, "cardgb": Slot.CARD_GB,
}  # fmt: skip


def _slot_of(given: Given, key: str, value: str) -> Slot | None:
    if value.strip().lower() in MAX_VALUES:
        return Slot.SOLVE
    if key == "dataset":
        return Slot.DATASET_EXAMPLES if given.dataset_examples else Slot.DATASET_TOKENS
    if key == "tokens":
        if given.tokens_assumed is not None and value.startswith("~"):
            return None  # an earlier answer's assumption, not something said
        return Slot.LONGEST_TOKENS if given.shortest_tokens else Slot.TOKENS_PER_EXAMPLE
    return _KEY_SLOTS.get(key)


def apply_pair(given: Given, key: str, value: str, said: str | None = None) -> None:
    """Set what `key`=`value` says (`key` canonical, as `key_of` gives it); QueryError when
    the value cannot be used. `said` is the pair as written, kept for the answer."""
    if not value:
        raise QueryError(
            "bad_value", f"{key}= needs a value", key=key, value="", allowed=_allowed_for(key)
        )
    if key in _ENUM_KEYS:
        setattr(given, _ENUM_FIELDS[key], _enum_value(key, value))
    else:
        _SETTERS[key](given, value)
    slot = _slot_of(given, key, value)
    if slot is not None:
        given.said[slot] = said or f"{key}={value}"


def key_of(raw_key: str) -> str | None:
    """The canonical key of a spelling ("context" -> "ctx"), or None."""
    return _KEY_OF.get(raw_key.lower())


# Every spelling of every key, for near-miss suggestions.
KEY_SPELLINGS: tuple[str, ...] = tuple(_KEY_OF)


def _set_method(given: Given, method: Method) -> None:
    if given.method is not None and given.method is not method:
        raise QueryError(
            "conflict",
            f"two methods given: {given.method.value} and {method.value}",
            key="method",
            value=method.value,
            allowed=_allowed(Method),
        )
    given.method = method


def _set_size(given: Given, size: float) -> None:
    size = check_size(size)
    if given.model is not None or (given.size_b is not None and given.size_b != size):
        raise QueryError(
            "conflict",
            "more than one model or size given",
            key="model",
            value=f"{size:g}b",
            allowed=MODEL_EXAMPLES,
        )
    given.size_b = size


def _positional(given: Given, words: list[str]) -> None:
    """Method words, then one model name, then sizes and GPUs; the rest is noted."""
    rest: list[str] = []
    for n, word in enumerate(words):
        if word.lower() == CHEAPEST_WORD:
            given.cheapest = True  # /fit 8b qlora cheapest: name the cheapest card first
            continue
        method = COMMAND_METHOD_WORDS.get(word.lower())
        if method is not None and not (n and words[n - 1].lower() in _NEGATIONS):
            _set_method(given, method)
            given.said.setdefault(Slot.METHOD, word)
        else:
            rest.append(word)  # «без лоры», "no qlora": the free-text reader rules them out
    text = " ".join(rest)
    found = find_model_in_text(text)
    if found is not None:
        given.model, start, end = found
        given.said.setdefault(Slot.MODEL, text[start:end])
        text = text[:start] + " " + text[end:]
    words = text.split()
    for n, word in enumerate(words):
        size = size_value(word)
        if size is not None:
            _set_size(given, size)
            given.said.setdefault(Slot.MODEL, word)
            continue
        counted = _COUNTED_GPU.fullmatch(word)
        if counted and gpus.find_in_text(counted.group(2)):
            given.gpus = given.gpus or check_int("gpus", int(counted.group(1)))
            _set_gpu(given, counted.group(2))
            given.said.setdefault(Slot.GPU, counted.group(2))
            given.said.setdefault(Slot.GPUS, word)
            continue
        mentions = gpus.find_in_text(word)
        if mentions and mentions[0][1] == 0 and mentions[0][2] == len(word):
            _set_gpu(given, word)
            given.said.setdefault(Slot.GPU, word)
            continue
        number = number_value(word)
        bare = n + 1 == len(words) or _unit_of(f"{word} {words[n + 1]}") is None
        if number is not None and bare and n < 2 and given.model is None and given.size_b is None:
            # "/fit 70 qlora": a bare number up front is a size in billions; later in a
            # sentence («карта с 48 гигами») it is something else.
            _set_size(given, number)
            given.said.setdefault(Slot.MODEL, word)
            continue
        given.notes.append(f"ignored:{word}")


def _unit_of(words: str) -> Unit | None:
    """The unit of the number `words` open with: «5000 рублей» counts roubles, not billions
    of parameters."""
    found = quantities(words)
    return found[0].unit if found else None


def _read_free_words(given: Given) -> None:
    """Words the grammar could not read («батч 4», «без gradient checkpointing») go through
    the free-text reader; what it cannot read either stays noted as ignored."""
    words = [note.split(":", 1)[1] for note in given.notes if note.startswith("ignored:")]
    if not words:
        return
    given.notes = [note for note in given.notes if not note.startswith("ignored:")]
    left = read_levers_and_counts(" ".join(words), given)
    given.notes += [f"ignored:{word}" for word in left]


def _unknown_model(given: Given) -> QueryError:
    words = [n.split(":", 1)[1] for n in given.notes if n.startswith("ignored:")]
    return QueryError(
        "no_model",
        f"unknown model {' '.join(words)!r}" if words else "name a model (llama 3 8b) or a size",
        key="model",
        value=" ".join(words) or None,
        allowed=MODEL_EXAMPLES,
    )


MODEL_EXAMPLES = ("7b", "13b", "70b", "llama 3 8b", "qwen2.5 7b", "mistral 7b")
GPU_EXAMPLES = ("4090", "3090", "a100-80", "a100-40", "h100", "h200", "l40s", "t4")


# Punctuation around a word people type: "ctx=2048,", "(bs=4)", «qlora».
TRAILING = ",;.!?()[]«»“”\"'"


def unknown_key(raw_key: str) -> QueryError:
    """Names the key and suggests the nearest known spelling ("cxt" -> "ctx")."""
    near = difflib.get_close_matches(raw_key.lower(), list(_KEY_OF), n=1, cutoff=0.5)
    suggestion = _KEY_OF[near[0]] if near else ""
    return QueryError(
        "unknown_key",
        f"unknown key {raw_key!r}" + (f"; did you mean {suggestion}?" if suggestion else ""),
        key=raw_key,
        value=suggestion or None,
        allowed=tuple(COMMAND_KEYS),
    )


def _whole_gpu(text: str) -> bool:
    mentions = gpus.find_in_text(text)
    return bool(mentions) and mentions[0][1] == 0 and mentions[0][2] == len(text)


def _whole_model(text: str) -> bool:
    found = find_model_in_text(text)
    return found is not None and found[1] == 0 and found[2] == len(text)


# Keys whose values are names, which people write with spaces: gpu=rtx 4090, model=llama 3 8b.
_NAME_KEYS: dict[str, Callable[[str], bool]] = {"gpu": _whole_gpu, "model": _whole_model}


def _joined_values(tokens: list[str]) -> list[str]:
    """«gpu=rtx 4090», «gpu=a100 80gb», «model=llama 3 8b»: the words after a name key join
    its value while the name they make is a whole card or model name, the longest one."""
    joined: list[str] = []
    n = 0
    while n < len(tokens):
        token = tokens[n]
        key, _, value = token.partition("=")
        whole = _NAME_KEYS.get(key_of(key) or "") if value else None
        if whole is not None:
            best = 0
            for more in range(1, 4):
                following = tokens[n + 1 : n + 1 + more]
                if len(following) < more or any("=" in word for word in following):
                    break
                if whole(" ".join([value, *following]).strip(TRAILING)):
                    best = more
            if best:
                joined.append(" ".join([token, *tokens[n + 1 : n + 1 + best]]))
                n += 1 + best
                continue
        joined.append(token)
        n += 1
    return joined


# A key=value pair as people type it among words.
PAIR = re.compile(r"(?<!\S)([^\s=]+)=(\S*)")


def _pair(token: str, notes: list[str]) -> tuple[str, str] | None:
    """The canonical key and the value of a "key=value" /fit reads; None for a setting that
    changes neither memory nor time (noted `no_effect:`); QueryError for an unknown key."""
    raw_key, value = token.split("=", 1)
    key = _KEY_OF.get(raw_key.lower())
    if key is not None:
        return key, value
    if raw_key.lower() in NO_EFFECT_KEYS:
        notes.append(f"no_effect:{token}")
        return None
    raise unknown_key(raw_key)


def parse_mixed(text: str) -> ParsedQuery | None:
    """A question in words with /fit pairs among them ("train qwen2.5 coder 32b with lora r=16
    on 8x a100 40gb"): the words are read as a question's, then each pair is set as /fit sets
    it (a pair is exact: it wins). None when the words name no model; QueryError for a pair
    /fit would refuse."""
    pairs: list[tuple[str, str, str]] = []
    notes: list[str] = []
    for match in PAIR.finditer(text):
        token = match.group(0).strip(TRAILING)
        pair = _pair(token, notes)
        if pair is not None:
            pairs.append((*pair, token))

    def settle(given: Given) -> None:
        for key, value, said in pairs:
            apply_pair(given, key, value, said)
        given.notes += notes

    return parse_question(PAIR.sub(" ", text), settle)


def parse_command(args: str) -> ParsedQuery:
    """Parse the arguments of /fit. Raises QueryError (and nothing else) on bad input."""
    given = Given(text_language=language_of(args))
    positional: list[str] = []
    explicit: dict[str, str] = {}
    said: dict[str, str] = {}
    tokens = _joined_values(_tidy(args).split(" "))
    for raw_token in tokens:
        token = raw_token.strip(TRAILING)  # "ctx=2048," and "qlora," are what people type
        if not token:
            continue
        if "=" in token and not token.startswith("="):
            pair = _pair(token, given.notes)
            if pair is None:
                continue
            key, value = pair
            if key in explicit:
                given.notes.append(f"repeated_key:{key}")  # the last one wins
            explicit[key] = value
            said[key] = token
        else:
            positional.append(token)
    _positional(given, positional)
    for key, value in explicit.items():
        apply_pair(given, key, value, said[key])
    _read_free_words(given)
    if given.model is None and given.size_b is None:
        raise _unknown_model(given)  # says which words it could not read as a model
    return finish(given)
