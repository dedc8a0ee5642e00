"""The numbers of a text, with their multipliers, their units and where they stand.

    quantities("бюджет у меня тысяч 5 рублей, датасет 1 млрд токенов")
    -> [Quantity(5, scale=1, unit=RUB, «тысяч 5 рублей»),
        Quantity(1, scale=3, unit=TOKENS, «1 млрд токенов»)]

One job: what a number is and what it counts. Which setting it fills is decided elsewhere
(estimator.parsing.slots), from the unit and the words before it.

Read here:

- figures: «4096», «599,5», «1.5», digit groups «1 500», «50 000», "1,000,000";
- multipliers after a figure, glued or not: «50к», "1.5k", «5 тыс.», «10 тысяч», «2 млн»,
  «1 млрд», "40k", and before it, as people say a rough sum: «тысяч 5», «тысяч пять»;
- numbers in words, in any case form (lemmas by pymorphy3): «два», «двух», «двумя», «пяти»,
  «полтора», «полутора», «двадцать пять», «две тысячи», "two", "twenty five", "a million";
- the unit right after (by its lemma): ₽ / руб / rub, токенов / tokens, примеров / samples /
  строк, гб / GB, эпохи / epochs, часов / hours, карт / GPUs, параметров, %, раз;
- ratios: «в два раза», «вдвое», "twice", "2x".

A quantity's `scale` keeps the multiplier as said: a context of "4k" is 4096 tokens (the
powers of two trainers use), a budget of «50к» 50 000 ₽; the slot picks the thousand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from estimator.parsing.lemmas import fold, lemmas
from estimator.parsing.words import (
    BILLION_WORDS,
    BYTE_UNITS,
    HUNDRED_WORDS,
    MILLION_WORDS,
    NUMBER_LEMMAS,
    PAIR_FORMS,
    RATIO_WORDS,
    THOUSAND_WORDS,
    UNIT_LEMMAS,
    UNIT_SYMBOLS,
)


class Unit(StrEnum):
    RUB = "rub"
    TOKENS = "tokens"
    EXAMPLES = "examples"
    BYTES = "bytes"
    EPOCHS = "epochs"
    STEPS = "steps"  # optimizer steps: «60 шагов», "1000 steps"
    HOURS = "hours"
    DAYS = "days"  # «за сутки», «за 2 дня», "in 3 days": a time, in days
    GPUS = "gpus"
    PARAMS = "params"  # a model size: «13b», «13 млрд параметров»
    PERCENT = "percent"
    TIMES = "times"  # a ratio: «в два раза», "2x"
    # A sum in a currency other than the rouble (dollars, euros, pounds): never a budget in ₽
    # (the providers bill in roubles), said not counted.
    FOREIGN_MONEY = "foreign_money"
    CHARS = "chars"  # «по 2000 символов», "4k characters": a length in characters, not tokens


class Token(NamedTuple):
    text: str
    start: int
    end: int
    kind: str  # "num" (digits), "word" (letters), "sym" (one other character)
    glued: bool  # no space between it and the token before
    folded: str  # lower case, «ё» as «е»


_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+|\S")


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    last_end = -1
    for m in _TOKEN.finditer(text):
        word = m.group()
        kind = "num" if word[0].isdigit() else "word" if word[0].isalpha() else "sym"
        tokens.append(Token(word, m.start(), m.end(), kind, m.start() == last_end, fold(word)))
        last_end = m.end()
    return tokens


@dataclass(frozen=True)
class Quantity:
    """A number as said: `mantissa` × 1000**`scale` (or 1024**scale for a context length)."""

    mantissa: float
    scale: int  # 0; 1 thousands; 2 millions; 3 billions
    unit: Unit | None
    start: int  # the span, as written, from the number to its unit
    end: int
    first: int  # index of its first and one past its last token in `tokenize(text)`
    last: int
    byte_factor: float = 1.0  # Unit.BYTES: bytes per unit said (1e9 for «гб»)
    per: str | None = None  # "hour", "gpu_hour", "month": a rate («600 rub per GPU-hour»)
    from_words: bool = False  # spelled out («двух»), not in figures

    def value(self, thousand: int = 1000) -> float:
        return float(self.mantissa * thousand**self.scale)


def _figure(text: str) -> float | None:
    """ "4096", "599,5", "1.5", "1,000,000" (a comma before three digits groups them)."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+", text):
        text = text.replace(",", "")
    elif text.count(",") + text.count(".") > 1:
        return None  # "3.1.2": a version, not a number
    try:
        return float(text.replace(",", "."))
    except ValueError:
        return None


