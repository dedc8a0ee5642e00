"""Replies that adjust the last sizing: «а с qlora?», «а на 2080 ti?», «dataset=20k»...

A sizing travels between messages as a /fit command of what the user *stated*
(`stated_command`): the assumptions are left out, so that a follow-up that changes the context
or the GPU count has them worked out anew (tokens per example follow ctx, sharding follows
the GPU count). A follow-up is read into the same grammar's keys — its key=value pairs as
/fit reads them, its words as a free question's are read — and each key it names replaces
that key of the sizing; everything else stays as the user stated it.

    apply_followup(understand("13b qlora ctx=4096"), "а на 2080 ti?")
        -> the sizing of "13b qlora ctx=4096 gpu=RTX-2080-Ti"

A text with words that are not a change (a price question, chatter) is not a follow-up:
`apply_followup` returns None and the bot's other routers answer it.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Mapping

from estimator.config_query import STAND_IN, with_config_model
from estimator.fit_words import command_for
from estimator.models import find_model_in_text
from estimator.parsing.build import CHEAPEST_WORD, Given
from estimator.parsing.command import parse_command
from estimator.parsing.patterns import SIZE, compiled, number_value
from estimator.parsing.result import ParsedQuery, QueryError
from estimator.parsing.text import language_of, read_levers_and_counts
from estimator.parsing.words import COMMAND_KEYS, COMMAND_METHOD_WORDS
from estimator.query import FitQuery

MAX_LENGTH = 300  # a reply to an answer, not a document

# Every spelling of a command key -> the key (COMMAND_KEYS' own names).
_KEY_OF: dict[str, str] = {
    alias.lower(): key for key, aliases in COMMAND_KEYS.items() for alias in aliases
}
_KEY_OF.update({key: key for key in COMMAND_KEYS})
# The order a rebuilt command lists its keys in (model and method come first, positional).
_KEY_ORDER = {key: n for n, key in enumerate(COMMAND_KEYS)}
_QUERY_FIELDS = {field.name for field in dataclasses.fields(FitQuery)}
_DEFAULT = FitQuery(model="-")
# The methods a sizing ruled out («без qlora»), as command_for writes them ("no-qlora").
RULED_OUT = "no"
# What a lever solved for is set to (ctx=max).
SOLVED = "max"

# Given (what a free-text reader understood) -> the command key that says the same.
GIVEN_KEYS: dict[str, str] = {
    "method": "method",
    "ctx": "ctx",
    "micro_batch": "bs",
    "lora_rank": "rank",
    "targets": "targets",
    "optimizer": "optim",
    "precision": "precision",
    "grad_checkpointing": "gc",
    "gpus": "gpus",
    "shard": "shard",
    "tokens_per_example": "tokens",
    "epochs": "epochs",
    "stack": "stack",
    "offload": "offload",
    "loss": "loss",
    "budget_rub": "budget",
    # These say one thing between them: the dataset, the GPU, the model.
    "dataset_examples": "dataset",
    "dataset_tokens": "dataset",
    "dataset_bytes": "dataset",
    "target_gpu": "gpu",
    "target_family": "gpu",
    "model": "model",
    "size_b": "model",
    # The longest example, or a range of lengths («от 1500 до 3500»: tok=1500-3500).
    "longest_tokens": "longest",
    "shortest_tokens": "tokens",
    # What the user said about the offers.
    "ruled_out": RULED_OUT,  # «без qlora»: no-qlora, positional
    "min_vram_gib": "vram",
    "hours_per_month": "hpm",
    "russia_only": "loc",
    "max_rub_per_hour": "rate",
    # A reverse question: the lever it solves for, as "<lever>=max" (ctx=max, bs=max, rank=max).
    "solve": SOLVED,
    # «на какой самой дешёвой карте»: the positional word "cheapest".
    "cheapest": CHEAPEST_WORD,
}

# Words a follow-up is made of besides what it changes: «а если взять 4 карты?», "what about
# 8k context?". Anything else («где дешевле h100?») makes the text a question of its own.
FILLER_WORDS = frozenset(
    {
        # Russian
        "а",
        "и",
        "ну",
        "если",
        "что",
        "тогда",
        "теперь",
        "взять",
        "возьму",
        "возьмём",
        "возьмем",
        "брать",
        "беру",
        "с",
        "со",
        "на",
        "для",
        "в",
        "во",
        "при",
        "под",
        "вместо",
        "как",
        "насчёт",
        "насчет",
        "будет",
        "ли",
        "же",
        "бы",
        "то",
        "ещё",
        "еще",
        "тоже",
        "также",
        "давай",
        "пожалуйста",
        "хватит",
        "поместится",
        "влезет",
        "уложусь",
        "уложимся",
        "уложиться",
        "можно",
        "сколько",
        "лучше",
        "просто",
        "поставить",
        "ставить",
        "какой",
        "какая",
        "какую",
        "это",
        "пойдёт",
        "пойдет",
        "потянет",
        "запустится",
        "через",  # «а через unsloth?»: the stack the run goes through
        # «сколько это займёт по времени если датасет 20к?»: the answer gives time and cost
        "займёт",
        "займет",
        "займут",
        "уйдёт",
        "уйдет",
        "по",
        "времени",
        "время",
        "долго",
        # English
        "a",
        "an",
        "the",
        "and",
        "what",
        "about",
        "how",
        "if",
        "i",
        "we",
        "use",
        "take",
        "with",
        "on",
        "for",
        "in",
        "instead",
        "then",
        "now",
        "so",
        "please",
        "would",
        "will",
        "it",
        "fit",
        "does",
        "do",
        "can",
        "try",
        "using",
        "also",
        "this",
        "that",
        "run",
        "fits",
        "set",
        # "how long would 3 epochs of 50k samples take?"
        "long",
        "of",
        "takes",
    }
)
# A count the readers leave next to a card they did not use («или 4× a100»): the count of the
# card they read is read with it («8× H100», «на двух 4090», estimator.parsing.text).
_LEFT_COUNT = re.compile(r"\d{0,3}[x×х*]", re.IGNORECASE)
_PUNCTUATION = "?!.,;:…()«»\"'“”„—–-"
# key=value, as /fit reads it ("ctx = 4096" glued first).
_PAIR = re.compile(r"(?<!\S)([^\s=]+)=(\S*)")
_TRAILING = ",;.!?)»\"'"
# Words a follow-up that names a model opens with; without one, a text that names a model is
# a new question («13b lora на 4090»), not a change of the last one («а для 70b?»).
_CUES = frozenset(
    {"а", "и", "если", "тогда", "теперь", "ну", "what", "how", "and", "if", "then", "for", "now"}
)


def stated_command(parsed: ParsedQuery) -> str:
    """The /fit command of what the user stated: command_for without the assumed values.

    `understand(stated_command(p))` is `p` again, its assumptions worked out the same way
    (a dataset given as text size comes back as its token count, now stated). A model from a
    config.json, which no command can name, is written as the stand-in size
    (estimator.config_query.STAND_IN): `with_config_model` puts it back.
    """
    return _command(_stated_keys(parsed))


def apply_followup(previous: ParsedQuery, text: str) -> ParsedQuery | None:
    """`previous` with what `text` changes, or None when `text` is not a change of it.

    Raises QueryError when the text's key=value pairs are wrong as /fit would report them
    ("ctx=abc", "cxt=8192": the user was explicit, and is told what is allowed).
    """
    changes = read_changes(text)
    if changes is None:
        return None
    stated = _stated_keys(previous)
    if SOLVED in changes.values():
        # «а какой batch?» after ctx=max: the new question solves for one lever only.
        stated = {key: value for key, value in stated.items() if value != SOLVED}
    if CHEAPEST_WORD in changes and "gpu" not in changes:
        stated.pop("gpu", None)  # «на какой самой дешёвой карте»: the card is the question
    keys = {**stated, **changes}
    try:
        parsed = parse_command(_command(keys))
    except QueryError as error:
        if error.code == "unknown_key" and error.value is None:
            return None  # no key of ours, nor near one: not meant for /fit
        raise
    if previous.model_from_config and "model" not in changes:
        return with_config_model(parsed, previous.model)  # «а на lora?»: the config's model
    return parsed  # the offer constraints travel in the command (vram=, loc=, rate=, hpm=)


def read_changes(text: str) -> dict[str, str] | None:
    """The command keys `text` sets, with their values in the command grammar; None when it
    sets none, or has words that are no change of a sizing."""
    rest = _tidy(text[:MAX_LENGTH])
    changes: dict[str, str] = {}
    for match in _PAIR.finditer(rest):
        key = match.group(1).strip(_TRAILING)
        known = _KEY_OF.get(key.lower())
        if known is None and not difflib.get_close_matches(key.lower(), _KEY_OF, cutoff=0.6):
            return None  # "num_workers=4": a setting of the user's code, not of this sizing
        # A near miss ("cxt=8192") goes on as typed: the grammar names the key it meant.
        changes[known or key] = match.group(2).rstrip(_TRAILING)
    rest = _PAIR.sub(" ", rest)
    words = _read_words(rest)
    if words is None:
        return None
    changes = {**words, **changes}  # a pair is exact: it wins over the words' reading
    return changes or None


def is_new_question(text: str) -> bool:
    """True for a text that names a model and does not open as a follow-up: it asks anew
    («13b lora на 4090»), where «а для 70b?» changes the last sizing's model."""
    changes = read_changes(text)
    if changes is None or "model" not in changes:
        return False
    first = next(iter(_words(text)), "")
    return first not in _CUES


