"""«Какую модель можно дообучить на 4090?», "what's the biggest model I can fine-tune on an
A100?": the largest of the sizes people fine-tune that the card holds, by method.

The same memory model and verdict as every answer (estimator.fit.judge_run on the card's usable
memory, the range's high end with headroom for «помещается»), on the model a bare size reads as
(estimator.models.model_for_size). The run around the model is read by the sizing reader, as in
any sizing question: the card (by name, family or memory), how many, the context, the batch,
the stack («на двух 4090 с контекстом 8к, unsloth»); what is not said is its default.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from estimator.fit import Verdict, judge_run
from estimator.fit_words import command_with_method
from estimator.models import model_for_size
from estimator.parse import ParsedQuery, parse_question
from estimator.query import FitQuery, Method
from estimator.solve import target_gpu
from estimator.specs import GpuSpec, ModelSpec

# Billions of parameters: the sizes open models are published and fine-tuned at.
SIZES: tuple[float, ...] = (1, 3, 7, 8, 13, 14, 32, 70)
DEFAULT_CTX = 2048

_ASKS = re.compile(
    r"как(?:ую|ие|ая)\s+(?:(?:самую|самые)\s+)?(?:(?:больш|максимальн|крупн)\w*\s+)?модел|"
    r"(?:самую\s+)?(?:больш|максимальн|крупн)\w*\s+модел|"
    r"модел\w*\s+какого\s+размера|какого\s+размера\s+модел|"
    # «что можно дообучить на 3060?», «что я смогу зафайнтюнить»
    r"что\s+(?:(?:я|мы)\s+)?(?:можно|могу|смогу|сможем|получится)\s+"
    r"(?:до|за|пере)?(?:обучить|учить|файнтюнить|тюнить)|"
    r"(?:what|which)(?:'s|\s+is)?\s+(?:the\s+)?(?:biggest|largest|max\w*)?\s*models?\b|"
    r"(?:biggest|largest)\s+model|what\s+size\s+model|"
    r"what\s+can\s+(?:i|we)\s+(?:fine[\s-]?tune|train|tune|q?lora)",
    re.IGNORECASE,
)
# Read in place of the model the question does not name, so that the sizing reader reads the
# rest of the run; the answer puts each size in its place.
STAND_IN = "8b"


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


@dataclass(frozen=True)
class LargestQuestion:
    card: GpuSpec  # the card named; a family's or a memory size's is the one with least memory
    parsed: ParsedQuery  # the run as read (card count, ctx, batch, stack...), a stand-in model
    methods: tuple[Method, ...]  # the one named, else QLoRA, LoRA and full

    @property
    def run(self) -> FitQuery:
        return self.parsed.query

    def command(self, size: float, method: Method) -> str:
        """The /fit command that sizes `size` by `method` in the question's run."""
        return command_with_method(replace(self.parsed, asked_size=size), method)


def read_largest(text: str, gpus: Sequence[GpuSpec]) -> LargestQuestion | None:
    """The question for the largest model a card holds, with the run it says; None when the
    text asks no such thing, names a model (a sizing question) or names no card."""
    if not asks_largest(text) or parse_question(text) is not None:
        return None
    parsed = parse_question(f"{text} {STAND_IN}")
    if parsed is None:
        return None
    card = target_gpu(parsed, gpus)
    if card is None:
        return None
    named = parsed.assumed("method") is None
    methods = (parsed.query.method,) if named else (Method.QLORA, Method.LORA, Method.FULL)
    return LargestQuestion(card, parsed, methods)


def largest_models(card: GpuSpec, method: Method, run: FitQuery | None = None) -> Largest:
    """The largest size `card` holds for `method` in `run` (one card at DEFAULT_CTX with
    the defaults when none is given); the run's model is replaced by each size's."""
    base = run or FitQuery(model=model_for_size(SIZES[0]).id, method=method, ctx=DEFAULT_CTX)
    fits: ModelSpec | None = None
    fits_size = high = tight = None
    for size in SIZES:
        model = model_for_size(size)
        query = replace(base, model=model.id, method=method)
        judged = judge_run(query, model, card.usable_gib)
        if judged.verdict is Verdict.FITS:
            fits, fits_size, high, tight = model, size, judged.band.high, None
        elif judged.verdict is Verdict.TIGHT and tight is None:
            tight = size
    return Largest(method, fits, fits_size, high, tight)
