"""«Какую модель можно дообучить на 4090?», "what's the biggest model I can fine-tune on an
A100?": the largest of the sizes people fine-tune that the card holds, by method.

The same memory model and verdict as every answer (estimator.fit.judge_run on the card's usable
memory, the range's high end with headroom for «помещается»), on the model a bare size reads as
(estimator.models.model_for_size), at the context asked or 2048.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from estimator.fit import Verdict, judge_run
from estimator.models import model_for_size
from estimator.query import FitQuery, Method
from estimator.specs import GpuSpec, ModelSpec

# Billions of parameters: the sizes open models are published and fine-tuned at.
SIZES: tuple[float, ...] = (1, 3, 7, 8, 13, 14, 32, 70)
DEFAULT_CTX = 2048

_ASKS = re.compile(
    r"как(?:ую|ие|ая)\s+(?:(?:самую|самые)\s+)?(?:(?:больш|максимальн|крупн)\w*\s+)?модел|"
    r"(?:самую\s+)?(?:больш|максимальн|крупн)\w*\s+модел|"
    r"(?:what|which)(?:'s|\s+is)?\s+(?:the\s+)?(?:biggest|largest|max\w*)?\s*models?\b|"
    r"(?:biggest|largest)\s+model",
    re.IGNORECASE,
)


def asks_largest(text: str) -> bool:
    """Whether `text` asks which model (size) a card can fine-tune."""
    return _ASKS.search(text) is not None


@dataclass(frozen=True)
class Largest:
    method: Method
    fits: ModelSpec | None  # the model of the largest size that holds with room
    fits_size: float | None  # that size, as people say it (14, not Qwen2.5-14B's 14.77)
    fits_high_gib: float | None  # its peak's high end on the card
    tight_size: float | None  # a larger size that would be tight, if any


def largest_models(card: GpuSpec, method: Method, ctx: int = DEFAULT_CTX) -> Largest:
    """The largest size `card` holds for `method` at `ctx`, one card, defaults otherwise."""
    fits: ModelSpec | None = None
    fits_size = high = tight = None
    for size in SIZES:
        model = model_for_size(size)
        judged = judge_run(FitQuery(model=model.id, method=method, ctx=ctx), model, card.usable_gib)
        if judged.verdict is Verdict.FITS:
            fits, fits_size, high, tight = model, size, judged.band.high, None
        elif judged.verdict is Verdict.TIGHT and tight is None:
            tight = size
    return Largest(method, fits, fits_size, high, tight)
