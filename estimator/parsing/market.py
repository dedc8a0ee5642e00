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

import re
from dataclasses import dataclass

from estimator.parsing.numbers import Unit, quantities
from estimator.parsing.patterns import DECIMAL, alternation, amount_value, compiled
from estimator.parsing.words import (
    HOUR_WORDS,
    MONTH_PRICE_WORDS,
    PER_MONTH_WORDS,
    RATE_CAP_WORDS,
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
    max_rub_per_gpu_hour: float | None = None  # the most per card-hour («за GPU-час»)
    max_rub_per_month: float | None = None  # the most per month of rent («в месяц»)

    @property
    def stated(self) -> bool:
        return (
            self.min_vram_gib is not None
            or self.hours_per_month is not None
            or self.russia_only
            or self.max_rub_per_hour is not None
            or self.max_rub_per_gpu_hour is not None
            or self.max_rub_per_month is not None
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
# «у меня карта на 12 гб», «моя видеокарта на 16 гб», «а если карта на 12 гб?», «влезет в
# карту на 16 гб»: the card the person has (or would), or the one a run must fit in, not a
# floor on the offers; the sizing reader takes its memory (estimator.parsing.slots, card
# memory).
_OWN_CARD = (
    r"(?<!\w)(?:у\s+меня|у\s+нас|моя|есть|если|(?:влез|помест|умест)\w*\s+(?:в|на))\s+"
    rf"(?:\w+\s+)?(?:видео)?карт\w*\s+(?:на|в)\s+{DECIMAL}\s*{_UNITS}"
)
_HOURS = (
    rf"(?<![\w.,])({DECIMAL})\s*{alternation(HOUR_WORDS)}\s*"
    rf"{alternation(PER_MONTH_WORDS, left_boundary=False)}",
)
# Words before a cap that say it is one: «до 300 ₽/ч», "under 600 rub per GPU-hour".
_CAP_BEFORE = re.compile(rf"(?:{alternation(RATE_CAP_WORDS)}\s*)$", re.IGNORECASE)
_RUSSIA = alternation(RUSSIA_ONLY_PHRASES)
_MONTH_PRICE = alternation(MONTH_PRICE_WORDS)


def _take(
    text: str, patterns: tuple[str, ...], spans: dict[str, tuple[int, int]], name: str
) -> tuple[str | None, str]:
    """The value group of the first pattern that matches, and `text` with the match blanked."""
    for pattern in patterns:
        m = compiled(pattern).search(text)
        if m:
            spans[name] = (m.start(), m.end())
            return next(g for g in m.groups() if g is not None), _blank(text, m.start(), m.end())
    return None, text


def _within(value: float | None, bounds: tuple[float, float]) -> float | None:
    low, high = bounds
    return value if value is not None and low <= value <= high else None


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


_RATE_FIELDS = {
    "hour": "max_rub_per_hour",
    "gpu_hour": "max_rub_per_gpu_hour",
    "month": "max_rub_per_month",
}


def _take_rates(text: str, spans: dict[str, tuple[int, int]]) -> tuple[dict[str, float], str]:
    """Sums in roubles per hour, per GPU-hour or per month (estimator.parsing.numbers reads
    the «/ч», "per GPU-hour", «в месяц» after them), and `text` with them blanked."""
    rates: dict[str, float] = {}
    for found in quantities(text):
        if found.unit is not Unit.RUB or found.per is None or found.per in rates:
            continue
        value = _within(found.value(), RATE_RANGE)
        if value is None:
            continue
        rates[found.per] = value
        cap = _CAP_BEFORE.search(text, 0, found.start)
        start = cap.start() if cap else found.start
        spans[_RATE_FIELDS[found.per]] = (start, found.end)
        text = _blank(text, start, found.end)
    return rates, text


def take_constraints(text: str) -> tuple[Constraints, str]:
    """The constraints `text` states, and `text` with what they used blanked (same length)."""
    found, _spans, text = take_constraints_said(text)
    return found, text


def take_constraints_said(text: str) -> tuple[Constraints, dict[str, tuple[int, int]], str]:
    """As `take_constraints`, with where each constraint was said: {ParsedQuery field name:
    (start, end)}."""
    spans: dict[str, tuple[int, int]] = {}
    rates, text = _take_rates(text, spans)
    raw_hours, text = _take(text, _HOURS, spans, "hours_per_month")
    hours = _within(amount_value(raw_hours, thousand=1000), HOURS_RANGE) if raw_hours else None
    raw_vram: str | None = None
    if not compiled(_OWN_CARD).search(text):
        raw_vram, text = _take(text, _VRAM, spans, "min_vram_gib")
    vram = _within(amount_value(raw_vram, thousand=1000), VRAM_RANGE) if raw_vram else None
    russia = compiled(_RUSSIA).search(text)
    if russia:
        spans["russia_only"] = (russia.start(), russia.end())
        text = _blank(text, russia.start(), russia.end())
    found = Constraints(
        min_vram_gib=vram,
        hours_per_month=hours,
        russia_only=russia is not None,
        max_rub_per_hour=rates.get("hour"),
        max_rub_per_gpu_hour=rates.get("gpu_hour"),
        max_rub_per_month=rates.get("month"),
    )
    return found, spans, text


def read_constraints(text: str) -> Constraints:
    """The offer constraints in any text (a market question, a sizing question); never raises."""
    return take_constraints(text[:MAX_LENGTH])[0]


def asks_month_price(text: str) -> bool:
    """Whether `text` asks for a month's price («сколько стоит h100 в месяц?», "monthly");
    usage hours («60 часов в месяц») and a cap per hour are read first and do not count."""
    rest = take_constraints(text[:MAX_LENGTH])[1]
    return compiled(_MONTH_PRICE).search(rest) is not None