def _scale_of(token: Token) -> int | None:
    """The power of a thousand a multiplier word says: «к», "k", «тыс», «тысяч» -> 1."""
    word = token.folded
    if token.kind != "word":
        return None
    forms = lemmas(token.text)
    if word in THOUSAND_WORDS or forms & THOUSAND_WORDS:
        return 1
    if word in MILLION_WORDS or forms & MILLION_WORDS:
        return 2
    if word in BILLION_WORDS or forms & BILLION_WORDS:
        return 3
    return None


def _word_value(token: Token) -> float | None:
    if token.kind != "word":
        return None
    for form in (token.folded, *sorted(lemmas(token.text))):
        if form in NUMBER_LEMMAS:
            return NUMBER_LEMMAS[form]
    return None


@dataclass
class _Number:
    mantissa: float
    scale: int
    first: int
    last: int  # one past the last token
    from_words: bool


# Multipliers that are a number on their own: «тысяча примеров», "a thousand", «миллион».
_ALONE = frozenset({"тысяча", "thousand", "миллион", "million", "миллиард", "billion"})


def _spelled(tokens: list[Token], i: int) -> _Number | None:
    """Numbers in words from tokens[i]: «двадцать пять», «две тысячи», "a million"."""
    total = 0.0
    current = 0.0
    seen = False
    scale = 0
    j = i
    while j < len(tokens):
        token = tokens[j]
        value = _word_value(token)
        multiplier = _scale_of(token) if not token.glued or j == i else None
        if value is not None and not (seen and current and value >= current and value < 100):
            if token.folded in HUNDRED_WORDS and seen:
                current = (current or 1) * 100  # "two hundred"
            else:
                current += value
            seen = True
        elif multiplier is not None and (seen or lemmas(token.text) & _ALONE):
            current = current or 1.0
            total += current * 1000**multiplier
            scale = multiplier if scale == 0 and total == current * 1000**multiplier else 0
            current = 0.0
            seen = True
        elif token.folded in {"a", "an"} and j + 1 < len(tokens) and _scale_of(tokens[j + 1]):
            current = current or 1.0  # "a million tokens", "half a million"
        elif token.folded in PAIR_FORMS and not seen:
            current, seen = 2.0, True  # «пару эпох», "a couple of"
        else:
            break
        j += 1
    if not seen:
        return None
    if scale and current == 0:
        return _Number(total / 1000**scale, scale, i, j, True)
    return _Number(total + current, 0, i, j, True)


def _multiplier_first(tokens: list[Token], i: int) -> _Number | None:
    """«тысяч 5», «тысяч пять»: the multiplier before the number, as a rough sum is said."""
    token = tokens[i]
    first = i
    multiplier = _scale_of(token)
    if multiplier is None or token.folded in {"k", "к", "m", "м", "b", "б"}:
        return None
    if i + 1 >= len(tokens) or (i > 0 and tokens[i - 1].kind == "num"):
        return None
    if tokens[i + 1].folded in {"на", "так", "эдак"} and i + 2 < len(tokens):
        i += 1  # «тысяч на десять»: about ten thousand
    after = tokens[i + 1]
    if after.kind == "num" and (value := _figure(after.text)) is not None:
        return _Number(value, multiplier, first, i + 2, False)
    spelled = _spelled(tokens, i + 1)
    if spelled is not None and spelled.scale == 0:
        return _Number(spelled.mantissa, multiplier, first, spelled.last, True)
    return None


