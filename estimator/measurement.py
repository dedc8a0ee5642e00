"""A person's own measured training speed: read from their words, set against the time model.

«у меня 2,1 с/шаг на 4090 при bs 4», "I get 3 100 tok/s on an A100", «1.3 it/s на 2× A100»:
a speed with its unit, the card (and count) it was measured on, and the micro-batch where it
says one. `read_speed` finds these; `measure` sets the speed against what the time model
(estimator.timing) predicts for the same run on the same cards. Their ratio is the person's
setup against the model's (their stack, data loader, clocks, drivers); their later answers
scale every card's and count's time by it, and say so.

A step is one optimizer step of the run on each GPU: `micro_batch` × the tokens of a row
(estimator.step.sequence) × `grad_accum`. Tokens per second are read as the whole run's figure
and divided by its cards, as trainers' progress bars print them; the reply says how it read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum

from estimator import gpus as catalog
from estimator.query import FitQuery
from estimator.specs import ModelSpec
from estimator.step import sequence
from estimator.timing import tokens_per_second

# A measurement further than this from the model, either way, is more likely a misread unit or
# batch than a setup: it is refused with a word on what to check, not stored.
MOST_OFF = 5.0


class SpeedUnit(StrEnum):
    SECONDS_PER_STEP = "s/step"
    STEPS_PER_SECOND = "step/s"
    TOKENS_PER_SECOND = "tok/s"


_NUMBER = r"(\d{1,3}(?:[ \u00a0\u202f]\d{3})+|\d+(?:[.,]\d+)?)(\s*[kк])?"
_SECONDS = r"(?:с|сек|s|sec|секунд[аы]?)"
_STEP = r"(?:шаг|step|it|iter|итерац\w*)"
_TOKENS = r"(?:tok(?:en)?s?|токен\w*|ток)"
_PER_SECOND = r"(?:/\s*(?:с|сек|s|sec)\b|\s+(?:в|per|a)\s+(?:секунду|second|sec)\b)"
_UNITS: tuple[tuple[SpeedUnit, str], ...] = (
    (SpeedUnit.SECONDS_PER_STEP, rf"{_SECONDS}\.?\s*(?:/|\s+(?:на|per|a)\s+)\s*{_STEP}\b"),
    (SpeedUnit.STEPS_PER_SECOND, rf"{_STEP}\s*{_PER_SECOND}"),
    (SpeedUnit.TOKENS_PER_SECOND, rf"{_TOKENS}\.?\s*{_PER_SECOND}"),
)
_SPEED = [(unit, re.compile(rf"{_NUMBER}\s*{pattern}", re.IGNORECASE)) for unit, pattern in _UNITS]
_BATCH = re.compile(
    r"\b(?:bs|batch(?:[ _]size)?|батч\w*|микробатч\w*|micro[ _-]?batch)\s*[=:]?\s*(\d{1,4})\b",
    re.IGNORECASE,
)
_COUNT_BEFORE = re.compile(r"(\d{1,2})\s*(?:[×xх*]\s*)?$", re.IGNORECASE)
_COUNT_AFTER = re.compile(r"^\s*[×xх*]\s*(\d{1,2})\b", re.IGNORECASE)


@dataclass(frozen=True)
class SpeedReading:
    """What a message says it measured."""

    value: float
    unit: SpeedUnit
    gpu_id: str
    gpus: int
    micro_batch: int | None  # as written; None: the run's own
    words: str  # the speed as written, shown back in the reply
    rest: str  # the message without the speed, the card and the batch: the run, if any


@dataclass(frozen=True)
class Measurement:
    """A person's speed against the model's, for the run they measured."""

    gpu_id: str
    gpus: int
    tokens_per_second: float  # per GPU, as measured
    predicted: float  # per GPU, what the time model gives for the same run
    run: str  # the run measured, as a /fit command

    @property
    def factor(self) -> float:
        """The person's setup against the model's: their hours are the model's / factor."""
        return self.tokens_per_second / self.predicted

    @property
    def plausible(self) -> bool:
        return 1 / MOST_OFF <= self.factor <= MOST_OFF


def _number(digits: str, thousands: str | None) -> float:
    value = float(re.sub(r"[ \u00a0\u202f]", "", digits).replace(",", "."))
    return value * 1000 if thousands else value


def read_speed(text: str) -> SpeedReading | None:
    """The measurement a message states, or None when it names no speed with its unit and no
    card it was measured on."""
    found = _first_speed(text)
    if found is None:
        return None
    unit, match = found
    value = _number(match.group(1), match.group(2))
    mentions = catalog.find_in_text(text)
    if value <= 0 or not mentions:
        return None
    _label, start, end = mentions[0]
    gpu_id = _card(text[start:end])
    if gpu_id is None:
        return None
    before = _COUNT_BEFORE.search(text[max(0, start - 6) : start])
    after = _COUNT_AFTER.search(text[end : end + 6])
    count = 1
    spans = [match.span(), (start, end)]
    if before is not None:
        count = int(before.group(1))
        spans.append((max(0, start - 6) + before.start(), start))
    elif after is not None:
        count = int(after.group(1))
        spans.append((end, end + after.end()))
    batch = _BATCH.search(text)
    if batch is not None:
        spans.append(batch.span())
    return SpeedReading(
        value=value,
        unit=unit,
        gpu_id=gpu_id,
        gpus=max(1, count),
        micro_batch=int(batch.group(1)) if batch else None,
        words=match.group(0).strip(),
        rest=_without(text, spans),
    )


def _card(name: str) -> str | None:
    """The card a mention names; of a family named without its form or size ("an A100",
    "h100"), the fastest member: set against the faster card, the speed reads as the slower
    setup, and the hours that follow lean long (the safe side)."""
    found = catalog.resolve(name)
    if found is not None:
        return found
    members = [catalog.get(gpu_id) for gpu_id in catalog.candidates(name)]
    fastest = max(members, key=lambda gpu: (gpu.tflops, gpu.bandwidth_gbs), default=None)
    return None if fastest is None else fastest.id


def _first_speed(text: str) -> tuple[SpeedUnit, re.Match[str]] | None:
    found = [(unit, match) for unit, pattern in _SPEED if (match := pattern.search(text))]
    return min(found, key=lambda item: item[1].start(), default=None)


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    kept = text
    for start, end in sorted(spans, reverse=True):
        kept = kept[:start] + " " + kept[end:]
    return re.sub(r"\s+", " ", kept).strip()


def measured_query(reading: SpeedReading, query: FitQuery) -> FitQuery:
    """The run as measured: the batch and the cards the message names."""
    batch = reading.micro_batch or query.micro_batch
    return replace(query, micro_batch=batch, gpus=reading.gpus, gpu=reading.gpu_id)


def measure(reading: SpeedReading, query: FitQuery, model: ModelSpec, run: str) -> Measurement:
    """The reading against the time model's figure for `query` on the cards measured."""
    measured = measured_query(reading, query)
    gpu = catalog.get(reading.gpu_id)
    step_tokens = measured.micro_batch * sequence(measured) * max(1, measured.grad_accum)
    if reading.unit is SpeedUnit.TOKENS_PER_SECOND:
        per_gpu = reading.value / reading.gpus
    elif reading.unit is SpeedUnit.SECONDS_PER_STEP:
        per_gpu = step_tokens / reading.value
    else:
        per_gpu = step_tokens * reading.value
    predicted = tokens_per_second(measured, model, gpu, reading.gpus)
    return Measurement(reading.gpu_id, reading.gpus, per_gpu, predicted, run)
