"""Levers sized both ways: those a question asked about, and unstated defaults that decide a
verdict.

A question is not an instruction. «нужен ли offload?» leaves the run as it was read (the
reader keeps the default and lists the lever in `ParsedQuery.asked_about`); the answer sizes
it as asked and with the lever switched, and says what switching costs and buys: GiB per GPU,
the verdict, host RAM and time. The same comparison is made for a setting the person did not
state when its default decides the verdict on the card they asked about («считаю без
offload»: with it the run would fit), so a verdict never rests on an unsaid default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from estimator.fit import GpuFit, Verdict, fewest_cards, fit_table, smallest_fitting
from estimator.memory import estimate_memory
from estimator.offload import host_ram, step_seconds
from estimator.parse import ParsedQuery
from estimator.query import (
    Checkpointing,
    FitQuery,
    Method,
    Offload,
    Optimizer,
    Precision,
    Sharding,
    Stack,
)
from estimator.specs import GpuSpec, ModelSpec
from estimator.timing import tokens_per_second, training_time

# The FitQuery fields a question can ask about, each with its /fit key.
KEYS: dict[str, str] = {
    "offload": "offload",
    "shard": "shard",
    "optimizer": "optim",
    "precision": "precision",
    "grad_checkpointing": "gc",
    "stack": "stack",
    "method": "method",
}
# Unstated settings whose default is checked for deciding the verdict on the asked card, in
# the order they are said; at most `MAX_DECIDING` are said, the answer stays short.
DECIDING = ("offload", "shard", "precision", "optimizer", "grad_checkpointing")
MAX_DECIDING = 2


@dataclass(frozen=True)
class Variant:
    """The run with one lever set one way."""

    setting: str  # the lever's value as the /fit command writes it: "offload=params"
    query: FitQuery
    peak_gib: float  # per GPU
    # The asked card graded for this run (on the run's card count), else the smallest card
    # people rent that holds it, else the fewest cards; None when nothing holds it.
    card: GpuFit | None
    host_ram_gb: float  # what CPU offload needs on the server (0 without)
    step_seconds: float  # the optimizer step on the CPU (0 without offload)
    tokens_per_second: float | None  # per GPU on the comparison's card
    hours: float | None  # the run on the comparison's card, with a dataset


@dataclass(frozen=True)
class Comparison:
    lever: str  # the FitQuery field
    asked: bool  # the person asked about it; False: an unstated default that decides
    current: Variant  # the run as read: the lever as it is
    others: tuple[Variant, ...]  # the lever switched, each way
    on_card: bool  # each variant's `card` is the asked card, graded (else the one that holds it)

    def changes_verdict(self, other: Variant) -> bool:
        """Whether `other` turns a fit into a miss or back, or needs another card."""
        now, then = self.current.card, other.card
        if self.on_card:
            assert now is not None
            assert then is not None
            return (now.verdict is Verdict.NO) != (then.verdict is Verdict.NO)
        if now is None or then is None:
            return (now is None) != (then is None)
        return (now.gpu.id, now.min_gpus) != (then.gpu.id, then.min_gpus)

    @property
    def pick(self) -> Variant:
        """The alternative the short answer names: the first that changes the verdict, else
        the one that saves the most memory."""
        changing = [other for other in self.others if self.changes_verdict(other)]
        if changing:
            return changing[0]
        return min(self.others, key=lambda other: other.peak_gib)


def alternatives(lever: str, query: FitQuery) -> list[tuple[str, FitQuery]]:
    """The other side of a question about `lever`, from the run as read."""
    if _compared_lever(lever, query) == "offload":
        if query.offload is not Offload.NONE:
            return [("offload=none", replace(query, offload=Offload.NONE))]
        return [
            (f"offload={value.value}", replace(query, offload=value))
            for value in (Offload.OPTIMIZER, Offload.PARAMS)
        ]
    if lever == "shard":
        return _shard_alternatives(query)
    if lever == "optimizer":
        optimizer = Optimizer.ADAMW_8BIT if query.optimizer is Optimizer.ADAMW else Optimizer.ADAMW
        return [(f"optim={optimizer.value}", replace(query, optimizer=optimizer))]
    if lever == "precision":
        precision = Precision.BF16 if query.precision is Precision.MIXED else Precision.MIXED
        return [(f"precision={precision.value}", replace(query, precision=precision))]
    if lever == "grad_checkpointing":
        off = query.grad_checkpointing is Checkpointing.OFF
        gc = Checkpointing.ON if off else Checkpointing.OFF
        return [(f"gc={gc.value}", replace(query, grad_checkpointing=gc))]
    if lever == "stack":
        return [_stack_alternative(query)]
    if lever == "method":
        return [(m.value, replace(query, method=m)) for m in Method if m is not query.method]
    return []


def _shard_alternatives(query: FitQuery) -> list[tuple[str, FitQuery]]:
    """The other ways to spread a run over its cards; ZeRO-3 and FSDP hold the same memory,
    so only one of them is offered."""
    full = query.method is Method.FULL
    sharded = Sharding.ZERO3 if full else Sharding.FSDP
    ways = (Sharding.DDP, Sharding.ZERO2, sharded) if full else (Sharding.DDP, sharded)
    same = {query.shard, *((Sharding.ZERO3, Sharding.FSDP) if _full_shard(query) else ())}
    return [(f"shard={way.value}", replace(query, shard=way)) for way in ways if way not in same]


def _stack_alternative(query: FitQuery) -> tuple[str, FitQuery]:
    """Unsloth (with its offloaded checkpointing) against the HF stack, or back."""
    if query.stack is Stack.HF:
        unsloth = replace(query, stack=Stack.UNSLOTH, grad_checkpointing=Checkpointing.UNSLOTH)
        return ("stack=unsloth", unsloth)
    gc = query.grad_checkpointing
    if gc is Checkpointing.UNSLOTH:
        gc = Checkpointing.ON
    return ("stack=hf", replace(query, stack=Stack.HF, grad_checkpointing=gc))


def _full_shard(query: FitQuery) -> bool:
    return query.shard in (Sharding.ZERO3, Sharding.FSDP)


def _compared_lever(lever: str, query: FitQuery) -> str:
    """The FitQuery field a question about `lever` compares: DeepSpeed or FSDP on one card
    shards nothing, and what they buy there is offload."""
    return "offload" if lever == "shard" and query.gpus == 1 else lever


def setting_of(lever: str, query: FitQuery) -> str:
    """The lever's value in the run as the /fit command writes it."""
    lever = _compared_lever(lever, query)
    value = getattr(query, lever)
    shown = value.value if hasattr(value, "value") else str(value)
    return shown if lever == "method" else f"{KEYS[lever]}={shown}"