def _read_number(tokens: list[Token], i: int) -> _Number | None:
    """The number starting at tokens[i], with a multiplier after it (or before: «тысяч 5»)."""
    token = tokens[i]
    if token.kind == "num":
        value = _figure(token.text)
        if value is None:
            return None
        j = i + 1
        # «50 000», «1 500 000»: groups of three digits after one to three.
        if "," not in token.text and "." not in token.text and len(token.text) <= 3:
            while (
                j < len(tokens)
                and tokens[j].kind == "num"
                and re.fullmatch(r"\d{3}", tokens[j].text)
                and tokens[j].start - tokens[j - 1].end == 1
                and not (j + 1 < len(tokens) and tokens[j + 1].glued
                         and tokens[j + 1].folded in {"b", "б", "bn"})  # «llama 3 405b»
                and not (j + 1 < len(tokens) and tokens[j + 1].text in {".", ","}
                         and j + 2 < len(tokens) and tokens[j + 2].glued
                         and tokens[j + 2].kind == "num")
            ):  # fmt: skip
                value = value * 1000 + float(tokens[j].text)
                j += 1
        number = _Number(value, 0, i, j, False)
    else:
        return _multiplier_first(tokens, i) or _spelled(tokens, i)
    if j < len(tokens):
        multiplier = _scale_of(tokens[j])
        if multiplier is not None and tokens[j].folded not in {"b", "б"}:
            number.scale = multiplier
            number.last = j + 1
            abbreviated = tokens[j].folded in {"тыс", "млн", "млрд"}
            if abbreviated and number.last < len(tokens) and tokens[number.last].text == ".":
                number.last += 1  # «5 тыс. руб.»
    return number


def _unit(tokens: list[Token], j: int) -> tuple[Unit, float, int] | None:
    """The unit at tokens[j] (and the tokens it takes): (unit, bytes per unit, next index)."""
    if j >= len(tokens):
        return None
    token = tokens[j]
    if token.text in UNIT_SYMBOLS:
        return Unit(UNIT_SYMBOLS[token.text]), 1.0, j + 1
    if token.kind != "word":
        return None
    word = token.folded
    if word in BYTE_UNITS:
        return Unit.BYTES, BYTE_UNITS[word], j + 1
    forms = {word} | set(lemmas(token.text))
    for unit, words in UNIT_LEMMAS.items():
        if forms & words:
            end = j + 1
            if end < len(tokens) and tokens[end].text == "." and word in {"руб", "р", "ч"}:
                end += 1  # «руб.»
            return Unit(unit), 1.0, end
    return None


def _examples_after_a_word(tokens: list[Token], j: int) -> tuple[Unit, float, int] | None:
    """ "50k chat samples", «50к чат-примеров», «20к обучающих диалогов»: what kind of examples
    stands between the count and its noun (one word, or two joined by a hyphen)."""
    if j >= len(tokens) or tokens[j].kind != "word" or _unit(tokens, j) is not None:
        return None
    k = j + 1
    if k + 1 < len(tokens) and tokens[k].text == "-" and tokens[k + 1].kind == "word":
        k += 1
    found = _unit(tokens, k)
    return found if found is not None and found[0] is Unit.EXAMPLES else None


def _per(tokens: list[Token], j: int) -> tuple[str, int] | None:
    """A rate after a sum: «/ч», «в час», "per hour", "per GPU-hour", «за карту в час»,
    «в месяц»: (what the sum is per, the next index)."""
    words: list[str] = []
    k = j
    while k < len(tokens) and len(words) < 5:
        words.append(tokens[k].folded)
        k += 1
        phrase = " ".join(words).replace(" - ", "-").replace(" / ", "/")
        phrase = re.sub(r"\s*([/-])\s*", r"\1", phrase)
        for per, phrases in _PER_PHRASES.items():
            if phrase in phrases:
                return per, k
    return None


_PER_PHRASES: dict[str, frozenset[str]] = {
    "gpu_hour": frozenset(
        {
            "per gpu-hour", "per gpu hour", "/gpu-hour", "/gpu/h", "/gpu/hr", "/gpu/hour",
            "a gpu-hour", "per gpu per hour", "per card per hour", "per card-hour",
            "за гпу-час", "за gpu-час", "за gpu час", "за карту в час", "за карту/час",
            "за карточку в час", "/гпу/ч", "/gpu/ч", "за гпу в час", "за gpu в час",
            "за видеокарту в час",
        }
    ),
    "hour": frozenset(
        {
            "/ч", "/час", "в час", "за час", "в ч", "/h", "/hr", "/hour", "per hour", "an hour",
            "a hour", "per hr", "hourly", "за 1 час", "в 1 час",
        }
    ),
    "month": frozenset(
        {
            "в месяц", "за месяц", "/мес", "/месяц", "в мес", "per month", "a month", "/month",
            "/mo", "monthly",
        }
    ),
}  # fmt: skip


