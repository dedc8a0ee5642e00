"""One field of a form or a query string, read as the chat reads the same words.

A price («599,5», «600 ₽», «1 200,5 руб/ч»), a card («a100 80gb», «rtx 4090»), a model
(«Llama 3 8B», «14b»), a dataset («20k», «2 гб», «50m токенов»), a count («4k», 8192). The
Mini App (bot/miniapp/app_api.py), the open-data API's parameters (bot/ops/open_data.py) and
the /subs price editor read their fields here, so what the chat accepts they accept, each into
a typed value: nothing is glued into command words to be parsed again. A field that cannot be
read raises FieldError naming the field; the transport words it (the Mini App's texts:
`app-field-error-<field>` in miniapp.ftl, in the user's language).

Every number goes through `read_amount`, the one place that turns text into a number for
these fields (estimator.parsing's reader), so the reader can be swapped in one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from estimator import gpus
from estimator.models import match_model
from estimator.parse import QueryError
from estimator.parsing.build import LIMITS, check_size, resolve_gpu
from estimator.parsing.patterns import amount_value, size_value
from estimator.parsing.words import TEXT_SIZE_UNITS
from estimator.specs import ModelSpec
from monitor.cards import CardFilter
from monitor.watch_words import gpu_in_words

# «600 ₽», «600 руб/ч», "600 rub per GPU-hour": the unit after a price, as the watch grammar
# writes it (monitor/watch_words.py).
_PRICE_UNIT = re.compile(
    r"\s*(?:₽|руб\w*\.?|rub\w*|rur|р\.?)?\s*"
    r"(?:(?:/|per|за|в)\s*(?:gpu\s*[·.*-]?\s*)?(?:час|ч|hour|hr|h)\.?)?\s*$",
    re.IGNORECASE,
)
_MEMORY_UNIT = re.compile(r"\s*(?:gib|gb|гиб|гб|g|г)\s*$", re.IGNORECASE)
MAX_MEMORY_GB = 4096
# A text size glued to its number: «2gb», «500мб».
_GLUED_SIZE = re.compile(r"(?P<number>.*\d)(?P<unit>" + "|".join(TEXT_SIZE_UNITS) + r")")
# Thin or plain spaces between groups of thousands: «1 200,5».
_GROUP_SPACE = re.compile(r"(?<=\d)[ \u00a0\u202f](?=\d{3}(?!\d))")
_TOKEN_UNITS = frozenset({"токенов", "токена", "токен", "tokens", "token", "tok", "ток"})
_EXAMPLE_UNITS = frozenset(
    {"", "примеров", "пример", "примера", "строк", "строки", "samples", "examples", "rows"}
)
MAX_TEXT = 64  # a field is a few words; longer text is not one


class FieldError(ValueError):
    """A field that cannot be read: which one, what it said, and a near miss to suggest."""

    def __init__(self, field: str, value: object = "", near: str | None = None) -> None:
        super().__init__(f"{field}: cannot read {value!r}")
        self.field = field
        self.value = str(value)[:40]
        self.near = near


def _text(field: str, raw: object) -> str:
    if not isinstance(raw, str) or not raw.strip() or len(raw) > MAX_TEXT:
        raise FieldError(field, raw)
    return raw.strip()


def read_amount(text: str, *, thousand: int = 1000) -> float | None:
    """A number as the chat reads one: «599,5», «1 200», «10k», «2 тыс», «1,5 млн». The one
    number reader of these fields."""
    return amount_value(_GROUP_SPACE.sub("", text), thousand=thousand)


def read_price(raw: object, field: str, *, high: float) -> float:
    """₽ per GPU-hour above 0 and at most `high`: a JSON number, or text with a decimal
    comma and its unit («599,5», «600 ₽», «300 руб/ч»)."""
    return _positive(raw, field, _PRICE_UNIT, high)


def read_memory(raw: object, field: str) -> float:
    """GB per card, as sold: «80», «80gb», «48 гб»."""
    return _positive(raw, field, _MEMORY_UNIT, MAX_MEMORY_GB)


def _positive(raw: object, field: str, unit: re.Pattern[str], high: float) -> float:
    """A number above 0 and at most `high`: a JSON number, or text ending in `unit`."""
    if isinstance(raw, bool):
        raise FieldError(field, raw)
    if isinstance(raw, int | float):
        value: float | None = float(raw)
    else:
        value = read_amount(unit.sub("", _text(field, raw)))
    if value is None or not 0 < value <= high:
        raise FieldError(field, raw)
    return value


def read_count(raw: object, field: str, low: int, high: int, *, thousand: int = 1000) -> int:
    """A whole number from `low` to `high`: a JSON integer, or text («4k» is 4096 with
    `thousand=1024`, as a context length is meant)."""
    if isinstance(raw, bool):
        raise FieldError(field, raw)
    if isinstance(raw, int):
        value: float | None = float(raw)
    else:
        value = read_amount(_text(field, raw), thousand=thousand)
    if value is None or value != int(value) or not low <= value <= high:
        raise FieldError(field, raw)
    return int(value)


def read_card_filter(raw: object, field: str = "gpu") -> CardFilter:
    """A card or family to list offers of: «rtx 4090», «a100 80gb» (the A100s with 80 GB),
    «h100» (every H100). A name the catalog lacks is refused, with its near miss."""
    text = _text(field, raw)
    try:
        found, rest = gpu_in_words(text.split())
    except QueryError:
        raise FieldError(field, text) from None
    if found is None or rest:
        raise FieldError(field, text, gpus.closest(text))
    return found


def read_card(raw: object, field: str = "gpu") -> tuple[str | None, str | None]:
    """The card to size on, as (catalog id, family): «4090» pins the RTX 4090, «a100» leaves
    the family (the answer takes its smaller member and says so)."""
    text = _text(field, raw)
    try:
        return resolve_gpu(text)
    except QueryError:
        raise FieldError(field, text, gpus.closest(text)) from None


@dataclass(frozen=True)
class ModelField:
    """A model named («Llama 3 8B») or a bare size («14b»: the answer says what it took)."""

    model: ModelSpec | None = None
    size_b: float | None = None


def read_model(raw: object, field: str = "model") -> ModelField:
    text = _text(field, raw)
    named = match_model(text)
    if named is not None:
        return ModelField(model=named)
    size = size_value(text)
    if size is None and (number := read_amount(text)) is not None:
        size = number  # «13»: a size in billions, as /fit 13 reads it
    if size is None:
        raise FieldError(field, text)
    try:
        return ModelField(size_b=check_size(size))
    except QueryError:
        raise FieldError(field, text) from None


@dataclass(frozen=True)
class DatasetField:
    """A dataset by its examples, its tokens, or the size of its text (exactly one)."""

    examples: int | None = None
    tokens: int | None = None
    text_bytes: float | None = None


def read_dataset(raw: object, field: str = "dataset") -> DatasetField:
    """«20k», «20 000 примеров», «50m токенов», «2 гб» (of text), as /fit's dataset= reads it."""
    text = _text(field, raw)
    words = text.lower().split()
    glued = _GLUED_SIZE.fullmatch(words[-1])
    if glued is not None:  # «2gb»
        words[-1:] = [glued.group("number"), glued.group("unit")]
    known = TEXT_SIZE_UNITS.keys() | _TOKEN_UNITS | _EXAMPLE_UNITS
    unit = words.pop() if len(words) > 1 and words[-1] in known else ""
    number = read_amount(" ".join(words))
    if number is None or number <= 0:
        raise FieldError(field, text)
    if unit in TEXT_SIZE_UNITS:
        return DatasetField(text_bytes=number * TEXT_SIZE_UNITS[unit])
    low, high = LIMITS["dataset_tokens" if unit in _TOKEN_UNITS else "dataset"]
    if not low <= number <= high or number != round(number):
        raise FieldError(field, text)
    if unit in _TOKEN_UNITS:
        return DatasetField(tokens=round(number))
    if unit in _EXAMPLE_UNITS:
        return DatasetField(examples=round(number))
    raise FieldError(field, text)
