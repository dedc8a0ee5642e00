"""Free-text sizing questions, Russian or English, to a ParsedQuery.

«хватит ли 4090 для llama 3 8b с лорой на 8к контексте?» -> Llama-3.1-8B, lora, ctx 8192,
target RTX 4090. The text is read in passes, most specific first; each pass blanks out what
it used so that a later, looser pass cannot read it again (the "8b" of a model name is not a
batch size, "10k примеров" is not a context length). What is not said is filled with
defaults and listed as assumptions. Anything unreadable is skipped: this never raises.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeVar

from estimator import gpus
from estimator.models import find_model_in_text
from estimator.parsing.build import (
    LIMITS,
    Given,
    check_epochs,
    check_int,
    check_size,
    finish,
    resolve_gpu,
)
from estimator.parsing.market import take_constraints
from estimator.parsing.patterns import (
    AMOUNT,
    DECIMAL,
    MILLIONS,
    SIZE,
    alternation,
    amount_value,
    compiled,
    find_choice,
    number_value,
)
from estimator.parsing.result import ParsedQuery, QueryError
from estimator.parsing.words import (
    BATCH_WORDS,
    BUDGET_WORDS,
    CHEAPEST_PHRASES,
    CHECKPOINTING_PHRASES,
    CTX_WORDS,
    DATASET_WORDS,
    EPOCH_WORDS,
    EXAMPLE_WORDS,
    FILLER_WORDS,
    GPU_COUNT_WORDS,
    LONGEST_WORDS,
    LOSS_PHRASES,
    METHOD_PHRASES,
    NEGATION_WORDS,
    NO_ADAPTER_PHRASES,
    NO_QUANTISATION_PHRASES,
    NUMBER_WORDS,
    OFFLOAD_PHRASES,
    OPTIMIZER_PHRASES,
    PARAMS_WORDS,
    PER_EXAMPLE_AFTER,
    PER_EXAMPLE_BEFORE,
    PRECISION_PHRASES,
    RANGE_WORDS,
    RANK_WORDS,
    RUBLE_WORDS,
    SHARDING_PHRASES,
    SOLVE_WORDS,
    STACK_PHRASES,
    TARGETS_PHRASES,
    TEXT_SIZE_UNITS,
    TEXT_WORDS,
    TOKEN_WORDS,
)
from estimator.query import Method

E = TypeVar("E")
MAX_LENGTH = 2000  # a question, not a document: bounds the regex work

_CTX = alternation(CTX_WORDS)
_TOKENS = alternation(TOKEN_WORDS)
_EXAMPLES = alternation(EXAMPLE_WORDS)
_NUMBER_WORD = alternation(NUMBER_WORDS)
_COUNT = rf"(?:(?<![\d.,])(\d{{1,3}})|({_NUMBER_WORD}))"  # "8", "двух"
_TIMES = r"[x×х*]"
_FILLER = alternation(FILLER_WORDS)
# Between a keyword and its value: "ctx=4096", "контекст: 4k", "batch of 8", "датасет из ~10k".
_GLUE = rf"\s*[=:~]?\s*(?:{_FILLER}\s*){{0,2}}~?\s*"

# (pattern, group with the value). Tried in order; the first that matches wins.
_DATASET = (
    rf"{alternation(DATASET_WORDS)}{_GLUE}({AMOUNT})(?:\s*{_EXAMPLES})?",
    rf"(?<![\w.,])({AMOUNT})\s*{_EXAMPLES}",
)
_UNITS = alternation(TEXT_SIZE_UNITS, left_boundary=False)
_TEXT = alternation(TEXT_WORDS)
# A dataset as text size: "датасет 2 гб", "2 гб текста", "500 MB of text".
_DATASET_BYTES = (
    rf"{alternation(DATASET_WORDS)}{_GLUE}({DECIMAL})\s*({_UNITS})(?:\s*{_TEXT})?",
    rf"(?<![\w.,])({DECIMAL})\s*({_UNITS})\s*{_TEXT}",
)
# A dataset in tokens: "датасет 50м токенов", "20M tokens" (millions of tokens are a dataset,
# never one sample's length).
_DATASET_TOKENS = (
    rf"{alternation(DATASET_WORDS)}{_GLUE}({AMOUNT})\s*{_TOKENS}",
    rf"(?<![\w.,])({DECIMAL}\s*{MILLIONS})\s*{_TOKENS}",
)
_BUDGET = (
    rf"(?:{alternation(BUDGET_WORDS)}\s*)?(?<![\w.,])({AMOUNT})\s*{alternation(RUBLE_WORDS)}",
)
_PER_EXAMPLE = (
    rf"{alternation(PER_EXAMPLE_BEFORE)}\s*({AMOUNT})\s*{_TOKENS}",
    rf"(?<![\w.,])({AMOUNT})\s*{_TOKENS}\s*{alternation(PER_EXAMPLE_AFTER)}",
)
# A range of lengths: «от 1 500 до 3 500 токенов», "1500-3500 tokens", "between 1k and 3k".
_TOKEN_RANGE = (
    rf"(?:(?<!\w)(?:от|from|between)\s*)?(?<![\w.,])({AMOUNT})\s*"
    rf"(?:[-–—]|{alternation(RANGE_WORDS)}|and)\s*({AMOUNT})\s*{_TOKENS}",
)
# The longest example: «максимум 2к», "longest 4k", "самый длинный пример — 3500 токенов".
# Fewer fillers than _GLUE: "max length 4096" is the ctx setting, not a fact about the data.
_LONGEST_GLUE = r"\s*[=:~—–-]?\s*(?:(?:is|of|about|around|около|примерно|порядка|до|в)\s+)?~?\s*"
_LONGEST = (
    rf"{alternation(LONGEST_WORDS)}{_LONGEST_GLUE}({AMOUNT})(?:\s*{_TOKENS})?",
    rf"(?<![\w.,])({AMOUNT})\s*{_TOKENS}\s*{alternation(LONGEST_WORDS)}",
)
_EPOCHS = (
    rf"(?<![\w.,])({DECIMAL})\s*{alternation(EPOCH_WORDS)}",
    rf"{alternation(EPOCH_WORDS)}\s*[=:]?\s*({DECIMAL})(?!\w|[.,]\d)",
)
_CONTEXT = (
    rf"{_CTX}{_GLUE}({AMOUNT})(?:\s*{_TOKENS})?",
    rf"(?<![\w.,])({AMOUNT})\s*(?:{_TOKENS}\s*)?(?:{_FILLER}\s*)?{_CTX}",
    rf"(?<![\w.,])({AMOUNT})\s*{_TOKENS}",
    r"(?<![\w.,])(\d+(?:[.,]\d+)?\s*[kк])(?!\w)",  # a bare "8k" is a context length
)
_BATCH = (rf"{alternation(BATCH_WORDS)}{_GLUE}(\d{{1,6}})(?!\w|[.,]\d)",)
_RANK = (
    rf"{alternation(RANK_WORDS)}{_GLUE}(\d{{1,6}})(?!\w|[.,]\d)",
    r"(?<!\w)r\s*=\s*(\d{1,6})(?!\w|[.,]\d)",
)
_GPU_COUNT = (
    rf"{_COUNT}\s*(?:{_TIMES}\s*)?{alternation(GPU_COUNT_WORDS)}",
    rf"{alternation(GPU_COUNT_WORDS)}\s*[=:]\s*(\d{{1,3}})(?!\w|[.,]\d)",
)
# A reverse question: solve words, an optional "lora"/"micro", the lever's word, and no number
# after it (the GPU and the model are read, and blanked, before this).
_SOLVE_LEAD = rf"(?:{alternation(SOLVE_WORDS)}[\s\-]+){{1,3}}(?:(?:a|the|lora|лоры)\s+)?"
_SOLVE_TAIL = rf"(?!{_GLUE}{AMOUNT})"
_SOLVE: tuple[tuple[str, str], ...] = (
    ("rank", rf"{_SOLVE_LEAD}{alternation(RANK_WORDS)}{_SOLVE_TAIL}"),
    ("bs", rf"{_SOLVE_LEAD}{alternation(BATCH_WORDS)}{_SOLVE_TAIL}"),
    ("ctx", rf"{_SOLVE_LEAD}{_CTX}{_SOLVE_TAIL}"),
)
_COUNT_BEFORE = re.compile(rf"{_COUNT}\s*(?:{_TIMES}\s*)?$", re.IGNORECASE)
_COUNT_AFTER = re.compile(rf"^\s*{_TIMES}\s*(\d{{1,3}})(?!\d|[.,]\d)", re.IGNORECASE)
_SIZE = rf"{SIZE}(?:\s*{alternation(PARAMS_WORDS)})?"


_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def language_of(text: str) -> str:
    """ "ru" for text with Cyrillic letters, else "en": the language to answer in."""
    return "ru" if _CYRILLIC.search(text) else "en"


class _Reader:
    """The text with what has been understood blanked out (offsets stay the same)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.rest = text

    def blank(self, start: int, end: int) -> None:
        self.rest = self.rest[:start] + " " * (end - start) + self.rest[end:]

    def take(self, patterns: tuple[str, ...]) -> str | None:
        """The value group of the first pattern that matches; the whole match is blanked."""
        for pattern in patterns:
            m = compiled(pattern).search(self.rest)
            if m:
                self.blank(m.start(), m.end())
                return next(g for g in m.groups() if g is not None)
        return None

    def choice(self, table: Mapping[E, tuple[str, ...]], *, blank: bool = True) -> E | None:
        found = find_choice(table, self.rest)
        if found is None:
            return None
        value, start, end = found
        if blank:
            self.blank(start, end)
        return value


