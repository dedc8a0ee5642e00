"""A sizing question about a model the catalog does not have: «deepseek v2 lite qlora на 4090
пойдёт?», `/fit qwen1.5-moe-a2.7b lora`.

Without this such a question reads as one that names no model (the card's price list, or
«Не понял запрос»). It is recognised precisely, so that price questions, greetings and card
names never are:

- the text asks for a sizing: a method or fine-tuning word («qlora», «файнтюн», «дообучить»),
  or a fit word («влезет», «пойдёт») with a card; a /fit command always does;
- and it holds a model-looking name that the catalog does not match: a catalog model line
  word ("deepseek", "qwen") with version or size tokens after it («deepseek v2 lite»,
  "qwen1.5-moe-a2.7b"), or a Hugging Face repository id with a digit in its name
  ("allenai/OLMo-2-1124-7B").

The answer (`unknown_model_text`) names the model as written and offers its config.json
(`estimator.model_config`) or a sizing by its total size, the one written in the name
("Foo-14B" -> 14B) and never one the bot would guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from estimator import gpus
from estimator.i18n import translator
from estimator.models import could_name, find_model_in_text, name_words
from estimator.parsing.names import Token, name_chunks, tokenize
from estimator.parsing.patterns import alternation, compiled, find_choice
from estimator.parsing.text import MAX_LENGTH, read_method
from estimator.parsing.words import (
    COMMAND_METHOD_WORDS,
    METHOD_PHRASES,
    MODEL_NOISE_WORDS,
)

# Words that ask for a fine-tuning whatever the method: the fine-tuning words of the full
# method's phrases (`estimator.parsing.words.METHOD_PHRASES`: «фул файнтюн», «полное
# дообучение», "full fine-tune") without the word that picks the method.
FINETUNE_WORDS: tuple[str, ...] = (
    "файнтюн*",
    "файн-тюн*",
    "дообуч*",
    "обучить",
    "тюнить",
    "зафайнтюнить",
    "fine-tun*",
    "finetun*",
    "fine tun*",
    "sft",
)
# «Влезет ли … на 4090», "will it fit on a 3090": a sizing question only with a card named
# (the verbs `estimator.followup` reads in a follow-up's question, their plural «влезут», and
# English "fit").
FIT_WORDS: tuple[str, ...] = (
    "влезет",
    "влезут",
    "пойдёт",
    "пойдет",
    "потянет",
    "поместится",
    "хватит",
    "запустится",
    "fit",
    "fits",
)
# Parts of Hugging Face model names that name a variant, not another model (the repositories
# deepseek-ai/DeepSeek-V2-Lite, Qwen/Qwen1.5-MoE-A2.7B, microsoft/Phi-3.5-MoE-instruct).
VARIANT_WORDS: frozenset[str] = frozenset(
    {"lite", "moe", "mini", "small", "medium", "large", "pro", "flash", "nano", "coder", "math"}
)
# A Hugging Face repository id: "org/name", Latin letters, digits, ".", "_" and "-".
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z][\w.-]*")
_LATIN = re.compile(r"[a-z0-9._\-]+")
# Token kinds of a name that say which version or size it is (`estimator.parsing.names`).
_VERSION_KINDS = frozenset({"num", "rev", "size", "active"})


@dataclass(frozen=True)
class UnknownModel:
    name: str  # as the user wrote it: «deepseek v2 lite»
    size_b: float | None  # the total size written in the name ("Foo-14B" -> 14.0), else None


def asks_sizing(text: str) -> bool:
    """A method or fine-tuning word, or a fit word with a card named."""
    if find_choice(METHOD_PHRASES, text) is not None:
        return True
    if compiled(alternation(FINETUNE_WORDS)).search(text):
        return True
    return bool(compiled(alternation(FIT_WORDS)).search(text)) and bool(_cards(text))


def _cards(text: str) -> list[tuple[int, int]]:
    """The spans of the cards named as words of their own: "rtx 4090", not the "a2" (an
    NVIDIA A2) inside "qwen1.5-moe-a2.7b"."""
    spans = name_chunks(text)
    starts, ends = {start for start, _end in spans}, {end for _start, end in spans}
    return [(s, e) for _label, s, e in gpus.find_in_text(text) if s in starts and e in ends]


def unknown_model_in_text(text: str, *, sizing: bool = False) -> UnknownModel | None:
    """The model-looking name of a sizing question that no catalog model matches; None when
    the text names a catalog model, asks no sizing (`sizing`: a /fit command, which does),
    or holds no such name."""
    text = text[:MAX_LENGTH]
    if find_model_in_text(text) is not None:
        return None
    if not sizing and not asks_sizing(text):
        return None
    rest = text
    for start, end in _cards(text):  # "rtx 4090" is no model's version
        rest = rest[:start] + " " * (end - start) + rest[end:]
    found = _model_looking(rest)
    if found is None or could_name(found.name):
        return None  # "qwen 2" is two catalog models, not a missing one: which is asked?
    return found


def _model_looking(text: str) -> UnknownModel | None:
    lines, vocabulary = name_words()
    chunks = name_chunks(text)
    for i, (start, end) in enumerate(chunks):
        raw = text[start:end]
        if (
            _REPO_ID.fullmatch(raw)
            and re.search(r"\d", raw.split("/", 1)[1])
            and not _card_pair(raw)
        ):
            return UnknownModel(raw, _size(tokenize(raw)))
        tokens = tokenize(raw)
        if not any(t.kind == "word" and t.text in lines and len(t.text) >= 3 for t in tokens):
            continue
        last = i
        while last + 1 < len(chunks) and last - i < 4:
            nxt = text[chunks[last + 1][0] : chunks[last + 1][1]]
            if not _continues(nxt, lines, vocabulary):
                break
            tokens = tokens + tokenize(nxt)
            last += 1
        if any(t.kind in _VERSION_KINDS for t in tokens):
            name = text[start : chunks[last][1]]
            return UnknownModel(name, _size(tokens))
    return None


def _card_pair(raw: str) -> bool:
    """ "a100/h100": cards side by side, not a repository id."""
    return any(
        (s, e) == (0, len(part)) for part in raw.split("/") for _l, s, e in gpus.find_in_text(part)
    )


def _continues(chunk: str, lines: frozenset[str], vocabulary: frozenset[str]) -> bool:
    """Whether the next chunk is a part of the name: Latin, no method or other model line,
    and a version or size («v2», "7b") or a word names are made of («lite», "instruct")."""
    lower = chunk.lower()
    if not _LATIN.fullmatch(lower) or lower in COMMAND_METHOD_WORDS:
        return False
    if find_choice(METHOD_PHRASES, lower) is not None:
        return False
    tokens = tokenize(chunk)
    if not tokens:
        return bool(re.search(r"[a-z]", lower))  # "instruct": noise, still the name
    for t in tokens:
        if t.kind == "word":
            known = t.text in vocabulary or t.text in VARIANT_WORDS or t.text in MODEL_NOISE_WORDS
            if not known or t.text in lines:
                return False
        elif t.kind == "ctxq" or (t.kind == "num" and len(t.text.replace(".", "")) > 4):
            return False  # "8k" is a context length; a long number is something else
    return True


def _size(tokens: list[Token]) -> float | None:
    """The total size a name says ("14b"); an "8x7b" or an active size ("a2.7b") is not."""
    for t in tokens:
        if t.kind == "size" and "x" not in t.text:
            return float(t.text)
    return None


def unknown_model_text(found: UnknownModel, asked: str, language: str) -> str:
    """The answer: the model is not in the catalog; its config.json, or a sizing by the size
    written in its name, else the /fit example with a placeholder for the size. The example
    keeps the method the user asked for."""
    method, _ruled_out = read_method(asked)
    tail = f" {method.value}" if method is not None else ""
    t = translator(language)
    if found.size_b is not None:
        return t("fit-unknown-model-sized", name=found.name, example=f"{found.size_b:g}b{tail}")
    return t("fit-unknown-model", name=found.name, example=f"Nb{tail}")