class _Sizer:
    """Sizes variants of one run against the answer's card, or the cards people rent."""

    def __init__(
        self,
        model: ModelSpec,
        gpus: Sequence[GpuSpec],
        rented: frozenset[str],
        target: GpuFit | None,
        reference: GpuFit | None,
        speed: float = 1.0,
    ) -> None:
        self.model = model
        self.speed = speed  # the person's own measured speed over the model's
        self.gpus = gpus
        self.rented = rented
        self.target = target
        self.reference = reference  # the card speeds and hours are compared on

    def card(self, query: FitQuery) -> GpuFit | None:
        if self.target is not None:
            gpu = self.target.gpu
            return fit_table(query, self.model, [gpu], asked=gpu.id)[0]
        # Only the cards people rent can be named (fit.smallest_fitting, fewest_cards).
        rented = [gpu for gpu in self.gpus if gpu.id in self.rented]
        table = fit_table(query, self.model, rented)
        return smallest_fitting(table, self.rented) or fewest_cards(table, self.rented)

    def compare(self, lever: str, query: FitQuery, asked: bool) -> Comparison | None:
        """The run as read against each other way of `lever`; None when it has none."""
        others = alternatives(lever, query)
        if not others:
            return None
        return Comparison(
            lever=lever,
            asked=asked,
            current=self.variant(setting_of(lever, query), query),
            others=tuple(self.variant(setting, changed) for setting, changed in others),
            on_card=self.target is not None,
        )

    def variant(self, setting: str, query: FitQuery) -> Variant:
        reference = self.reference
        count = query.gpus
        speed = hours = None
        if reference is not None:
            speed = tokens_per_second(query, self.model, reference.gpu, count) * self.speed
            timing = training_time(query, self.model, reference.gpu, count, speed=self.speed)
            hours = timing.hours if timing is not None else None
        return Variant(
            setting=setting,
            query=query,
            peak_gib=estimate_memory(query, self.model).peak,
            card=self.card(query),
            host_ram_gb=host_ram(query, self.model).needed / 1e9,
            step_seconds=step_seconds(query, self.model),
            tokens_per_second=speed,
            hours=hours,
        )


def _unstated(parsed: ParsedQuery, lever: str) -> bool:
    """Whether the person left `lever` to its default. Offload is never recorded as assumed:
    left at none, it was not stated."""
    if lever == "offload":
        return parsed.query.offload is Offload.NONE
    return parsed.assumed(lever) is not None


def _named_only(comparison: Comparison, parsed: ParsedQuery) -> Comparison:
    """«lora или qlora?»: a question that names the methods compares those, not every one."""
    named = {n.split(":", 1)[1] for n in parsed.notes if n.startswith("extra_method:")}
    if comparison.lever != "method" or not named:
        return comparison
    others = tuple(o for o in comparison.others if o.setting in named)
    return replace(comparison, others=others) if others else comparison


def compare_levers(
    parsed: ParsedQuery,
    gpus: Sequence[GpuSpec],
    rented: frozenset[str],
    target: GpuFit | None,
    current_card: GpuFit | None,
    speed: float = 1.0,
) -> tuple[Comparison, ...]:
    """Each lever asked about, sized both ways; then each unstated default that decides the
    verdict on the asked card (at most `MAX_DECIDING`). `current_card` is the card the answer
    is about (the asked one, else the smallest or fewest that hold the run)."""
    sizer = _Sizer(parsed.model, gpus, rented, target, current_card, speed)
    found = [
        _named_only(comparison, parsed)
        for lever in dict.fromkeys(parsed.asked_about)
        if lever in KEYS and (comparison := sizer.compare(lever, parsed.query, True)) is not None
    ]
    if target is None:
        return tuple(found)  # a default decides a verdict only on a card that was asked about
    for lever in DECIDING:
        if sum(not comparison.asked for comparison in found) >= MAX_DECIDING:
            break
        asked = {_compared_lever(name, parsed.query) for name in parsed.asked_about}
        if lever in asked or not _unstated(parsed, lever):
            continue
        comparison = sizer.compare(lever, parsed.query, False)
        if comparison is None:
            continue
        # Only the ways that change the verdict are worth saying of a default.
        deciding = tuple(o for o in comparison.others if comparison.changes_verdict(o))
        if deciding:
            found.append(replace(comparison, others=deciding))
    return tuple(found)