def _count(match: re.Match[str]) -> int:
    digits, word = match.group(1), match.group(2)
    return int(digits) if digits else NUMBER_WORDS[re.sub(r"\s+", " ", word.lower())]


def _read_gpus(reader: _Reader, given: Given) -> None:
    """The GPU asked about (the first one named) and a count next to it: "8× H100"."""
    for n, (_label, start, end) in enumerate(gpus.find_in_text(reader.rest)):
        name = reader.text[start:end]
        window = max(0, start - 40)
        before = _COUNT_BEFORE.search(reader.rest[window:start])
        after = _COUNT_AFTER.search(reader.rest[end : end + 12])
        reader.blank(start, end)
        if n > 0:
            given.notes.append(f"extra_gpu:{name}")
            continue
        try:
            given.target_gpu, given.target_family = resolve_gpu(name)
        except QueryError:
            continue
        count = _count(before) if before else (int(after.group(1)) if after else None)
        if count is not None:
            _set_int(given, "gpus", "gpus", count)
        if given.gpus is not None:
            # The count is understood too: «на двух 4090» leaves no «двух» for other readers.
            if before:
                reader.blank(window + before.start(), window + before.end())
            elif after:
                reader.blank(end + after.start(), end + after.end())


def _set_int(given: Given, key: str, field: str, value: float) -> None:
    try:
        setattr(given, field, check_int(key, value))
    except QueryError:
        given.notes.append(f"out_of_range:{key}")


