"""Which setting each number of a question fills: its unit first, then the words before it.

    «уложусь в 50к?»                      -> budget 50 000 ₽ (never a context of 51 200)
    «бюджет у меня тысяч 5 рублей»         -> budget 5 000 ₽
    «средняя длина 1500 токенов но бывают и по 6000» -> 1500 a example, the longest 6000
    «датасет 1 млрд токенов»               -> a dataset of 1e9 tokens
    «а если 20000?»                        -> nothing: noted as unread (`unread:20000`)

The numbers come from estimator.parsing.numbers with their units. The rules, in order:

1. A unit decides the kind: ₽ / руб is money, примеров / строк / samples the dataset's size,
   эпохи epochs, карт / GPUs the card count, гб of text the dataset as text size. Tokens are a
   length unless there are millions of them or the dataset is named (then the dataset's
   size); a length is the average with «средняя» / «по» / "per example", the longest with
   «максимум» / «бывают и по» / «до», else the context.
2. With no unit, the word before it decides (little words skipped: «бюджет у меня тысяч 5»):
   контекст / ctx / длина -> ctx, батч / bs -> batch, ранг / r -> rank, датасет -> examples,
   бюджет / уложусь в / за -> money, максимум -> the longest example; a count spelled out
   after «на» («на двух») is the card count.
3. A bare "8k" (a power of two thousands) is a context length, as trainers write it.
4. Anything else could fill more than one slot, so it fills none: it is noted `unread:<as
   written>` for the answer to name.

Each slot set records the words that set it (`Given.said`), for the answer's header.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.parsing.build import CHARS_PER_TOKEN, LIMITS, Given, check_epochs, check_int
from estimator.parsing.lemmas import lemmas
from estimator.parsing.numbers import Quantity, Token, Unit, quantities_of, tokenize
from estimator.parsing.patterns import language_of
from estimator.parsing.result import QueryError, Slot
from estimator.parsing.words import (
    AVERAGE_CUES,
    BATCH_CUES,
    BUDGET_CUES,
    CAP_WORDS,
    CARD_WORDS,
    CTX_CUES,
    CUE_FILLERS,
    DATASET_CUES,
    ENGLISH_TEXT_CUES,
    ENOUGH_WORDS,
    EPOCH_CUES,
    EXAMPLE_NOUNS,
    EXAMPLES_FIRST_CUES,
    GPUS_CUES,
    GRAD_ACCUM_CUES,
    LESS_WORDS,
    LONGEST_CUES,
    MORE_WORDS,
    NOT_RUN_STEPS,
    ON_WORDS,
    PER_EXAMPLE_AFTER_CUES,
    RANGE_OPENERS,
    RANGE_SEPARATORS,
    RANK_CUES,
    RUSSIAN_TEXT_CUES,
    SCALED_NOUNS,
    STEPS_CUES,
    TEXT_CUES,
    USE_WORDS,
)

_CLAUSE_END = frozenset({",", ";", ".", "!", "?", "\n"})
# The slot whose words a scaled setting keeps (estimator.followup moves a dataset counted in
# tokens to its own slot).
_SCALED_SLOTS = {
    "dataset": Slot.DATASET_EXAMPLES,
    "ctx": Slot.CTX,
    "micro_batch": Slot.MICRO_BATCH,
    "gpus": Slot.GPUS,
    "epochs": Slot.EPOCHS,
}
_MAX_FIELDS = frozenset({"max", "maximum", "максимальный", "макс"})
# The most cards a bare «на N» in a reply is read as: 64, eight servers of eight.
_MAX_BARE_COUNT = 64
# A context said in thousands is in binary thousands: "4k" is 4096, as trainers mean it.
_BINARY = 1024


@dataclass
class _Context:
    """The words around a quantity: the nearest content words before it (nearest first, with
    their token index) and the folded words after it."""

    before: list[tuple[int, frozenset[str]]]
    each: bool  # «по» right before it: «по 500 токенов»
    upto: bool  # «до» right before it
    after: list[str]

    def near(self, cues: frozenset[str], depth: int = 1) -> int | None:
        """The token index of the cue among the `depth` nearest words, or None."""
        for index, forms in self.before[:depth]:
            if forms & cues:
                return index
        return None

    def setting(self, cues: frozenset[str]) -> int | None:
        """The setting's cue right before the number, over words that only cap it («батч
        максимум 4», «контекст не больше 4096», "batch at most 4")."""
        for index, forms in self.before:
            if forms & CAP_WORDS and not forms & cues:
                continue
            return index if forms & cues else None
        return None


def _forms(token: Token) -> frozenset[str]:
    if token.kind == "word":
        return lemmas(token.text)
    return frozenset({token.text})


# «15к штук»: at least this many pieces is a dataset, not cards.
_MIN_PIECES = 100
# Words that make a number rough without changing what it counts.
_APPROXIMATELY = frozenset({"about", "around", "approx", "approximately", "roughly", "~", "≈"})
# «их» / "them" before a count, and how far back the examples it stands for may be named.
_THEM = frozenset({"их", "они"})
_THEM_REACH = 10
# What "them" may stand for: the examples' own nouns, and the chats and messages people
# collect them from («мои переписки», "my chats"), which are no unit of ours on their own.
_THEM_NOUNS = EXAMPLE_NOUNS | {"чат", "chat", "переписка", "сообщение", "message"}


def _theirs(context: _Context, cue: int) -> bool:
    """«их длина 500», "their length is 500": the length of each example, not the context."""
    for n, (index, _) in enumerate(context.before):
        if index == cue:
            following = context.before[n + 1 : n + 2]
            return bool(following and following[0][1] & (_THEM | {"their"}))
    return False


def _per_day(context: _Context) -> bool:
    """Hours said per day: «в день по 5 часов», «5 часов в день», "5 hours a day"."""
    after = context.after[:2]
    before = {form for _, forms in context.before[:2] for form in forms}
    return after in (["в", "день"], ["a", "day"], ["per", "day"]) or "день" in before


def _identifier_start(tokens: list[Token], k: int) -> int:
    """Where the snake_case identifier ending at tokens[k] starts (k when it is one word)."""
    start = k
    while (
        start >= 2
        and tokens[start].kind == "word"
        and tokens[start - 1].text == "_"
        and tokens[start - 2].kind == "word"
    ):
        start -= 2
    return start


def _context(tokens: list[Token], found: Quantity) -> _Context:
    before: list[tuple[int, frozenset[str]]] = []
    each = upto = False
    k = found.first - 1
    if k >= 0 and tokens[k].folded == "по":
        each, k = True, k - 1
    elif k >= 0 and tokens[k].folded in {"до", "up"}:
        upto = True
    while k >= 0 and len(before) < 3:
        token = tokens[k]
        if token.text in _CLAUSE_END or token.kind == "num":
            break
        forms = _forms(token)
        start = _identifier_start(tokens, k)
        if start < k:
            # "per_device_train_batch_size 2": a config's key, pasted, is one word (a cue
            # even where its last part alone, "size", is a filler)
            before.append((start, forms | {"".join(t.folded for t in tokens[start : k + 1])}))
            k = start - 1
            continue
        filler = token.folded in CUE_FILLERS or (token.kind == "word" and forms & CUE_FILLERS)
        if not filler and token.folded not in {"по", "и", "но", "а", "but"}:
            before.append((k, forms))
        k -= 1
    after: list[str] = []
    k = found.last
    while k < len(tokens) and len(after) < 3 and tokens[k].text not in _CLAUSE_END:
        after.append(tokens[k].folded)
        k += 1
    return _Context(before, each, upto, after)


def _after_has(context: _Context, cues: frozenset[str], depth: int = 2) -> int:
    """How many tokens after the quantity a cue word ends at (0: none among the first
    `depth`)."""
    for n, word in enumerate(context.after[:depth]):
        if word in cues or lemmas(word) & cues:
            return n + 1
    return 0


def _after_phrase(context: _Context) -> int:
    """Tokens taken by a per-example phrase after it ("per example", «на каждый пример»)."""
    words = [lemmas(w) | {w} for w in context.after]
    for phrase in PER_EXAMPLE_AFTER_CUES:
        if len(words) >= len(phrase) and all(p in words[n] for n, p in enumerate(phrase)):
            return len(phrase)
    return 0


def _is_binary_k(found: Quantity) -> bool:
    """ "8k", «16к»: a power of two thousands, as context lengths are written."""
    whole = found.mantissa
    return (
        found.scale == 1
        and not found.from_words
        and whole == int(whole)
        and 1 <= whole <= 1024
        and int(whole) & (int(whole) - 1) == 0
    )


class _Slots:
    """Fills `given` from the quantities of `rest`; blanks what it used."""

    def __init__(self, text: str, rest: str, given: Given, *, followup: bool) -> None:
        self.text = text
        self.rest = rest
        self.given = given
        self.followup = followup
        self.tokens = tokenize(rest)
        self.used: list[tuple[int, int]] = []
        # Where each bare number ends (one past its last token): a cue there follows one.
        self.quantity_ends: set[int] = set()
        # Where each number starts: a cue right before one is that number's.
        self.quantity_starts: set[int] = set()

    def said(self, slot: Slot, start: int, end: int) -> None:
        self.given.said.setdefault(slot, " ".join(self.text[start:end].split()))
        self.used.append((start, end))

    def run(self) -> list[tuple[int, int]]:
        found = quantities_of(self.tokens)
        self.quantity_ends = {q.last for q in found if q.unit is None}
        self.quantity_starts = {q.first for q in found}
        taken = self._ranges(found)
        previous: Quantity | None = None
        for n, quantity in enumerate(found):
            if n in taken:
                continue
            self._one(quantity, previous)
            previous = quantity
        return self.used

    # -- ranges ------------------------------------------------------------------------

    def _ranges(self, found: list[Quantity]) -> set[int]:
        """«от 1 500 до 3 500 токенов», "1500-3500 tokens", "between 1k and 3k": a range of
        lengths is the shortest and the longest example; of anything else, its top."""
        taken: set[int] = set()
        for n in range(len(found) - 1):
            low, high = found[n], found[n + 1]
            between = self.tokens[low.last : high.first]
            if len(between) != 1 or between[0].folded not in RANGE_SEPARATORS:
                continue
            if between[0].folded == "and" and not self._opened(low, {"between"}):
                continue
            if between[0].folded == "по" and not self._opened(low, {"с"}):
                continue
            if low.unit is not None and low.unit is not high.unit:
                continue
            unit = high.unit
            if unit is None and between[0].folded == "до" and self._opened(low, RANGE_OPENERS):
                unit = Unit.TOKENS if self._tokens_nearby(low) else None
            if unit is None:
                continue
            scale = high.scale if low.scale == 0 and low.mantissa < high.mantissa else low.scale
            bottom, top = low.mantissa * 1000**scale, high.value()
            if not 0 < bottom <= top:
                continue
            opener = self._opened(low, RANGE_OPENERS)
            start = self.tokens[low.first - 1].start if opener else low.start
            taken |= {n, n + 1}
            if unit is Unit.TOKENS:
                if self._set_int(Slot.SHORTEST_TOKENS, "tokens", "shortest_tokens", bottom):
                    self._set_int(Slot.LONGEST_TOKENS, "tokens", "longest_tokens", top)
                    self.said(Slot.LONGEST_TOKENS, start, high.end)
            else:
                self._one(high, None)
                self.used.append((start, low.end))
        return taken

    def _counts_examples_named_before(self, found: Quantity, context: _Context) -> bool:
        """A count of "them" («их тысяч 30», "30k of them") where "them" can only be the
        examples the message named a few words before."""
        them = bool(context.before[:1] and context.before[0][1] & _THEM) or context.after[:2] == [
            "of",
            "them",
        ]
        if not them:
            return False
        window = self.tokens[max(0, found.first - _THEM_REACH) : found.first]
        return any(lemmas(t.text) & _THEM_NOUNS for t in window if t.kind == "word")

    def _opened(self, low: Quantity, words: frozenset[str] | set[str]) -> bool:
        return low.first > 0 and self.tokens[low.first - 1].folded in words

    def _tokens_nearby(self, low: Quantity) -> bool:
        """«примеры от 1500 до 3500»: lengths, said without the word «токенов»."""
        window = self.tokens[max(0, low.first - 4) : low.first]
        return any(lemmas(t.text) & {"пример", "длина", "example", "length"} for t in window)

    # -- one quantity ------------------------------------------------------------------

    def _one(self, found: Quantity, previous: Quantity | None) -> None:
        context = _context(self.tokens, found)
        unit = found.unit
        if unit is Unit.RUB and found.per is None:
            self._money(found, context.near(BUDGET_CUES, 3))
        elif unit is Unit.TOKENS:
            self._tokens(found, context)
        elif unit is Unit.CHARS:
            self._chars(found, context)
        elif unit is Unit.EXAMPLES:
            self._examples(found, context.near(DATASET_CUES, 2))
        elif unit is Unit.BYTES:
            self._text_size(found, context)
        elif unit is Unit.EPOCHS:
            self._epochs(found, None)
        elif unit is Unit.STEPS:
            self._steps(found, context)
        elif unit is Unit.HOURS and _per_day(context):
            self._hours_a_day(found)
        elif unit is Unit.HOURS:
            self._time_budget(found)
        elif unit is Unit.DAYS:
            self._time_budget(found, hours_each=24)
        elif unit is Unit.GPUS:
            self._gpus(found, None)
        elif unit is Unit.TIMES and _after_has(context, GPUS_CUES):
            self._gpus(found, None, extra=_after_has(context, GPUS_CUES))
        elif unit is Unit.TIMES and self.followup:
            self._ratio(found)
        elif unit is None:
            self._bare(found, context, previous)
        elif unit is Unit.FOREIGN_MONEY:
            # "budget $500": not converted (the providers bill in roubles; a rate would be a
            # guess), said not counted as a sum in another currency.
            self.given.notes.append(f"{FOREIGN_MONEY_NOTE}:{self._as_written(found)}")
        else:
            self._unread(found)

    def _bare(self, found: Quantity, context: _Context, previous: Quantity | None) -> None:
        if context.after[:1] in (["штук"], ["шт"]) and found.value() >= _MIN_PIECES:
            # «примеры по 2-3 тысячи токенов, 15к штук»: so many pieces are the examples
            # («две штуки 4090» is a card count, read with the card)
            self._examples(found, None)
            return
        if found.value() >= _MIN_PIECES and self._counts_examples_named_before(found, context):
            # «на своих диалогах, их тысяч 30», "my chats, there are 30k of them"
            self._examples(found, None)
            return
        if context.each and previous is not None and previous.unit is Unit.EXAMPLES:
            # «20к примеров по 500»: the length of each of them
            self._length(Slot.TOKENS_PER_EXAMPLE, found, found.first - 1)
            return
        # "4 bs", «4 батча», "2k ctx 4 bs": the setting's noun right after a number says what
        # it is, unless a cue before it takes it: "batch 2 ga 4" reads cue-then-number, and
        # only a cue that has its own number before it ("2k ctx") leaves this one free.
        if self._cue_before_is_free(context):
            for noun_cues, read_noun in (
                (BATCH_CUES, self._batch),
                (GRAD_ACCUM_CUES, self._grad_accum),
                (RANK_CUES, self._rank),
            ):
                noun = _after_has(context, noun_cues, depth=1)
                # "2048 batch 16": a cue with its own number after it is that number's.
                if noun and found.last + noun not in self.quantity_starts:
                    read_noun(found, None, noun)
                    return
        ctx_cue = context.setting(CTX_CUES)
        if ctx_cue is not None:
            if context.near(AVERAGE_CUES, 2) is not None or _theirs(context, ctx_cue):
                self._length(Slot.TOKENS_PER_EXAMPLE, found, context.near(AVERAGE_CUES, 2))
            else:
                self._ctx(found, ctx_cue)
            return
        for cues, read in (
            (BATCH_CUES, self._batch),
            (GRAD_ACCUM_CUES, self._grad_accum),
            (RANK_CUES, self._rank),
            (EPOCH_CUES, self._epochs),
            (STEPS_CUES, lambda found, _cue: self._steps(found, context)),
            (GPUS_CUES, self._gpus),
            (DATASET_CUES, self._examples),
            (EXAMPLES_FIRST_CUES, self._examples),
            (BUDGET_CUES, self._money),
        ):
            cue = context.setting(cues)
            if cues is BUDGET_CUES and _after_has(context, CTX_CUES):
                continue  # "lora for 32k context": the noun after it says what it is
            if cue is not None:
                read(found, cue)
                return
        longest = context.near(LONGEST_CUES, 2)
        if longest is not None or (context.upto and self._lengths_said(previous)):
            self._length(Slot.LONGEST_TOKENS, found, longest)
            return
        average = context.near(AVERAGE_CUES, 2)
        if average is not None:
            self._length(Slot.TOKENS_PER_EXAMPLE, found, average)
            return
        if _after_has(context, CTX_CUES):
            self._ctx(found, None, extra=_after_has(context, CTX_CUES))
            return
        per_example = _after_phrase(context)
        if per_example:
            self._length(Slot.TOKENS_PER_EXAMPLE, found, None, extra=per_example)
            return
        before = self.tokens[found.first - 1].folded if found.first > 0 else ""
        after = [t.folded for t in self.tokens[found.last : found.last + 2]]
        on = before in ON_WORDS or (
            self.followup and (before in USE_WORDS or after == ["of", "them"])
        )
        # «на двух»; in a reply also «на 4?» (the card stays), but not «на 500?», which is
        # more cards than anyone rents and may be money.
        counted = found.from_words or (self.followup and found.value() <= _MAX_BARE_COUNT)
        if on and counted and found.scale == 0:
            self._gpus(found, found.first - 1)
            return
        if _is_binary_k(found):
            self._ctx(found, None)
            return
        self._unread(found)

    def _cue_before_is_free(self, context: _Context) -> bool:
        """No setting's cue right before the number, or one that a number right before it
        has already taken ("2k ctx 4 bs": «ctx» is 2k's)."""
        if not context.before:
            return True
        index, forms = context.before[0]
        if not forms & SETTING_CUES:
            return True
        return index in self.quantity_ends

    def _lengths_said(self, previous: Quantity | None) -> bool:
        return previous is not None and previous.unit is Unit.TOKENS

    def _chars(self, found: Quantity, context: _Context) -> None:
        """«примеры по 2000 символов», «тексты по 4к символов»: each example's length in
        characters, about CHARS_PER_TOKEN of them a token (never a context or a count of
        examples); a dataset's worth («10 млн символов») is its tokens."""
        language = self.given.text_language or language_of(self.text)
        tokens = found.value() / CHARS_PER_TOKEN[language]
        span = self._span(found, None)
        if found.value() >= 1_000_000 or context.near(DATASET_CUES, 3) is not None:
            self._int_slot(Slot.DATASET_TOKENS, "dataset_tokens", "dataset_tokens", tokens, span)
            return
        self._int_slot(Slot.TOKENS_PER_EXAMPLE, "tokens", "tokens_per_example", tokens, span)

    def _tokens(self, found: Quantity, context: _Context) -> None:
        if found.scale >= 2 or found.value() >= 1_000_000 or context.near(DATASET_CUES, 3):
            self._dataset_tokens(found, context.near(DATASET_CUES, 3))
            return
        ctx_cue = context.near(CTX_CUES)
        average = context.near(AVERAGE_CUES, 3)
        if average is None and ctx_cue is not None and _theirs(context, ctx_cue):
            average = ctx_cue  # «их длина 500 токенов»: each example's
        if average is not None:
            self._length(Slot.TOKENS_PER_EXAMPLE, found, average)
        elif ctx_cue is not None and context.near(_MAX_FIELDS, 2) is not None:
            self._ctx(found, ctx_cue)  # "max length 4096 tokens" is the setting
        elif (longest := context.near(LONGEST_CUES, 3)) is not None:
            self._length(Slot.LONGEST_TOKENS, found, longest)
        elif context.each or _after_phrase(context) or self._of_examples(found):
            start = found.first - 1 if context.each else None
            self._length(Slot.TOKENS_PER_EXAMPLE, found, start, extra=_after_phrase(context))
        elif ctx_cue is not None:
            self._ctx(found, ctx_cue)
        elif _after_has(context, CTX_CUES):
            self._ctx(found, None, extra=_after_has(context, CTX_CUES))
        elif context.upto:
            self._length(Slot.LONGEST_TOKENS, found, found.first - 1)
        else:
            self._ctx(found, None)  # «8 тысяч токенов»: a length with nothing else said

    # -- setting a slot ------------------------------------------------------------------

    def _span(self, found: Quantity, cue: int | None, extra: int = 0) -> tuple[int, int]:
        start = self.tokens[cue].start if cue is not None else found.start
        last = min(found.last + extra, len(self.tokens)) - 1
        return start, max(found.end, self.tokens[last].end)

    def _set_int(self, slot: Slot, key: str, name: str, value: float) -> bool:
        if getattr(self.given, name) is not None:
            self.given.notes.append(f"repeated:{slot.value}")
            return False
        try:
            setattr(self.given, name, check_int(key, round(value)))
        except QueryError:
            self.given.notes.append(f"out_of_range:{key}")
            return False
        return True

    def _int_slot(
        self, slot: Slot, key: str, name: str, value: float, span: tuple[int, int]
    ) -> None:
        if self._set_int(slot, key, name, value):
            self.said(slot, *span)
        else:
            self.used.append(span)

    def _ctx(self, found: Quantity, cue: int | None, extra: int = 0) -> None:
        span = self._span(found, cue, extra)
        self._int_slot(Slot.CTX, "ctx", "ctx", found.value(_BINARY), span)

    def _length(self, slot: Slot, found: Quantity, cue: int | None, extra: int = 0) -> None:
        name = "longest_tokens" if slot is Slot.LONGEST_TOKENS else "tokens_per_example"
        thousand = _BINARY if slot is Slot.LONGEST_TOKENS else 1000
        span = self._span(found, cue, extra)
        self._int_slot(slot, "tokens", name, found.value(thousand), span)

    def _batch(self, found: Quantity, cue: int | None, extra: int = 0) -> None:
        self._whole(Slot.MICRO_BATCH, "bs", "micro_batch", found, cue, extra)

    def _grad_accum(self, found: Quantity, cue: int | None, extra: int = 0) -> None:
        self._whole(Slot.GRAD_ACCUM, "ga", "grad_accum", found, cue, extra)

    def _rank(self, found: Quantity, cue: int | None, extra: int = 0) -> None:
        self._whole(Slot.LORA_RANK, "rank", "lora_rank", found, cue, extra)

    def _gpus(self, found: Quantity, cue: int | None, extra: int = 0) -> None:
        if self.given.gpus is not None:
            self.given.notes.append(f"repeated:{Slot.GPUS.value}")
            self.used.append(self._span(found, cue, extra))
            return
        span = self._span(found, cue, extra)
        self._int_slot(Slot.GPUS, "gpus", "gpus", found.value(), span)

    def _whole(
        self, slot: Slot, key: str, name: str, found: Quantity, cue: int | None, extra: int = 0
    ) -> None:
        if found.value() != int(found.value()):
            self._unread(found)
            return
        self._int_slot(slot, key, name, found.value(), self._span(found, cue, extra))

    def _hours_a_day(self, found: Quantity) -> None:
        """«в день по 5 часов», "5 hours a day": a use a month (30 days), as «150 ч в месяц»."""
        if self.given.hours_per_month is None and 0 < found.value() <= 24:
            self.given.hours_per_month = found.value() * 30
            self.said(Slot.HOURS_PER_MONTH, *self._span(found, None))
        else:
            self._unread(found)

    def _time_budget(self, found: Quantity, hours_each: float = 1) -> None:
        """«успею за 5 часов?», «уложиться в 2 часа», "in 10 hours": the most the run may
        take (hours a month are an offer constraint, read before this)."""
        low, high = LIMITS["hours"]
        hours = found.value() * hours_each
        if self.given.time_budget_hours is not None or not low <= hours <= high:
            self._unread(found)
            return
        self.given.time_budget_hours = hours
        self.said(Slot.TIME_BUDGET, *self._span(found, None))

    def _steps(self, found: Quantity, context: _Context) -> None:
        """«60 шагов», "1000 steps": the run's optimizer steps; «warmup 100 шагов», "save
        every 500 steps" are not its length."""
        if any(forms & NOT_RUN_STEPS for _, forms in context.before):
            self._unread(found)
            return
        span = self._span(found, None)
        self._int_slot(Slot.STEPS, "steps", "steps", found.value(), span)

    def _epochs(self, found: Quantity, cue: int | None) -> None:
        span = self._span(found, cue)
        if self.given.epochs is not None:
            self.given.notes.append(f"repeated:{Slot.EPOCHS.value}")
            self.used.append(span)
            return
        try:
            self.given.epochs = check_epochs(found.value())
        except QueryError:
            self.given.notes.append("out_of_range:epochs")
            self.used.append(span)
            return
        self.said(Slot.EPOCHS, *span)

    def _examples(self, found: Quantity, cue: int | None) -> None:
        span = self._span(found, cue)
        self._int_slot(Slot.DATASET_EXAMPLES, "dataset", "dataset_examples", found.value(), span)

    def _dataset_tokens(self, found: Quantity, cue: int | None) -> None:
        span = self._span(found, cue)
        name = "dataset_tokens"
        self._int_slot(Slot.DATASET_TOKENS, "dataset_tokens", name, found.value(), span)

    def _money(self, found: Quantity, cue: int | None) -> None:
        span = self._span(found, cue)
        value = found.value()
        low, high = LIMITS["budget"]
        if self.given.budget_rub is not None:
            self.given.notes.append(f"repeated:{Slot.BUDGET.value}")
            self.used.append(span)
        elif low <= value <= high:
            self.given.budget_rub = value
            self.said(Slot.BUDGET, *span)
        else:
            self.given.notes.append("out_of_range:budget")
            self.used.append(span)

    def _card_memory(self, found: Quantity) -> None:
        """«хватит ли 24 гб?», "is 48GB enough", «влезет в 80 гигов»: a card's memory asked
        about, when the clause asks whether it is enough; any other bare size stays unread."""
        start, end = found.first, found.last
        while start > 0 and self.tokens[start - 1].text not in _CLAUSE_END:
            start -= 1
        while end < len(self.tokens) and self.tokens[end].text not in _CLAUSE_END:
            end += 1
        words = [_forms(t) | {t.folded} for t in self.tokens[start:end]]
        gb = found.value() * found.byte_factor / 1e9
        low, high = LIMITS["cardgb"]
        # In a reply to a sizing («а на 24 гб?», «а если 12 гб?») or a question for the largest
        # value that fits («максимальный контекст на 16 гб»), a memory size with no text or
        # dataset named can only be the card's.
        asks = (
            any(forms & ENOUGH_WORDS for forms in words)
            or self._names_a_card(found)
            or self._owned(found)
            or self.followup
            or self.given.solve is not None
        )
        if not asks or self.given.card_gb is not None or not low <= gb <= high:
            self._unread(found)
            return
        self.given.card_gb = gb
        self.said(Slot.CARD_GB, *self._span(found, None))

    def _of_examples(self, found: Quantity) -> bool:
        """ "5000 examples of about 1500 tokens", "samples with ~800 tokens": each one's length."""
        k = found.first - 1
        while k >= 0 and self.tokens[k].folded in _APPROXIMATELY:
            k -= 1
        if k < 1 or self.tokens[k].folded not in {"of", "with"}:
            return False
        noun = self.tokens[k - 1]
        return noun.kind == "word" and bool(lemmas(noun.text) & _THEM_NOUNS)

    def _owned(self, found: Quantity) -> bool:
        """«у меня только 48 гб», "I have 24GB", "my 16 GB": memory the person has is their
        card's (text or data would have been named: «2 гб текста» is read before this)."""
        near = self.tokens[max(0, found.first - 3) : found.first]
        return any(t.folded in _OWNED_CUES for t in near)

    def _names_a_card(self, found: Quantity) -> bool:
        """«у меня карта на 24 гб», "I have a 24GB card", «видеокарта 12гб»: the size is what
        the card next to it holds."""
        near = self.tokens[max(0, found.first - 3) : found.last + 2]
        return any(t.kind == "word" and (_forms(t) | {t.folded}) & CARD_WORDS for t in near)

    def _text_size(self, found: Quantity, context: _Context) -> None:
        """«2 гб текста», «датасет 500 мб»: the dataset as text; a bare «2 гб» is memory or
        data, so it is left unread."""
        text_words = _after_has(context, TEXT_CUES, 3)
        dataset = context.near(DATASET_CUES, 3)
        if not text_words and dataset is None:
            self._card_memory(found)
            return
        after = [lemmas(w) | {w} for w in context.after[: text_words + 1]]
        before = [forms for _, forms in context.before]
        said = set().union(*after, *before) if after or before else set()
        if said & RUSSIAN_TEXT_CUES:
            self.given.text_language = "ru"
        elif said & ENGLISH_TEXT_CUES:
            self.given.text_language = "en"
        span = self._span(found, dataset, text_words)
        if self.given.dataset_bytes is None and found.value() > 0:
            self.given.dataset_bytes = found.value() * found.byte_factor
            self.said(Slot.DATASET_TOKENS, *span)
        else:
            self.used.append(span)

    def _ratio(self, found: Quantity) -> None:
        """«датасет в два раза больше», "twice the batch": a factor on the last sizing's
        setting, read from the clause's comparative and noun."""
        start, end = found.first, found.last
        while start > 0 and self.tokens[start - 1].text not in _CLAUSE_END:
            start -= 1
        while end < len(self.tokens) and self.tokens[end].text not in _CLAUSE_END:
            end += 1
        factor: float | None = None
        scaled: str | None = None
        for token in self.tokens[start:end]:
            forms = _forms(token) | {token.folded}
            if forms & MORE_WORDS:
                factor = found.mantissa
            elif forms & LESS_WORDS:
                factor = 1 / found.mantissa if found.mantissa else None
            scaled = scaled or next((SCALED_NOUNS[f] for f in forms if f in SCALED_NOUNS), None)
        if factor is None and self.tokens[found.first].kind == "word":
            factor = found.mantissa  # "twice the batch", «вдвое»: more, unless said less
        if factor is None or scaled is None or found.mantissa <= 0:
            self._unread(found)
            return
        self.given.ratios[scaled] = factor
        first, last = self.tokens[start], self.tokens[end - 1]
        self.said(_SCALED_SLOTS[scaled], first.start, last.end)

    def _unread(self, found: Quantity) -> None:
        self.given.notes.append(f"unread:{self._as_written(found)}")

    def _as_written(self, found: Quantity) -> str:
        """The quantity's words as the person wrote them, spaces collapsed."""
        return " ".join(self.text[found.start : found.end].split())


# Every setting's cue a number may follow: one right before a number takes it.
SETTING_CUES = (
    CTX_CUES | BATCH_CUES | GRAD_ACCUM_CUES | RANK_CUES | EPOCH_CUES | STEPS_CUES | DATASET_CUES
)
# The note of a sum in a currency other than the rouble: "foreign_money:$500".
FOREIGN_MONEY_NOTE = "foreign_money"
# The words right before a memory size that say the person has it: «у меня», «у нас», «есть»,
# "I have", "I've got", "my", "we have".
_OWNED_CUES = frozenset({"меня", "нас", "есть", "have", "got", "my", "our"})


def read_slots(text: str, rest: str, given: Given, *, followup: bool = False) -> str:
    """Fill `given` from the numbers of `rest` (`text` with what other readers used blanked,
    the same length); returns `rest` with what was used blanked too. Unread numbers stay."""
    for start, end in _Slots(text, rest, given, followup=followup).run():
        rest = rest[:start] + " " * (end - start) + rest[end:]
    return rest
