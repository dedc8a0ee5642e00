"""A question about a lever is not an instruction to use it.

«нужен ли offload?», «нужен ли мне оффлоад», "do we need CPU offload", "do we need
DeepSpeed?", «стоит ли 8-битный оптимизатор?», «имеет смысл включать gradient
checkpointing?», "is flash attention worth it?", «с offload или без?»: the lever goes into
`Given.asked_about` (its FitQuery field name) and is blanked, so no reader sets it; the answer
compares the run with it and without it. «а если с gradient checkpointing?» is a change: no
question word stands next to the lever.

The rule is grammar, not a list of phrases per lever. A lever is asked about when, in its
clause,

- a need word (`NEED_WORDS` by lemma: нужный, надо, стоить, смысл, помочь, need, worth,
  should, help, ...) stands right before it, with only particles, pronouns and infinitives
  between («нужен ли мне», «стоит ли брать», "do we need to enable"), or right after it
  («offload нужен?», "is X needed", "would X help?");
- and the clause is a question: the particle «ли», a question mark, or an English auxiliary
  opening it ("do", "should", "is", ...);
- or the lever stands with «или без» / "or not" / "with or without".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from estimator.parsing.build import Given
from estimator.parsing.lemmas import is_infinitive, lemmas
from estimator.parsing.numbers import Token, tokenize
from estimator.parsing.patterns import alternation
from estimator.parsing.words import (
    CHECKPOINTING_PHRASES,
    EITHER_WAY_AFTER,
    EITHER_WAY_BEFORE,
    HYPOTHETICAL_OPENERS,
    LEVER_NAMES,
    LOSS_PHRASES,
    METHOD_PHRASES,
    NEED_WORDS,
    OFFLOAD_PHRASES,
    OPTIMIZER_PHRASES,
    PRECISION_PHRASES,
    QUESTION_OPENERS,
    QUESTION_SKIPS,
    SHARDING_PHRASES,
    STACK_PHRASES,
)

_CLAUSE_END = frozenset({".", "!", "?", ";", ",", "\n", ":"})


def _phrases(table: Mapping[Any, tuple[str, ...]]) -> tuple[str, ...]:
    return tuple(phrase for phrases in table.values() for phrase in phrases)


# FitQuery field -> every phrase that names the lever, with or without a value.
_LEVERS: dict[str, str] = {
    field: alternation(phrases)
    for field, phrases in {
        "offload": _phrases(OFFLOAD_PHRASES) + LEVER_NAMES["offload"],
        "shard": _phrases(SHARDING_PHRASES) + LEVER_NAMES["shard"],
        "optimizer": _phrases(OPTIMIZER_PHRASES) + LEVER_NAMES["optimizer"],
        # Before checkpointing: "unsloth" names both, and a question about it asks which stack.
        "stack": _phrases(STACK_PHRASES),
        "grad_checkpointing": _phrases(CHECKPOINTING_PHRASES) + LEVER_NAMES["grad_checkpointing"],
        "attention": LEVER_NAMES["attention"],
        "precision": _phrases(PRECISION_PHRASES),
        "loss": _phrases(LOSS_PHRASES),
        "method": _phrases(METHOD_PHRASES),
    }.items()
}


# One pattern for every lever, a named group each, in the order above: where two name the
# same words ("unsloth"), the first group is the one asked about.
_MENTION = re.compile(
    "|".join(f"(?P<{field}>{pattern})" for field, pattern in _LEVERS.items()), re.I
)


def _mentions(rest: str) -> Iterator[tuple[str, int, int]]:
    for m in _MENTION.finditer(rest):
        assert m.lastgroup is not None
        yield m.lastgroup, m.start(), m.end()


def _forms(token: Token) -> frozenset[str]:
    return lemmas(token.text) if token.kind == "word" else frozenset({token.text})


def _is_need(tokens: list[Token], k: int) -> bool:
    """Whether tokens[k] says a need. «стоит» after «сколько» is a price («сколько стоит 8b
    lora?» asks what the LoRA run costs), never «is it worth»."""
    if not _forms(tokens[k]) & NEED_WORDS:
        return False
    return not (k > 0 and tokens[k - 1].folded == "сколько" and "стоить" in _forms(tokens[k]))


def _skippable(token: Token) -> bool:
    return token.folded in QUESTION_SKIPS or is_infinitive(token.text)


def _clause(tokens: list[Token], first: int, last: int) -> tuple[int, int]:
    """The token range of the clause around tokens[first:last] (its end mark included)."""
    start = first
    while start > 0 and tokens[start - 1].text not in _CLAUSE_END:
        start -= 1
    end = last
    while end < len(tokens) and tokens[end].text not in _CLAUSE_END:
        end += 1
    return start, min(end + 1, len(tokens))


def _starts(words: list[str], phrases: tuple[tuple[str, ...], ...]) -> bool:
    return any(tuple(words[: len(p)]) == p for p in phrases)


def _asked(tokens: list[Token], first: int, last: int) -> tuple[int, int] | None:
    """The token span of the question around the lever at tokens[first:last], or None."""
    start, end = _clause(tokens, first, last)
    words = [t.folded for t in tokens[start:end]]
    after = [t.folded for t in tokens[last:end]]
    before = [t.folded for t in tokens[start:first]]
    if _starts(after, EITHER_WAY_AFTER):
        return first, last + 2
    if any(tuple(before[-len(p) :]) == p for p in EITHER_WAY_BEFORE):
        return first - 3, last
    question = "?" in words or "ли" in words or (words and words[0] in QUESTION_OPENERS)
    if not question:
        return None
    k = first - 1
    while k >= start and _skippable(tokens[k]):
        k -= 1
    if k >= start and _is_need(tokens, k):
        if _starts(words, HYPOTHETICAL_OPENERS) and k == start:
            return None
        return k, last
    k = last
    while k < end and _skippable(tokens[k]):
        k += 1
    if k < end and _is_need(tokens, k):
        # «offload нужен?», "is X needed here?": the need word closes the clause; in «qlora
        # нужен ли offload» it asks about what follows it.
        rest = tokens[k + 1 : end]
        if all(_skippable(t) or t.text in _CLAUSE_END or t.folded == "worth" for t in rest):
            return first, k + 1
    return None


# Any word a question about a lever needs, by its stem: most messages have none, and are
# passed over without looking for levers.
_QUESTION_STEMS = re.compile(
    r"нуж|надо|необход|стои|смысл|помо[жг]|требу|обязат|понадоб|или\s+(?:без|нет)"
    r"|need|worth|should|help|requir|necess|recommend|mandatory|or\s+not|or\s+without",
    re.IGNORECASE,
)


def take_questions(rest: str, given: Given) -> str:
    """Note the levers `rest` asks about in `given.asked_about` and return `rest` with each
    question blanked (the same length), so that no reader sets the lever."""
    if not _QUESTION_STEMS.search(rest):
        return rest
    tokens = tokenize(rest)
    found: list[tuple[str, int, int]] = []
    for field, start, end in sorted(_mentions(rest), key=lambda m: (m[1], m[1] - m[2])):
        if any(s <= start < e for _, s, e in found):
            continue  # "cpu offload" and "offload" at one place: the longer one
        first = next((n for n, t in enumerate(tokens) if t.end > start), len(tokens))
        last = next((n for n, t in enumerate(tokens) if t.start >= end), len(tokens))
        asked = _asked(tokens, first, last)
        if asked is None:
            continue
        if field == "method" and first > 0 and tokens[first - 1].folded == "to":
            # "how much VRAM do I need to full fine-tune…": the method is the verb of what
            # they will do, the need is for memory; "do I need (to use) qlora…" asks about it
            continue
        found.append((field, tokens[asked[0]].start, tokens[max(asked[1], asked[0] + 1) - 1].end))
    for field, start, end in found:
        if field not in given.asked_about:
            given.asked_about.append(field)
        rest = rest[:start] + " " * (end - start) + rest[end:]
    return rest