def _read_model(reader: _Reader, given: Given) -> None:
    found = find_model_in_text(reader.rest)
    if found is not None:
        given.model, start, end = found
        reader.blank(start, end)
    m = compiled(_SIZE).search(reader.rest)
    while m is not None:
        reader.blank(m.start(), m.end())
        size = number_value(m.group(1))
        if given.model is None and given.size_b is None and size is not None:
            try:
                given.size_b = check_size(size)
            except QueryError:
                given.notes.append("out_of_range:model")
        else:
            given.notes.append(f"extra_size:{m.group(1)}")
        m = compiled(_SIZE).search(reader.rest)


def _read_dataset_size(reader: _Reader, given: Given) -> None:
    for pattern in _DATASET_BYTES:
        m = compiled(pattern).search(reader.rest)
        if m:
            reader.blank(m.start(), m.end())
            value = number_value(m.group(1))
            unit = TEXT_SIZE_UNITS[m.group(2).lower()]
            if value is not None and value > 0:
                given.dataset_bytes = value * unit
            said = m.group(0).lower()
            if "русск" in said or "russian" in said:
                given.text_language = "ru"
            elif "англ" in said or "english" in said:
                given.text_language = "en"
            return
    tokens = reader.take(_DATASET_TOKENS)
    if tokens is not None and (value := amount_value(tokens, thousand=1000)) is not None:
        _set_int(given, "dataset_tokens", "dataset_tokens", round(value))


