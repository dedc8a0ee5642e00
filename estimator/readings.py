"""Readings of a question that lead to different answers, for the bot to ask between.

A bare size names no model («14b»: Qwen2.5-14B, Qwen3-14B or Phi-4?) and a family no memory
size («a100»: 40 or 80 GB?). The answer sizes the first reading (the model people tune at
that size, `models.SIZE_CHOICES`; the family's smaller member, `answer.conservative_member`)
and says what it took. When another reading gives another verdict (another smallest card,
or the card asked about holds the run one way and not the other), one short question with a
button per reading asks which was meant (bot/routers/fit.py). When every reading gives the
same verdict there is nothing worth a question.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from estimator.answer import FitAnswer, build_answer
from estimator.fit import Verdict
from estimator.gpus import family_members, load_gpus
from estimator.models import get_model, size_reading
from estimator.parsing.result import ParsedQuery


@dataclass(frozen=True)
class Reading:
    """One way to read the question: the run it makes and its answer without prices."""

    kind: Literal["model", "card"]  # what it settles: which model, or which card of a family
    label: str  # what the button names: a model id ("Qwen2.5-14B") or a card ("A100 80GB PCIe")
    parsed: ParsedQuery
    answer: FitAnswer

    @property
    def peak(self) -> float:
        """The run's peak per card, GiB (nvidia-smi)."""
        return self.answer.memory.peak

    @property
    def fits(self) -> bool | None:
        """Whether the card asked about holds the run on its count; None with no card asked."""
        target = self.answer.target
        return None if target is None else target.verdict is not Verdict.NO


def verdict(answer: FitAnswer) -> tuple[object, ...]:
    """What a person acts on: whether the asked card holds the run, else which card is the
    smallest that does (or the fewest cards). Tight or roomy is the same verdict, and so is
    how many of a card too small for it would do: the answer says which."""
    target = answer.target
    if target is not None:
        return ("target", target.verdict is not Verdict.NO)
    if answer.smallest is not None:
        return ("smallest", answer.smallest.gpu.id)
    fewest = answer.fewest
    return ("fewest", None if fewest is None else (fewest.min_gpus, fewest.gpu.id))


def _sized(kind: Literal["model", "card"], label: str, parsed: ParsedQuery) -> Reading:
    return Reading(kind, label, parsed, build_answer(parsed, load_gpus()))


def with_model(parsed: ParsedQuery, model_id: str) -> ParsedQuery:
    """The same run on a named model: no longer a bare size, nothing assumed about it."""
    model = get_model(model_id)
    return replace(
        parsed,
        query=replace(parsed.query, model=model.id),
        model=model,
        model_from_size=False,
        asked_size=None,
        assumptions=tuple(a for a in parsed.assumptions if a.key != "model"),
    )


def with_card(parsed: ParsedQuery, gpu_id: str) -> ParsedQuery:
    """The same run on one card where the question named its family."""
    return replace(
        parsed, query=replace(parsed.query, gpu=gpu_id), target_gpu=gpu_id, target_family=None
    )


def model_readings(parsed: ParsedQuery) -> list[Reading]:
    """A bare size: the model it was read as, then the other models people tune at it."""
    if not parsed.model_from_size or parsed.asked_size is None:
        return []
    others = size_reading(parsed.asked_size).others
    # Each button names its model, the first too: the answer it gives says which model it
    # sized in its header, as the others do, instead of the bare size again.
    first = _sized("model", parsed.model.id, with_model(parsed, parsed.model.id))
    return [first, *(_sized("model", other, with_model(parsed, other)) for other in others)]


def card_readings(parsed: ParsedQuery) -> list[Reading]:
    """A family named without its memory: one reading per memory size people rent (the
    slowest member of each, as sizing does), the smaller first as the answer takes it."""
    family = parsed.target_family
    if parsed.target_gpu is not None or family is None:
        return []
    usual = [gpu for gpu in family_members(family) if not gpu.variant]
    by_memory: dict[float, str] = {}
    for gpu in sorted(usual, key=lambda g: (g.vram_gb, g.tflops, g.bandwidth_gbs)):
        by_memory.setdefault(gpu.vram_gb, gpu.id)
    if len(by_memory) < 2:
        return []
    return [_sized("card", gpu_id, with_card(parsed, gpu_id)) for gpu_id in by_memory.values()]


def readings_to_ask(parsed: ParsedQuery) -> list[Reading]:
    """The readings worth a question, the answer's own first; [] when every reading gives
    the same verdict. A model is asked before a card: the chosen model's answer still says
    which member of the family holds it."""
    for readings in (model_readings(parsed), card_readings(parsed)):
        if len({verdict(reading.answer) for reading in readings}) > 1:
            return readings
    return []