def quantities(text: str) -> list[Quantity]:
    """Every number in `text` with its unit, left to right (see the module docstring)."""
    tokens = tokenize(text)
    return quantities_of(tokens)


def quantities_of(tokens: list[Token]) -> list[Quantity]:
    found: list[Quantity] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        glued_to_word = token.glued and i > 0 and tokens[i - 1].kind == "word"
        if token.kind == "num" and glued_to_word and tokens[i - 1].folded not in {"x", "х"}:
            i += 1  # "qwen2", "h100": part of a name
            continue
        ratio = _ratio_word(token)
        if ratio is not None:
            found.append(Quantity(ratio, 0, Unit.TIMES, token.start, token.end, i, i + 1))
            i += 1
            continue
        number = _read_number(tokens, i)
        if number is None:
            i += 1
            continue
        j = number.last
        unit: Unit | None = None
        byte_factor = 1.0
        per: str | None = None
        # «13b», «7б», «13 млрд»: billions with no count after them are a model's size.
        size_word = (
            j < len(tokens)
            and tokens[j].folded in {"b", "б", "bn", "млрд"}
            and (tokens[j].glued or tokens[j].folded != "b")
        )
        if size_word and number.scale == 0:
            after = _unit(tokens, j + 1)
            if after is not None and after[0] in (Unit.TOKENS, Unit.EXAMPLES, Unit.RUB):
                number.scale, j = 3, j + 1
            else:
                unit, j = Unit.PARAMS, j + 1
                params = _unit(tokens, j)
                if params is not None and params[0] is Unit.PARAMS:
                    j = params[2]
        if unit is None:
            # «в два раза»: «раз» after the number; "2x" glued.
            read = _unit(tokens, j) or _examples_after_a_word(tokens, j)
            if read is not None:
                unit, byte_factor, j = read
            elif (
                j < len(tokens)
                and tokens[j].folded in {"x", "х", "×"}
                and tokens[j].glued
                and number.scale == 0
            ):
                unit, j = Unit.TIMES, j + 1
        start = tokens[number.first].start
        sign = tokens[number.first - 1] if number.first > 0 else None
        if unit is None and sign is not None and sign.text in UNIT_SYMBOLS and token.glued:
            unit, start = Unit(UNIT_SYMBOLS[sign.text]), sign.start  # "$100", «₽500»
        if unit is None:
            # «часа за 3», «дня за два»: the unit before «за» and the number, the Russian way of
            # saying "about" (the time limit was dropped in silence)
            inverted = _time_before(tokens, number.first)
            if inverted is not None:
                unit, first = inverted
                start = tokens[first].start
        if unit in (Unit.RUB, Unit.FOREIGN_MONEY):
            rate = _per(tokens, j)
            if rate is not None:
                per, j = rate
        found.append(
            Quantity(
                number.mantissa,
                number.scale,
                unit,
                start,
                tokens[j - 1].end,
                number.first,
                j,
                byte_factor,
                per,
                number.from_words,
            )
        )
        i = j
    return found


def _time_before(tokens: list[Token], first: int) -> tuple[Unit, int] | None:
    """(hours or days, the unit word's index) when «<час/день> за» stands right before the
    number at `first`; None otherwise."""
    if first < 2 or tokens[first - 1].folded != "за":
        return None
    read = _unit(tokens, first - 2)
    if read is None or read[0] not in (Unit.HOURS, Unit.DAYS):
        return None
    return read[0], first - 2


def _ratio_word(token: Token) -> float | None:
    if token.kind != "word":
        return None
    return RATIO_WORDS.get(token.folded)


def number_in(text: str) -> Quantity | None:
    """The one quantity `text` is, when it is nothing else («50к», «тысяч 5», «полтора»)."""
    tokens = tokenize(text)
    found = quantities_of(tokens)
    if len(found) == 1 and found[0].first == 0 and found[0].last == len(tokens):
        return found[0]
    return None