def _read_constraints(reader: _Reader, given: Given) -> None:
    """Offer constraints first: «до 300 ₽/ч» is a rate cap, not a budget of 300 ₽."""
    found, reader.rest = take_constraints(reader.rest)
    given.min_vram_gib = found.min_vram_gib
    given.hours_per_month = found.hours_per_month
    given.russia_only = found.russia_only or None
    given.max_rub_per_hour = found.max_rub_per_hour


def _read_lengths(reader: _Reader, given: Given) -> None:
    """A range of lengths (its top is the longest example) and the longest example."""
    for pattern in _TOKEN_RANGE:
        m = compiled(pattern).search(reader.rest)
        if m is None:
            continue
        low, high = (amount_value(g, thousand=1000) for g in m.groups())
        if low is not None and high is not None and 0 < low <= high:
            reader.blank(m.start(), m.end())
            _set_int(given, "tokens", "shortest_tokens", round(low))
            _set_int(given, "tokens", "longest_tokens", round(high))
            return
    longest = reader.take(_LONGEST)
    if longest is not None and (value := amount_value(longest, thousand=1024)) is not None:
        _set_int(given, "tokens", "longest_tokens", round(value))


def _read_solve(reader: _Reader, given: Given) -> None:
    """«какой максимальный контекст влезет», "what batch size fits": the lever to solve for
    (the first one asked); the words are blanked so that no number reader takes them."""
    found: tuple[int, int, str] | None = None
    for lever, pattern in _SOLVE:
        m = compiled(pattern).search(reader.rest)
        if m and (found is None or m.start() < found[0]):
            found = (m.start(), m.end(), lever)
    if found is None:
        return
    start, end, lever = found
    reader.blank(start, end)
    if given.solve is None:
        given.solve = lever


def _read_cheapest(reader: _Reader, given: Given) -> None:
    m = compiled(alternation(CHEAPEST_PHRASES)).search(reader.rest)
    if m is not None:
        reader.blank(m.start(), m.end())
        given.cheapest = True


def _read_counts(reader: _Reader, given: Given) -> None:
    _read_cheapest(reader, given)
    _read_solve(reader, given)
    _read_constraints(reader, given)
    budget = reader.take(_BUDGET)
    if budget is not None and (value := amount_value(budget, thousand=1000)) is not None:
        low, high = LIMITS["budget"]
        if low <= value <= high:
            given.budget_rub = value
    _read_dataset_size(reader, given)
    dataset = reader.take(_DATASET)
    if dataset is not None and (value := amount_value(dataset, thousand=1000)) is not None:
        _set_int(given, "dataset", "dataset_examples", round(value))
    _read_lengths(reader, given)  # before "3000 tokens per example" takes a range's top
    tokens = reader.take(_PER_EXAMPLE)
    if tokens is not None and (value := amount_value(tokens, thousand=1000)) is not None:
        _set_int(given, "tokens", "tokens_per_example", round(value))
    epochs = reader.take(_EPOCHS)
    if epochs is not None and (value := number_value(epochs)) is not None:
        try:
            given.epochs = check_epochs(value)
        except QueryError:
            given.notes.append("out_of_range:epochs")
    ctx = reader.take(_CONTEXT)
    if ctx is not None and (value := amount_value(ctx, thousand=1024)) is not None:
        _set_int(given, "ctx", "ctx", round(value))
    batch = reader.take(_BATCH)
    if batch is not None:
        _set_int(given, "bs", "micro_batch", int(batch))
    rank = reader.take(_RANK)
    if rank is not None:
        _set_int(given, "rank", "lora_rank", int(rank))
    if given.gpus is None:
        for pattern in _GPU_COUNT:
            m = compiled(pattern).search(reader.rest)
            if m:
                reader.blank(m.start(), m.end())
                value = _count(m) if m.re.groups == 2 else int(m.group(1))
                _set_int(given, "gpus", "gpus", value)
                break


# Negations that rule a method out. «без лоры» / "no lora" is not among LoRA's: it names a
# full fine-tune (NO_ADAPTER_PHRASES), so only «не лора» / "not lora" rule LoRA out.
_RULE_OUT_WORDS = tuple(
    w for w in NEGATION_WORDS if w not in {p.split()[0] for p in NO_ADAPTER_PHRASES}
)
_SEPARATOR = r"[\s\-_]*"


