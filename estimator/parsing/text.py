"""Free-text sizing questions, Russian or English, to a ParsedQuery.

«хватит ли 4090 для llama 3 8b с лорой на 8к контексте?» -> Llama-3.1-8B, lora, ctx 8192,
target RTX 4090. The text is read in passes, most specific first; each pass blanks out what
it used so that a later, looser pass cannot read it again (the "8b" of a model name is not a
batch size, "10k примеров" is not a context length). What is not said is filled with
defaults and listed as assumptions. Anything unreadable is skipped: this never raises.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TypeVar

from estimator import gpus
from estimator.models import find_model_in_text
from estimator.parsing.build import (
    ASK_EPOCHS_NOTE,
    ASK_TIME_NOTE,
    LIMITS,
    Given,
    check_int,
    check_size,
    finish,
    resolve_gpu,
)
from estimator.parsing.fuzzy import fuzzy_method
from estimator.parsing.market import take_constraints_said
from estimator.parsing.names import key, tokenize
from estimator.parsing.numbers import Unit, quantities
from estimator.parsing.patterns import (
    AMOUNT,
    DECIMAL,
    alternation,
    compiled,
    find_choice,
    language_of,
)
from estimator.parsing.questions import take_questions
from estimator.parsing.result import ParsedQuery, QueryError, Slot
from estimator.parsing.slots import read_slots
from estimator.parsing.words import (
    APPLE_PHRASES,
    ASK_EPOCHS_PHRASES,
    ASK_TIME_PHRASES,
    BATCH_WORDS,
    BILLING_PHRASES,
    CHEAPEST_PHRASES,
    CHECKPOINTING_PHRASES,
    CTX_WORDS,
    FILLER_WORDS,
    INFERENCE_PHRASES,
    INT8_BASE_PHRASES,
    LEVER_NAMES,
    LOSS_PHRASES,
    METHOD_PHRASES,
    NEGATED_VERBS,
    NEGATION_WORDS,
    NO_ADAPTER_PHRASES,
    NO_QUANTISATION_PHRASES,
    NUMBER_WORDS,
    OFFLOAD_PHRASES,
    OPTIMIZER_PHRASES,
    PACKING_PHRASES,
    PRECISION_PHRASES,
    PREFERENCE_PHRASES,
    PRETRAIN_PHRASES,
    RANK_WORDS,
    SHARDING_PHRASES,
    SOLVE_WORDS,
    STACK_PHRASES,
    TARGETS_PHRASES,
    VRAM_UNITS,
)
from estimator.query import (
    Checkpointing,
    Method,
    Offload,
    Optimizer,
    Packing,
    Sharding,
    Stack,
)

E = TypeVar("E")
MAX_LENGTH = 2000  # a question, not a document: bounds the regex work

_CTX = alternation(CTX_WORDS)
_ACTIVATIONS = re.compile(r"\s+(?:актива|activation)", re.IGNORECASE)
_NUMBER_WORD = alternation(NUMBER_WORDS)
_COUNT = rf"(?:(?<![\d.,])(\d{{1,3}})|({_NUMBER_WORD}))"  # "8", "двух"
_TIMES = r"[x×х*]"
_FILLER = alternation(FILLER_WORDS)
# Between a keyword and its value: "ctx=4096", "контекст: 4k", "batch of 8".
_GLUE = rf"\s*[=:~]?\s*(?:{_FILLER}\s*){{0,2}}~?\s*"
# A reverse question: solve words, an optional "lora"/"micro", the lever's word, and no value
# after it (the GPU and the model are read, and blanked, before this); a memory size after it
# is the card's, not a value («максимальный контекст на 16 гб»).
_SOLVE_LEAD = rf"(?:{alternation(SOLVE_WORDS)}[\s\-]+){{1,3}}(?:(?:a|the|lora|лоры)\s+)?"
_SOLVE_TAIL = rf"(?!{_GLUE}{AMOUNT}(?![\d.,]|\s*{alternation(VRAM_UNITS, left_boundary=False)}))"
_SOLVE: tuple[tuple[str, str], ...] = (
    ("rank", rf"{_SOLVE_LEAD}{alternation(RANK_WORDS)}{_SOLVE_TAIL}"),
    ("bs", rf"{_SOLVE_LEAD}{alternation(BATCH_WORDS)}{_SOLVE_TAIL}"),
    ("ctx", rf"{_SOLVE_LEAD}{_CTX}{_SOLVE_TAIL}"),
)
_COUNT_BEFORE = re.compile(rf"{_COUNT}\s*(?:{_TIMES}\s*)?$", re.IGNORECASE)
# An English article right before a card's name counts one card ("an L40S", "a 4090").
_ONE_CARD = re.compile(r"(?<![\w-])(?:a|an)\s+$", re.IGNORECASE)
_COUNT_AFTER = re.compile(rf"^\s*{_TIMES}\s*(\d{{1,3}})(?!\d|[.,]\d)", re.IGNORECASE)


class _Reader:
    """The text with what has been understood blanked out (offsets stay the same)."""

    def __init__(self, text: str, given: Given) -> None:
        self.text = text
        self.rest = text
        self.given = given

    def blank(self, start: int, end: int) -> None:
        self.rest = self.rest[:start] + " " * (end - start) + self.rest[end:]

    def said(self, slot: Slot, start: int, end: int) -> None:
        """`slot` was set by text[start:end]: blank it and keep the words for the answer."""
        self.blank(start, end)
        self.given.said.setdefault(slot, " ".join(self.text[start:end].split()))

    def choice(
        self, table: Mapping[E, tuple[str, ...]], slot: Slot | None = None, *, blank: bool = True
    ) -> E | None:
        found = find_choice(table, self.rest)
        if found is None:
            return None
        value, start, end = found
        if slot is not None:
            self.given.said.setdefault(slot, " ".join(self.text[start:end].split()))
        if blank:
            self.blank(start, end)
        return value


def _count(match: re.Match[str]) -> int:
    digits, word = match.group(1), match.group(2)
    return int(digits) if digits else NUMBER_WORDS[re.sub(r"\s+", " ", word.lower())]


def _count_before(rest: str) -> tuple[int, int] | None:
    """The card count right before a card's name, in figures or words in any case form
    («8×», «на двух», «четырьмя», "two"): (count, where it starts in `rest`)."""
    idiom = _COUNT_BEFORE.search(rest)
    found = quantities(rest)
    if found:
        last = found[-1]
        tail = rest[last.end :]
        whole = last.value() == int(last.value()) and last.scale == 0
        if whole and last.unit in (None, Unit.TIMES) and re.fullmatch(rf"\s*{_TIMES}?\s*", tail):
            return int(last.value()), last.start
    if idiom is not None:
        return _count(idiom), idiom.start()
    return None


def _read_gpus(reader: _Reader, given: Given) -> None:
    """The GPU asked about (the first one named) and a count next to it: "8× H100"."""
    for n, (_label, start, end) in enumerate(gpus.find_in_text(reader.rest)):
        name = reader.text[start:end]
        window = max(0, start - 40)
        before = _count_before(reader.rest[window:start])
        after = _COUNT_AFTER.search(reader.rest[end : end + 12])
        reader.blank(start, end)
        count = before[0] if before else (int(after.group(1)) if after else None)
        if n > 0:
            # «сравни 2x a100 и 1x h100»: a compared card keeps the count named with it.
            low, high = LIMITS["gpus"]
            counted = count is not None and low <= count <= high
            given.notes.append(f"extra_gpu:{name}:{count}" if counted else f"extra_gpu:{name}")
            if counted and before:
                reader.blank(window + before[1], start)
            elif counted and after:
                reader.blank(end, end + after.end())
            continue
        try:
            given.target_gpu, given.target_family = resolve_gpu(gpus.singular(name))
        except QueryError:
            continue
        reader.said(Slot.GPU, start, end)
        if count is None and _ONE_CARD.search(reader.rest[window:start]):
            count = 1  # "is an L40S enough?" after a sizing on two: one card, as said
        if count is not None:
            _set_int(given, "gpus", "gpus", count)
        if given.gpus is not None:
            # The count is understood too: «на двух 4090» leaves no «двух» for other readers.
            if before:
                reader.said(Slot.GPUS, window + before[1], end)
            elif after:
                reader.said(Slot.GPUS, start, end + after.end())


def _set_int(given: Given, key: str, field: str, value: float) -> None:
    try:
        setattr(given, field, check_int(key, value))
    except QueryError:
        given.notes.append(f"out_of_range:{key}")


def _spelling_of(alias: str, model_id: str) -> bool:
    """ "Mixtral-8x7B" for Mixtral-8x7B-v0.1, "GLM-4-9B-chat" for GLM-4-9B: the same model
    written shorter or with its variant, not another model sized as this one."""
    a, b = (re.sub(r"[\W_]", "", name).lower() for name in (alias, model_id))
    return a.startswith(b) or b.startswith(a)


def _read_model(reader: _Reader, given: Given) -> None:
    """The model named, else a bare size («13b», «13 млрд параметров»; «1 млрд токенов» is
    a dataset, not a size: the number reader gives it its unit)."""
    found = find_model_in_text(reader.rest)
    if found is not None:
        given.model, start, end = found
        reader.said(Slot.MODEL, start, end)
        # "Llama 3.1 70B" is the catalogue's Llama-3.3-70B by shape: the answer says which
        # name it read as which model, or a person sees another model's name on it.
        asked = key(tokenize(reader.text[start:end]))
        alias = next((a for a in given.model.aliases if key(tokenize(a)) == asked), None)
        if alias is not None and not _spelling_of(alias, given.model.id):
            given.notes.append(f"{ALIAS_NOTE}:{alias}")
    for size in quantities(reader.rest):
        if size.unit is not Unit.PARAMS:
            continue
        if given.model is None and given.size_b is None:
            try:
                given.size_b = check_size(size.mantissa)
            except QueryError:
                given.notes.append("out_of_range:model")
                reader.blank(size.start, size.end)
                continue
            reader.said(Slot.MODEL, size.start, size.end)
        else:
            given.notes.append(f"extra_size:{size.mantissa:g}")
            reader.blank(size.start, size.end)


def _read_constraints(reader: _Reader, given: Given) -> None:
    """Offer constraints first: «до 300 ₽/ч» is a rate cap, not a budget of 300 ₽."""
    found, spans, reader.rest = take_constraints_said(reader.rest)
    given.min_vram_gib = found.min_vram_gib
    given.hours_per_month = found.hours_per_month
    given.russia_only = found.russia_only or None
    given.max_rub_per_hour = found.max_rub_per_hour
    given.max_rub_per_gpu_hour = found.max_rub_per_gpu_hour
    given.max_rub_per_month = found.max_rub_per_month
    for name, (start, end) in spans.items():
        given.said.setdefault(Slot(name), " ".join(reader.text[start:end].split()))


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
    if given.solve is None:
        given.solve = lever
        reader.said(Slot.SOLVE, start, end)
    else:
        reader.blank(start, end)


def _read_cheapest(reader: _Reader, given: Given) -> None:
    m = compiled(alternation(CHEAPEST_PHRASES)).search(reader.rest)
    if m is not None:
        reader.said(Slot.CHEAPEST, m.start(), m.end())
        given.cheapest = True


def _read_billing(reader: _Reader, given: Given) -> None:
    """«помесячно», «почасовая», "monthly": the billing asked for (the planner's side)."""
    billing = reader.choice(BILLING_PHRASES, Slot.BILLING)
    if billing is not None:
        given.billing = billing


def _read_counts(reader: _Reader, given: Given, *, followup: bool = False) -> None:
    _read_cheapest(reader, given)
    _read_solve(reader, given)
    _read_constraints(reader, given)
    _read_billing(reader, given)
    reader.rest = read_slots(reader.text, reader.rest, given, followup=followup)


# Negations that rule a method out. «без лоры» / "no lora" is not among LoRA's: it names a
# full fine-tune (NO_ADAPTER_PHRASES), so only «не лора» / "not lora" rule LoRA out.
_RULE_OUT_WORDS = tuple(
    w for w in NEGATION_WORDS if w not in {p.split()[0] for p in NO_ADAPTER_PHRASES}
)
_SEPARATOR = r"[\s\-_]*"
# What a negation may reach its method or lever over: «не хочу использовать qlora».
_OVER_VERBS = rf"(?:{_SEPARATOR}{alternation(NEGATED_VERBS)}){{0,3}}"


def _rule_out(reader: _Reader, given: Given) -> None:
    """Blank «без qlora», «не полный файнтюн», "not full" so the method reader cannot choose
    them, and note them ruled out."""
    for method, phrases in METHOD_PHRASES.items():
        words = _RULE_OUT_WORDS if method is Method.LORA else NEGATION_WORDS
        if method is Method.FULL:
            phrases = tuple(p for p in phrases if p not in NO_ADAPTER_PHRASES)
        pattern = compiled(rf"{alternation(words)}{_OVER_VERBS}{_SEPARATOR}{alternation(phrases)}")
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
    given = Given()
    reader = _Reader(text[:MAX_LENGTH], given)
    _read_model(reader, given)  # "llama 3 8b" is not a method
    _rule_out(reader, given)
    return reader.choice(METHOD_PHRASES), tuple(given.ruled_out)


def _read_levers(reader: _Reader, given: Given) -> None:
    reader.rest = take_questions(reader.rest, given)  # «нужен ли offload?»: asked, not set
    _rule_out(reader, given)
    method = reader.choice(METHOD_PHRASES, Slot.METHOD) or _fuzzy_method(reader)
    scratch = reader.choice({Method.FULL: PRETRAIN_PHRASES}, Slot.METHOD)
    if scratch is not None:
        given.notes.append(PRETRAIN_NOTE)  # «с нуля»: a full run, said to be one
        method = method or scratch
    if method is not None:
        given.method = method
        other = reader.choice(METHOD_PHRASES)
        if other is not None and other is not method:
            given.notes.append(f"extra_method:{other.value}")
            if _METHODS_EITHER.search(reader.text) and "method" not in given.asked_about:
                # «lora или qlora, что лучше?»: the first is sized, the others compared
                given.asked_about.append("method")
    # A lever said with a negation before it («без unsloth», "without 8-bit adam», «не
    # используем packing») is never set to what it names: to the plain alternative where
    # there is one, else left to its default.
    given.optimizer = _lever(reader, OPTIMIZER_PHRASES, Slot.OPTIMIZER, Optimizer.ADAMW)
    given.precision = _lever(reader, PRECISION_PHRASES, Slot.PRECISION, None)
    given.shard = _lever(reader, SHARDING_PHRASES, Slot.SHARD, Sharding.DDP)
    given.targets = _lever(reader, TARGETS_PHRASES, Slot.TARGETS, None)
    # "unsloth" names both the stack and its offloaded checkpointing: read both unblanked.
    if _negated(reader, STACK_PHRASES) is not None:
        given.stack = _lever(reader, STACK_PHRASES, Slot.STACK, Stack.HF)
        _lever(reader, {Checkpointing.UNSLOTH: CHECKPOINTING_PHRASES[Checkpointing.UNSLOTH]})
    else:
        given.stack = reader.choice(STACK_PHRASES, Slot.STACK, blank=False)
    given.grad_checkpointing = given.grad_checkpointing or _lever(
        reader, CHECKPOINTING_PHRASES, Slot.GRAD_CHECKPOINTING, Checkpointing.OFF
    )
    given.offload = _lever(reader, OFFLOAD_PHRASES, Slot.OFFLOAD, Offload.NONE)
    _note_int8_base(reader, given)
    _read_apple(reader, given)
    # Not blanked: the word still parts the numbers around it from the cues before it.
    if compiled(alternation(INFERENCE_PHRASES)).search(reader.rest) is not None:
        given.notes.append(INFERENCE_NOTE)
    objective = compiled(alternation(PREFERENCE_PHRASES)).search(reader.rest)
    if objective is not None:
        given.notes.append(f"{PREFERENCE_NOTE}:{objective.group().lower()}")
    if given.offload is None:
        _ask_bare_offload(reader, given)
    given.loss = _lever(reader, LOSS_PHRASES, Slot.LOSS, None)
    given.packing = _lever(reader, PACKING_PHRASES, Slot.PACKING, Packing.NONE)


# The note of a base asked for in 8 bits (sizing_text says the 16-bit base was sized).
INT8_BASE_NOTE = "int8_base"
# The note of a question about inference (sizing_text adds what running the model holds).
INFERENCE_NOTE = "inference"
# The note of a model named by another name of the same shapes: "alias:Llama-3.1-70B".
ALIAS_NOTE = "alias"
# The note of a Mac named as the machine (the answer sizes NVIDIA cards and says so).
APPLE_NOTE = "apple"
# The note of a model trained from scratch (sized as a full fine-tune, said so).
PRETRAIN_NOTE = "pretrain"
# The note of a preference objective named: "preference:dpo", "preference:orpo".
PREFERENCE_NOTE = "preference"
_ANY_METHOD = alternation([p for phrases in METHOD_PHRASES.values() for p in phrases])
# Two methods set against each other: «lora или qlora», "full vs lora", «qlora против lora».
# «сравни lora и qlora», "compare lora and qlora", «разница между lora и qlora»: «и» / "and"
# set two methods against each other after a word that asks to compare.
_METHODS_EITHER = compiled(
    rf"{_ANY_METHOD}\s*(?:,\s*)?(?:или|либо|or|vs\.?|versus|против)\s+{_ANY_METHOD}"
    rf"|(?:сравни\w*|сравнен\w*|разниц\w*|отлича\w*|compare|comparison|difference)\W+"
    rf"(?:\w+\W+){{0,2}}{_ANY_METHOD}\s*(?:,\s*)?(?:и|and|с|with)\s+{_ANY_METHOD}"
)


def _note_said(
    reader: _Reader,
    given: Given,
    phrases: tuple[str, ...],
    note: str,
    tail: re.Pattern[str] | None = None,
) -> None:
    """Blank the first of `phrases` in the text, with what `tail` matches right after it,
    and note that it was said (once)."""
    m = compiled(alternation(phrases)).search(reader.rest)
    if m is not None:
        after = tail.match(reader.rest[m.end() :]) if tail else None
        reader.blank(m.start(), m.end() + (after.end() if after else 0))
        if note not in given.notes:
            given.notes.append(note)


# A Mac's chip and memory after its name: «маке m2 с 32 гб», "macbook m3 max 64gb".
_APPLE_TAIL = re.compile(
    r"^(?:\s*(?:pro|air|max|ultra|mini|studio|на|с|with|on|m[1-4]|\d{2}(?:[.,]\d)?\s*(?:дюйм\w*|\"|inch\w*)))*"
    rf"(?:\s*(?:с|with|на)?\s*(?:{DECIMAL})\s*{alternation(VRAM_UNITS, left_boundary=False)}"
    r"(?:\s*(?:памяти|озу|ram|unified memory|of memory|memory))?)?",
    re.IGNORECASE,
)


def _read_apple(reader: _Reader, given: Given) -> None:
    """«на маке m2 с 32 гб», "on my macbook m3 max 64gb": the machine is a Mac, which the
    estimate does not size (it sizes NVIDIA cards); the note makes the answer say so, and the
    Mac's chip and memory are blanked so that no reader takes them for a card or a floor."""
    _note_said(reader, given, APPLE_PHRASES, APPLE_NOTE, tail=_APPLE_TAIL)


def _note_int8_base(reader: _Reader, given: Given) -> None:
    """«lora в 8 бит», "load_in_8bit": an 8-bit base (LLM.int8) is not sized; the answer says
    it sized the 16-bit base, an upper bound (an 8-bit optimizer is read before this)."""
    _note_said(reader, given, INT8_BASE_PHRASES, INT8_BASE_NOTE)


_NEGATED_BEFORE = compiled(rf"{alternation(NEGATION_WORDS)}{_OVER_VERBS}{_SEPARATOR}$")
# Turned off after its name: «чекпоинтинг выключен», "packing disabled", a pasted "…: false".
_OFF_AFTER = re.compile(
    r"^(?:\s+is)?[\s:=]*(?:выключ\w*|отключ\w*|выкл\w*|disabled|off|false)(?!\w)", re.IGNORECASE
)


def _negated(reader: _Reader, table: Mapping[E, tuple[str, ...]]) -> tuple[E, int, int] | None:
    """The first of `table`'s phrases when a negation comes right before it (over verbs:
    «не хочу использовать packing») or an "off" right after it: (its value, where the
    negated words start, where they end)."""
    found = find_choice(table, reader.rest)
    if found is None:
        return None
    value, start, end = found
    negation = _NEGATED_BEFORE.search(reader.rest[:start].rstrip() + " ")
    if negation is not None:
        return value, negation.start(), end
    off = _OFF_AFTER.search(reader.rest[end:])
    if off is not None:
        return value, start, end + off.end()
    return None


def _lever(
    reader: _Reader,
    table: Mapping[E, tuple[str, ...]],
    slot: Slot | None = None,
    instead: E | None = None,
) -> E | None:
    """What `table` says of a lever; said under a negation, `instead` (unless the negated
    phrase names `instead` itself: «без adamw» sets nothing)."""
    negated = _negated(reader, table)
    if negated is None:
        return reader.choice(table, slot)
    value, start, end = negated
    if slot is not None:
        reader.said(slot, start, end)
    else:
        reader.blank(start, end)
    other = _lever(reader, table, slot, instead)  # «вместо hf — unsloth»: the one named after
    if other is not None:
        return other
    return None if value == instead else instead


def _ask_bare_offload(reader: _Reader, given: Given) -> None:
    """«а с offload?», «с оффлоадом», "with offloading": offload without saying what goes to
    the CPU (the optimizer, or the parameters too) cannot be set without guessing, and the
    two differ by the whole model in GPU memory. The answer compares the run without it and
    with each kind (estimator.asked), the way a question about it is answered."""
    m = compiled(alternation(LEVER_NAMES["offload"])).search(reader.rest)
    if m is None or _ACTIVATIONS.match(reader.rest, m.end()):
        return  # «offload активаций»: activation offloading, a kind of checkpointing
    reader.blank(m.start(), m.end())
    if "offload" not in given.asked_about:
        given.asked_about.append("offload")


def _fuzzy_method(reader: _Reader) -> Method | None:
    """A method word with a typo («клорой», "qlroa"): the nearest method by its lemma."""
    found = fuzzy_method(reader.rest)
    if found is None:
        return None
    method, start, end = found
    reader.said(Slot.METHOD, start, end)
    return method


def read_levers_and_counts(text: str, given: Given) -> list[str]:
    """Fill what `given` lacks from free words (the command grammar's unreadable positional
    words: «батч 4», «без gradient checkpointing»); returns the words still not understood."""
    found = Given(text_language=given.text_language)
    reader = _Reader(text[:MAX_LENGTH], found)
    _read_all(reader, found)
    _fill(given, found)
    return reader.rest.split()


def read_reply(text: str, given: Given) -> list[str]:
    """A reply to an answer into `given` (empty): the model or size it names, the card, the
    levers and the numbers, as a question's are read; a count after «на» is the card count
    («а на двух?»). Returns the words not understood."""
    reader = _Reader(text[:MAX_LENGTH], given)
    _read_model(reader, given)
    _read_all(reader, given, followup=True)
    return reader.rest.split()


def _read_all(reader: _Reader, given: Given, *, followup: bool = False) -> None:
    _read_gpus(reader, given)
    _read_levers(reader, given)
    _read_counts(reader, given, followup=followup)
    _read_day_limit(reader, given)
    _read_asks(reader, given)


# «за сутки», «за день», "in a day", «за ночь»: a time limit said without a number («в день»
# is a use per day, read with its hours).
_ONE_DAY = re.compile(
    r"(?<!\w)(?:за|in|within)\s+(?:одн[иу]\s+|a\s+|one\s+|a\s+single\s+)?"
    r"(?:сутки|день|ночь|day|night)(?!\w)",
    re.IGNORECASE,
)
_NIGHT_HOURS = 10.0  # «за ночь»: an evening to a morning


def _read_day_limit(reader: _Reader, given: Given) -> None:
    m = _ONE_DAY.search(reader.rest)
    if m is None or given.time_budget_hours is not None:
        return
    night = "ноч" in m.group(0).lower() or "night" in m.group(0).lower()
    given.time_budget_hours = _NIGHT_HOURS if night else 24.0
    reader.said(Slot.TIME_BUDGET, m.start(), m.end())


def _read_asks(reader: _Reader, given: Given) -> None:
    """«а по времени?», "how long?": the reply asks for the time (note `ask:time`). The
    inference and preference words, noted with the levers, are used up here, once the
    numbers they part from their cues are read («а если dpo?» is all understood)."""
    _note_said(reader, given, ASK_TIME_PHRASES, ASK_TIME_NOTE)
    _note_said(reader, given, ASK_EPOCHS_PHRASES, ASK_EPOCHS_NOTE)
    for phrases in (INFERENCE_PHRASES, PREFERENCE_PHRASES):
        m = compiled(alternation(phrases)).search(reader.rest)
        if m is not None:
            reader.blank(m.start(), m.end())


def _fill(given: Given, found: Given) -> None:
    """What `found` read, where `given` has nothing yet."""
    given.ruled_out += [m for m in found.ruled_out if m not in given.ruled_out]
    given.asked_about += [k for k in found.asked_about if k not in given.asked_about]
    given.notes += [n for n in found.notes if n not in given.notes]
    for slot, words in found.said.items():
        given.said.setdefault(slot, words)
    for name in found.__dataclass_fields__:
        if name in ("notes", "text_language", "ruled_out", "asked_about", "said"):
            continue
        if getattr(given, name) is None and getattr(found, name) is not None:
            setattr(given, name, getattr(found, name))
    if found.dataset_bytes is not None:
        given.text_language = found.text_language


def parse_question(text: str, settle: Callable[[Given], None] | None = None) -> ParsedQuery | None:
    """A sizing question in free text, or None when the text names no model and no size.
    `settle` sets what the words were not asked to say (a command's exact pairs) last."""
    if not isinstance(text, str) or not text.strip():
        return None
    given = Given(text_language=language_of(text))
    reader = _Reader(text[:MAX_LENGTH], given)
    _read_model(reader, given)
    if given.model is None and given.size_b is None:
        return None  # greetings, prices, "когда появятся A100?": not a sizing question
    _read_all(reader, given)
    if settle is not None:
        settle(given)
    if given.solve == "rank" and given.method is Method.FULL:
        given.solve = None  # a full fine-tune has no rank to solve for
        given.notes.append("unused:rank")
    try:
        return finish(given)
    except QueryError:
        return None
