"""«Что такое QLoRA?», "what is gradient checkpointing?": a term of fine-tuning, explained.

A question that asks what a term means, and nothing else, gets a short explanation in the
person's language (estimator/locales/*/glossary.ftl) with what it does to memory and time and
a /fit example, instead of the command help. The facts stated there are the ones the sizing
itself uses (docs/estimator.md); where the Russian guides the product grew from get one wrong
(full fine-tuning at «4× параметров в FP16», LoRA rank 64 «почти как full»), the entry says
what is right.
"""

from __future__ import annotations

import re
from enum import StrEnum

from estimator.parsing.patterns import alternation, compiled


class Term(StrEnum):
    LORA = "lora"
    QLORA = "qlora"
    FULL = "full"
    CHECKPOINTING = "gc"
    OFFLOAD = "offload"
    SHARDING = "shard"
    ACCUMULATION = "ga"
    PACKING = "packing"
    ADAM_8BIT = "adam8bit"
    PRECISION = "bf16"
    CONTEXT = "ctx"
    BATCH = "bs"
    UNSLOTH = "unsloth"


# The names people use for each term, as patterns (`*` any ending).
_NAMES: dict[Term, tuple[str, ...]] = {
    Term.QLORA: ("qlora", "q-lora", "q lora", "клора*", "ку лора*", "кьюлора*"),
    Term.LORA: ("lora", "лора*", "лору", "low rank adaptation", "low-rank adaptation"),
    Term.FULL: ("full fine-tun*", "full finetun*", "полн* дообучени*", "полн* файнтюн*"),
    Term.CHECKPOINTING: (
        "gradient checkpointing", "activation checkpointing", "checkpointing", "gc",
        "чекпоинтинг*", "чекпойнтинг*",
    ),
    Term.OFFLOAD: ("cpu offload*", "offload*", "оффлоад*", "офлоад*"),
    Term.SHARDING: ("fsdp", "zero3", "zero-3", "zero 3", "deepspeed", "дипспид*", "шардинг*"),
    Term.ACCUMULATION: (
        "gradient accumulation", "grad accum*", "ga", "накоплени* градиент*",
        "аккумуляци* градиент*",
    ),
    Term.PACKING: ("packing", "sample packing", "упаковк*", "пакинг*"),
    Term.ADAM_8BIT: ("8-bit adam*", "8bit adam*", "8 bit adam*", "adamw8bit", "adam8bit"),
    Term.PRECISION: ("bf16", "bfloat16", "mixed precision", "смешанн* точност*"),
    Term.CONTEXT: ("ctx", "context length", "контекст", "длин* контекста"),
    Term.BATCH: ("batch size", "micro batch", "micro-batch", "батч", "микробатч"),
    Term.UNSLOTH: ("unsloth", "анслот*"),
}  # fmt: skip
# How a question about a term opens and ends: the whole message is the question.
_OPEN = (
    "что такое", "что это за", "что это", "что значит", "что означает", "зачем нужен",
    "зачем нужна", "зачем нужно", "зачем", "объясни", "объясните", "расскажи про",
    "расскажите про", "what is", "what's", "whats", "what are", "explain", "what does",
)  # fmt: skip
_CLOSE = ("mean", "means", "такое", "это")
_LEAD = ("а", "и", "ну", "so", "and", "ok", "ок")
_MAX_LENGTH = 60


def term_asked(text: str) -> Term | None:
    """The term a message asks to explain, when that is all it asks."""
    folded = " ".join(text.lower().replace("ё", "е").split()).strip(" ?!.")
    if len(folded) > _MAX_LENGTH:
        return None
    opened = re.match(rf"(?:{alternation(_LEAD)}\s+)?{alternation(_OPEN)}\s+(.+)$", folded)
    if opened is None:
        return None
    rest = re.sub(rf"\s+{alternation(_CLOSE)}$", "", opened.group(1)).strip(' ?!.,«»"')
    for term, names in _NAMES.items():
        if compiled(rf"^{alternation(names)}$").match(rest):
            return term
    return None
