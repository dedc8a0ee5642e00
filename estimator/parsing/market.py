"""What a question asks of the offers rather than of the run: a memory floor per card, usage
hours per month, Russian providers only, a cap per server-hour.

    read_constraints("самая дешевая карта с 48 гигами, только РФ, до 300 ₽/ч")
    -> Constraints(min_vram_gib=48, russia_only=True, max_rub_per_hour=300)

Pure and never raising, so any router can read them (a market question names no model, so
`parse_question` returns None for it). The sizing parser reads them through
`take_constraints`, which also blanks what it used so that "до 300 ₽/ч" is not read again
as a total budget.

Memory: the number is taken as the card's capacity as sold (`GpuSpec.vram_gb`, "48GB"), which
is what people quote and what providers list. GPU makers' "GB" for memory is binary in
practice (an "80GB" A100 reports 81 920 MiB in nvidia-smi, NVIDIA A100 datasheet), so the
floor is stored unconverted in `min_vram_gib`; a "48 ГиБ" floor reads the same number.
"""

from __future__ import annotations

from dataclasses import dataclass

from estimator.parsing.patterns import AMOUNT, DECIMAL, alternation, amount_value, compiled
from estimator.parsing.words import (
    HOUR_WORDS,
    MONTH_PRICE_WORDS,
    PER_HOUR_WORDS,
    PER_MONTH_WORDS,
    RATE_CAP_WORDS,
    RUBLE_WORDS,
    RUSSIA_ONLY_PHRASES,
    TEXT_WORDS,
    VRAM_AT_LEAST_AFTER,
    VRAM_AT_LEAST_BEFORE,
    VRAM_UNITS,
    VRAM_WORDS,
)

MAX_LENGTH = 2000  # as the sizing parser: a question, not a document

# Sane ranges; a value outside is a typo and is dropped.
VRAM_RANGE = (1.0, 4096.0)  # GB per card
HOURS_RANGE = (1.0, 744.0)  # 744 h = 31 days × 24 h: no month has more
RATE_RANGE = (1.0, 10_000_000.0)  # roubles per server-hour


@dataclass(frozen=True)
class Constraints:
    min_vram_gib: float | None = None  # each card at least this much memory, as sold
    hours_per_month: float | None = None  # how many hours a month the card is used
    russia_only: bool = False  # only offers from providers in Russia
    max_rub_per_hour: float | None = None  # the most per server-hour

    @property
    def stated(self) -> bool:
        return (
            self.min_vram_gib is not None
            or self.hours_per_month is not None
            or self.russia_only
            or self.max_rub_per_hour is not None
        )


_UNITS = alternation(VRAM_UNITS, left_boundary=False)
_NOT_TEXT = rf"(?!\s*{alternation(TEXT_WORDS)})"  # "с 2 гб текста" is a dataset
_VRAM = (
    rf"{alternation(VRAM_AT_LEAST_BEFORE)}\s*({DECIMAL})\s*{_UNITS}{_NOT_TEXT}"
    rf"(?:\s*{alternation(VRAM_WORDS)})?",
    rf"(?<![\w.,])({DECIMAL})\s*{_UNITS}\s*{alternation(VRAM_AT_LEAST_AFTER, left_boundary=False)}",
    rf"(?<![\w.,])({DECIMAL})\s*{_UNITS}\s*{alternation(VRAM_WORDS)}",
    rf"(?<!\w)(?:видео)?карт\w*\s+(?:на|в)\s+({DECIMAL})\s*{_UNITS}{_NOT_TEXT}",
)
_HOURS = (
    rf"(?<![\w.,])({DECIMAL})\s*{alternation(HOUR_WORDS)}\s*"
    rf"{alternation(PER_MONTH_WORDS, left_boundary=False)}",
)
_RATE = (
    rf"(?:{alternation(RATE_CAP_WORDS)}\s*)?(?<![\w.,])({AMOUNT})\s*"
    rf"{alternation(RUBLE_WORDS, left_boundary=False)}\s*"
    rf"{alternation(PER_HOUR_WORDS, left_boundary=False)}",
)
_RUSSIA = alternation(RUSSIA_ONLY_PHRASES)
_MONTH_PRICE = alternation(MONTH_PRICE_WORDS)


def _take(text: str, patterns: tuple[str, ...]) -> tuple[str | None, str]:
    """The value group of the first pattern that matches, and `text` with the match blanked."""
    for pattern in patterns:
        m = compiled(pattern).search(text)
        if m:
            blanked = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
            return next(g for g in m.groups() if g is not None), blanked
    return None, text


def _within(value: float | None, bounds: tuple[float, float]) -> float | None:
    low, high = bounds
    return value if value is not None and low <= value <= high else None


def take_constraints(text: str) -> tuple[Constraints, str]:
    """The constraints `text` states, and `text` with what they used blanked (same length)."""
    raw_rate, text = _take(text, _RATE)
    rate = _within(amount_value(raw_rate, thousand=1000), RATE_RANGE) if raw_rate else None
    raw_hours, text = _take(text, _HOURS)
    hours = _within(amount_value(raw_hours, thousand=1000), HOURS_RANGE) if raw_hours else None
    raw_vram, text = _take(text, _VRAM)
    vram = _within(amount_value(raw_vram, thousand=1000), VRAM_RANGE) if raw_vram else None
    russia = compiled(_RUSSIA).search(text)
    if russia:
        text = text[: russia.start()] + " " * (russia.end() - russia.start()) + text[russia.end() :]
    found = Constraints(
        min_vram_gib=vram,
        hours_per_month=hours,
        russia_only=russia is not None,
        max_rub_per_hour=rate,
    )
    return found, text


def read_constraints(text: str) -> Constraints:
    """The offer constraints in any text (a market question, a sizing question); never raises."""
    return take_constraints(text[:MAX_LENGTH])[0]


def asks_month_price(text: str) -> bool:
    """Whether `text` asks for a month's price («сколько стоит h100 в месяц?», "monthly");
    usage hours («60 часов в месяц») and a cap per hour are read first and do not count."""
    rest = take_constraints(text[:MAX_LENGTH])[1]
    return compiled(_MONTH_PRICE).search(rest) is not None
