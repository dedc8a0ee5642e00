"""Regular expressions built from the word tables, and number parsing shared by both parsers."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import TypeVar

from estimator.parsing.words import MILLION_UNITS, SIZE_UNITS, THOUSAND_UNITS

E = TypeVar("E")

_SEPARATOR = r"[\s\-_]*"  # "8-bit", "8 bit" and "8bit" are one phrase


def _word(word: str) -> str:
    if word.endswith("*"):
        return re.escape(word[:-1]) + r"\w*"
    return re.escape(word)


def phrase(text: str) -> str:
    """Regex for one table phrase: words joined by any run of spaces, hyphens, underscores."""
    return _SEPARATOR.join(_word(w) for w in re.split(r"[\s\-]+", text.strip()) if w)


_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)


def language_of(text: str) -> str:
    """ "ru" for text with Cyrillic letters, else "en": the language to answer in, and the
    language of a message's own words (the parsers read both)."""
    return "ru" if _CYRILLIC.search(text) else "en"


def alternation(phrases: Iterable[str], *, left_boundary: bool = True) -> str:
    """One group matching any of the phrases as whole words (longest first)."""
    return _alternation(tuple(phrases), left_boundary)


@functools.cache
def _alternation(phrases: tuple[str, ...], left_boundary: bool) -> str:
    # Built once per table: the readers ask for the same alternations on every message.
    ordered = sorted(phrases, key=len, reverse=True)
    body = "|".join(phrase(p) for p in ordered)
    return (r"(?<!\w)" if left_boundary else "") + f"(?:{body})" + r"(?!\w)"


@functools.cache
def compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def find_choice(table: Mapping[E, tuple[str, ...]], text: str) -> tuple[E, int, int] | None:
    """The table entry whose phrase occurs first in `text` (the longest at the same place)."""
    best: tuple[int, int, E] | None = None
    for value, phrases in table.items():
        m = compiled(alternation(phrases)).search(text)
        if m and (best is None or (m.start(), -m.end()) < (best[0], -best[1])):
            best = (m.start(), m.end(), value)
    return None if best is None else (best[2], best[0], best[1])


# --- numbers ------------------------------------------------------------------------------

# "50 000" (also with no-break spaces) or "1,000,000": digit groups; else "1.5" / "0,5".
GROUPED = r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)|\d{1,3}(?:,\d{3})+(?!\d|[.,]\d)"
DECIMAL = r"\d+(?:[.,]\d+)?"
NUMBER = f"(?:{GROUPED}|{DECIMAL})"
THOUSANDS = alternation(THOUSAND_UNITS, left_boundary=False)
MILLIONS = alternation(MILLION_UNITS, left_boundary=False)
# A number with an optional multiplier: "4096", "4k", "16 к", "1.5k", "10 тысяч", "1м".
AMOUNT = rf"{NUMBER}(?:\s*(?:{THOUSANDS}|{MILLIONS}))?"
# A model size: "13b", "7б", "0,5b", "13 млрд", "13 миллиардов".
SIZE = rf"(?<![\w.,])({DECIMAL})\s*" + alternation(SIZE_UNITS, left_boundary=False)


def number_value(raw: str) -> float | None:
    """A plain number: "4096", "50 000", "1,000", "1.5", "0,5"."""
    text = raw.strip()
    if re.fullmatch(GROUPED, text):
        text = re.sub(r"[ \u00a0\u202f,]", "", text)
    text = text.replace(",", ".")
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and value not in (float("inf"), float("-inf")) else None


def amount_value(raw: str, *, thousand: int) -> float | None:
    """A number with an optional k/м/тысяч multiplier; `thousand` is 1024 for context lengths
    (powers of two are what "4k context" means) and 1000 for counts of examples."""
    m = compiled(rf"\s*({NUMBER})\s*(?:({THOUSANDS})|({MILLIONS}))?\s*").fullmatch(raw)
    if m is None:
        return None
    value = number_value(m.group(1))
    if value is None:
        return None
    if m.group(2):
        value *= thousand
    elif m.group(3):
        value *= thousand * thousand
    return value


def size_value(raw: str) -> float | None:
    """Billions of parameters from "13b", "7б", "13 млрд", "0,5b"; None if not a size."""
    m = compiled(rf"\s*{SIZE}\s*").fullmatch(raw)
    return number_value(m.group(1)) if m else None