def _tidy(text: str) -> str:
    """As the command grammar does: "ctx = 4096" is one pair, "50 000" one number."""
    text = re.sub(r"[\u00a0\u202f\t\r\n]", " ", text)
    text = re.sub(r"(?<=\d) (?=\d{3}(?![\w.,]))", "", text)
    return re.sub(r"\s*=\s*", "=", text)


def _read_words(text: str) -> dict[str, str] | None:
    """The keys the words set (a free question's readers), None if other words are left."""
    given = Given(text_language=language_of(text))
    rest = text
    found = find_model_in_text(rest)
    if found is not None:
        given.model, start, end = found
        rest = rest[:start] + " " + rest[end:]
    else:
        size = compiled(SIZE).search(rest)
        if size is not None:
            given.size_b = number_value(size.group(1))
            rest = rest[: size.start()] + " " + rest[size.end() :]
    left = read_levers_and_counts(rest, given)
    if any(not _is_filler(word) for word in left):
        return None
    return _given_keys(given)


def _is_filler(word: str) -> bool:
    bare = word.strip(_PUNCTUATION).lower().replace("ё", "е")
    return (
        not bare
        or bare in FILLER_WORDS
        or word.lower() in FILLER_WORDS
        or bool(_LEFT_COUNT.fullmatch(bare))
    )