def _rule_out(reader: _Reader, given: Given) -> None:
    """Blank «без qlora», «не полный файнтюн», "not full" so the method reader cannot choose
    them, and note them ruled out."""
    for method, phrases in METHOD_PHRASES.items():
        words = _RULE_OUT_WORDS if method is Method.LORA else NEGATION_WORDS
        if method is Method.FULL:
            phrases = tuple(p for p in phrases if p not in NO_ADAPTER_PHRASES)
        pattern = compiled(rf"{alternation(words)}{_SEPARATOR}{alternation(phrases)}")
        while (m := pattern.search(reader.rest)) is not None:
            reader.blank(m.start(), m.end())
            if method not in given.ruled_out:
                given.ruled_out.append(method)
    m = compiled(alternation(NO_QUANTISATION_PHRASES)).search(reader.rest)
    if m is not None:
        reader.blank(m.start(), m.end())
        if Method.QLORA not in given.ruled_out:
            given.ruled_out.append(Method.QLORA)


def read_method(text: str) -> tuple[Method | None, tuple[Method, ...]]:
    """The method a text names, and the ones it rules out («без qlora»): for hints that must
    carry the user's own method."""
    reader = _Reader(text[:MAX_LENGTH])
    given = Given()
    _read_model(reader, given)  # "llama 3 8b" is not a method
    _rule_out(reader, given)
    return reader.choice(METHOD_PHRASES), tuple(given.ruled_out)


def _read_levers(reader: _Reader, given: Given) -> None:
    _rule_out(reader, given)
    method = reader.choice(METHOD_PHRASES)
    if method is not None:
        given.method = method
        other = reader.choice(METHOD_PHRASES)
        if other is not None and other is not method:
            given.notes.append(f"extra_method:{other.value}")
    given.optimizer = reader.choice(OPTIMIZER_PHRASES)
    given.precision = reader.choice(PRECISION_PHRASES)
    given.shard = reader.choice(SHARDING_PHRASES)
    given.targets = reader.choice(TARGETS_PHRASES)
    # "unsloth" names both the stack and its offloaded checkpointing: read both unblanked.
    given.stack = reader.choice(STACK_PHRASES, blank=False)
    given.grad_checkpointing = reader.choice(CHECKPOINTING_PHRASES)
    given.offload = reader.choice(OFFLOAD_PHRASES)
    given.loss = reader.choice(LOSS_PHRASES)


def read_levers_and_counts(text: str, given: Given) -> list[str]:
    """Fill what `given` lacks from free words (the command grammar's unreadable positional
    words: «батч 4», «без gradient checkpointing»); returns the words still not understood."""
    reader = _Reader(text[:MAX_LENGTH])
    found = Given(text_language=given.text_language)
    _read_gpus(reader, found)
    _read_levers(reader, found)
    _read_counts(reader, found)
    given.ruled_out += [m for m in found.ruled_out if m not in given.ruled_out]
    given.asked_about += [k for k in found.asked_about if k not in given.asked_about]
    for name in found.__dataclass_fields__:
        if name in ("notes", "text_language", "ruled_out", "asked_about"):
            continue
        if getattr(given, name) is None and getattr(found, name) is not None:
            setattr(given, name, getattr(found, name))
    return reader.rest.split()


def parse_question(text: str) -> ParsedQuery | None:
    """A sizing question in free text, or None when the text names no model and no size."""
    if not isinstance(text, str) or not text.strip():
        return None
    reader = _Reader(text[:MAX_LENGTH])
    given = Given(text_language=language_of(text))
    _read_model(reader, given)
    if given.model is None and given.size_b is None:
        return None  # greetings, prices, "когда появятся A100?": not a sizing question
    _read_gpus(reader, given)
    _read_levers(reader, given)
    _read_counts(reader, given)
    if given.solve == "rank" and given.method is Method.FULL:
        given.solve = None  # a full fine-tune has no rank to solve for
        given.notes.append("unused:rank")
    try:
        return finish(given)
    except QueryError:
        return None