def _words(text: str) -> list[str]:
    return [w for w in (word.strip(_PUNCTUATION).lower() for word in text.split()) if w]


def _given_keys(given: Given) -> dict[str, str]:
    keys: dict[str, str] = {}
    for name, key in GIVEN_KEYS.items():
        value = getattr(given, name)
        if value is None or (name == "ruled_out" and not value):
            continue
        if name == "model":
            keys[key] = value.id
        elif name == "size_b":
            keys[key] = f"{value:g}b"
        elif name == "dataset_tokens":
            keys[key] = f"{value}tok"
        elif name == "dataset_bytes":
            # In the text's language: the command grammar reads Cyrillic as Russian text,
            # whose bytes per token differ (estimator.parsing.build.BYTES_PER_TOKEN).
            unit = "гб" if given.text_language == "ru" else "gb"
            keys[key] = f"{value / 1e9:.12g}{unit}"
        elif name in ("target_gpu", "target_family"):
            keys[key] = str(value).replace(" ", "-")
        elif name == "shortest_tokens":
            keys[key] = f"{value}-{given.longest_tokens}"
        elif name == "longest_tokens" and given.shortest_tokens is not None:
            continue  # the range says it
        elif name == "solve":
            keys[str(value)] = SOLVED
        elif name == "cheapest":
            if value:
                keys[key] = CHEAPEST_WORD
        elif name == "ruled_out":
            keys[key] = " ".join(f"no-{method.value}" for method in value)
        elif name == "russia_only":
            keys[key] = "ru" if value else "any"
        else:
            keys[key] = _shown(value)
    return keys


def _shown(value: object) -> str:
    if hasattr(value, "value"):
        return str(value.value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _stated_keys(parsed: ParsedQuery) -> dict[str, str]:
    """command_for's keys of `parsed` without those it assumed."""
    assumed = {assumption.key for assumption in parsed.assumptions}
    # A dataset given as text size is assumed only in its token count: it stays.
    resets = {
        name: getattr(_DEFAULT, name)
        for name in assumed
        if name in _QUERY_FIELDS and name != "dataset_tokens"
    }
    bare = dataclasses.replace(parsed, query=dataclasses.replace(parsed.query, **resets))
    if parsed.model_from_config:  # its name may hold spaces, and no command reads it
        bare = dataclasses.replace(bare, model=dataclasses.replace(bare.model, id=STAND_IN))
    words = command_for(bare).split(" ")
    keys = {"model": words[0]}
    ruled_out = []
    for word in words[1:]:
        if "=" not in word:
            # Positional: the method as named, or a method ruled out («без qlora»: no-qlora);
            # command_for leaves an assumed method out.
            if word.startswith("no-"):
                ruled_out.append(word)
            elif word == CHEAPEST_WORD:
                keys[CHEAPEST_WORD] = CHEAPEST_WORD
            else:
                keys["method"] = word
            continue
        key, value = word.split("=", 1)
        keys[_KEY_OF[key]] = value
    if ruled_out:
        keys[RULED_OUT] = " ".join(ruled_out)
    return keys


def _command(keys: Mapping[str, str]) -> str:
    """`<model> [method] key=value ...` from the keys."""
    parts = [keys["model"]]
    method = keys.get("method")
    if method is not None:
        # A method word positional, as command_for writes it; anything else as a pair, so
        # that the grammar reports it ("method=banana") instead of skipping a stray word.
        parts.append(method if method.lower() in COMMAND_METHOD_WORDS else f"method={method}")
    elif RULED_OUT in keys:
        parts.append(keys[RULED_OUT])  # a method named now replaces what was ruled out
    if CHEAPEST_WORD in keys:
        parts.append(CHEAPEST_WORD)
    positional = ("model", "method", RULED_OUT, CHEAPEST_WORD)
    pairs = sorted((key, value) for key, value in keys.items() if key not in positional)
    pairs.sort(key=lambda pair: _KEY_ORDER.get(pair[0], len(_KEY_ORDER)))
    parts += [f"{key}={value}" for key, value in pairs]
    return " ".join(parts)
