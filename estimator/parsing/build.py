"""What the user gave, checked and completed with defaults into a ParsedQuery.

Both parsers fill a `Given` and call `finish`. The defaults are FitQuery's own (the source of
truth); every default that changes the answer is recorded as an Assumption so the bot can say
"assumed: qlora, ctx 2048, ...".
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from estimator import gpus
from estimator.models import model_for_size
from estimator.parsing.result import Assumption, ParsedQuery, QueryError, Slot
from estimator.query import (
    Checkpointing,
    FitQuery,
    Loss,
    Method,
    Offload,
    Optimizer,
    Packing,
    Precision,
    Sharding,
    Stack,
    Targets,
)
from estimator.specs import ModelSpec
from estimator.stacks import profile

# UTF-8 bytes of plain text per token, for a dataset given as its size ("2 гб текста").
# English: about 4 characters per token (OpenAI's tokenizer guide), one byte each. Russian:
# Cyrillic letters take 2 bytes (running text ~1.8 bytes per character with spaces and
# punctuation) and Llama-3/Qwen-style BPE vocabularies cut Russian into about 3 characters
# per token: ~5.5 bytes. An estimate within ~20 %: real counts depend on the tokenizer.
BYTES_PER_TOKEN: dict[str, float] = {"en": 4.0, "ru": 5.5}
# Characters per token, from the same sources: a length said in characters («примеры по 2000
# символов») is about that many tokens fewer. Where the text's language is not said, the
# question's is taken (Russian text is the more tokens per character: the safe side).
CHARS_PER_TOKEN: dict[str, float] = {"en": 4.0, "ru": 3.0}

# Sane ranges: beyond them the number is a typo, not a training run.
LIMITS: dict[str, tuple[float, float]] = {
    "ctx": (16, 1_048_576),
    "bs": (1, 1024),
    "rank": (1, 1024),
    "gpus": (1, 512),
    "dataset": (1, 10_000_000_000),
    "dataset_tokens": (1, 100_000_000_000_000),
    "tokens": (1, 1_048_576),
    "epochs": (0, 100),  # 0 < epochs <= 100
    "size": (0.01, 5000),  # billions of parameters
    "budget": (1, 1_000_000_000),  # roubles
    "vram": (1, 4096),  # GB per card, as sold
    "hpm": (1, 744),  # hours per month: 31 days × 24 h at most
    "rate": (1, 10_000_000),  # roubles per server-hour
    "mrate": (1, 1_000_000_000),  # roubles per month of rent
    "ga": (1, 4096),  # micro-batches per optimizer step
    "steps": (1, 100_000_000),  # optimizer steps (HF max_steps)
    "hours": (0.1, 100_000),  # the time a run must take at most
    "cardgb": (1, 4096),  # GB of memory a card is sold with
}
# Methods in the order a ruled-out one falls back: QLoRA is the default, LoRA the same
# adapters without the 4-bit base, full the last resort.
_FALLBACK = (Method.QLORA, Method.LORA, Method.FULL)

_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in dataclasses.fields(FitQuery) if f.default is not dataclasses.MISSING
}


@dataclass
class Given:
    """Fields the user stated. None means "not said"."""

    model: ModelSpec | None = None
    size_b: float | None = None
    method: Method | None = None
    ctx: int | None = None
    micro_batch: int | None = None
    lora_rank: int | None = None
    targets: Targets | None = None
    optimizer: Optimizer | None = None
    precision: Precision | None = None
    grad_checkpointing: Checkpointing | None = None
    gpus: int | None = None
    shard: Sharding | None = None
    dataset_examples: int | None = None
    tokens_per_example: int | None = None
    longest_tokens: int | None = None  # the longest example ("максимум 3500", "1500–3500")
    shortest_tokens: int | None = None  # the low end of a range of lengths ("1500–3500")
    dataset_tokens: int | None = None
    dataset_bytes: float | None = None  # "2 гб текста": turned into tokens in `finish`
    text_language: str = "en"  # the question's language: decides bytes per token
    budget_rub: float | None = None
    epochs: float | None = None
    stack: Stack | None = None
    offload: Offload | None = None
    loss: Loss | None = None
    packing: Packing | None = None
    grad_accum: int | None = None
    # «60 шагов», "max_steps 60": the run's length in optimizer steps; with no dataset it
    # stands for one (steps × examples a step, `finish`).
    steps: int | None = None
    # «успею за 5 часов?», "in 2 hours": the most the run may take, hours.
    time_budget_hours: float | None = None
    # «хватит ли 24 гб?», "is 48GB enough": a card's memory as sold, asked about with no card.
    card_gb: float | None = None
    target_gpu: str | None = None
    target_family: str | None = None
    ruled_out: list[Method] = field(default_factory=list)  # «без qlora», "not full"
    min_vram_gib: float | None = None
    hours_per_month: float | None = None
    russia_only: bool | None = None
    max_rub_per_hour: float | None = None
    max_rub_per_gpu_hour: float | None = None
    max_rub_per_month: float | None = None
    billing: str | None = None  # «помесячно»: "month"; «почасово»: "hour"
    # An average length an earlier answer of the conversation assumed: a follow-up that
    # changes ctx keeps it, so the same data keeps its token count (estimator.followup).
    tokens_assumed: int | None = None
    # A reply that scales a setting («данных в два раза больше»): FitQuery field -> factor,
    # applied to the last sizing's value (estimator.followup).
    ratios: dict[str, float] = field(default_factory=dict)
    solve: str | None = None  # ctx=max, bs=max, rank=max: the lever to solve for
    cheapest: bool | None = None  # «на какой самой дешёвой карте»: name the cheapest plan
    # Levers asked about as a question, not set (ParsedQuery.asked_about).
    asked_about: list[str] = field(default_factory=list)
    # The words that set each slot, as written (ParsedQuery.said).
    said: dict[Slot, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


# The note of a question that asks for the cheapest card that holds the run (the answer names
# the planner's first plan; fit_words.command_for writes it back as the word "cheapest").
CHEAPEST_NOTE = "ask:cheapest"
# The note of a reply that asks how long the run takes («а по времени?»).
ASK_TIME_NOTE = "ask:time"
# «сколько эпох успею за 10 часов?»: the epochs the time limit holds (sizing_text).
ASK_EPOCHS_NOTE = "ask:epochs"
CHEAPEST_WORD = "cheapest"
# What a lever's value says to solve for it (ctx=max): the largest that fits the named card.
MAX_VALUES = frozenset({"max", "maximum", "макс", "максимум"})


def set_solve(given: Given, lever: str) -> None:
    """Solve for `lever`; one lever a question (two would trade off against each other)."""
    if given.solve is not None and given.solve != lever:
        raise QueryError(
            "conflict",
            f"only one value can be solved for at a time: {given.solve}=max or {lever}=max",
            key=lever,
            value="max",
            allowed=(f"{given.solve}=max", f"{lever}=max"),
        )
    given.solve = lever


def check_int(key: str, value: float) -> int:
    """An integer within LIMITS[key]; QueryError(out_of_range / bad_value) otherwise."""
    low, high = LIMITS[key]
    if not math.isfinite(value) or value != int(value):
        raise QueryError(
            "bad_value",
            f"{key} must be a whole number, got {value:g}",
            key=key,
            value=f"{value:g}",
            allowed=(f"{int(low)}..{int(high)}",),
        )
    if not low <= value <= high:
        raise QueryError(
            "out_of_range",
            f"{key}={int(value)} is outside {int(low)}..{int(high)}",
            key=key,
            value=str(int(value)),
            allowed=(str(int(low)), str(int(high))),
        )
    return int(value)


def check_epochs(value: float) -> float:
    low, high = LIMITS["epochs"]
    if not (math.isfinite(value) and low < value <= high):
        raise QueryError(
            "out_of_range",
            f"epochs={value:g} must be above 0 and at most 100",
            key="epochs",
            value=f"{value:g}",
            allowed=("0", "100"),
        )
    return value


def check_size(value: float) -> float:
    low, high = LIMITS["size"]
    if not (math.isfinite(value) and low <= value <= high):
        raise QueryError(
            "out_of_range",
            f"model size {value:g}B is outside {low:g}..{high:g}B",
            key="model",
            value=f"{value:g}",
            allowed=(f"{low:g}", f"{high:g}"),
        )
    return value


def resolve_gpu(name: str) -> tuple[str | None, str | None]:
    """(canonical id for sizing, family) of a GPU name; QueryError when it names nothing."""
    gpu_id = gpus.resolve_for_sizing(name)
    if gpu_id is not None:
        return gpu_id, None
    family = gpus.family_of(name)
    if family is not None:
        return None, family
    raise QueryError(
        "unknown_gpu",
        f"unknown GPU {name!r}",
        key="gpu",
        value=name,
        allowed=("4090", "3090", "a100-80", "a100-40", "h100", "h200", "l40s", "t4"),
    )


def _assume(out: list[Assumption], key: str, value: object) -> Any:
    out.append(Assumption(key, value.value if hasattr(value, "value") else str(value)))
    return value


def finish(given: Given) -> ParsedQuery:
    """Fill the gaps with FitQuery's defaults and record what was assumed."""
    assumed: list[Assumption] = []
    notes = list(given.notes)
    if given.cheapest:
        notes.append(CHEAPEST_NOTE)
    if given.model is not None:
        model, from_size = given.model, False
    elif given.size_b is not None:
        model, from_size = model_for_size(given.size_b), True
        assumed.append(Assumption("model", model.id))
    else:
        raise QueryError(
            "no_model",
            "name a model (llama 3 8b) or a size (13b)",
            key="model",
            allowed=("7b", "13b", "70b", "llama 3 8b", "qwen2.5 7b"),
        )

    def pick(name: str, value: Any, matters: bool = True) -> Any:
        if value is not None:
            return value
        default = _DEFAULTS[name]
        return _assume(assumed, name, default) if matters else default

    method = given.method
    if method is None and given.ruled_out:
        # «без qlora»: the first method not ruled out, said as assumed.
        method = next((m for m in _FALLBACK if m not in given.ruled_out), _DEFAULTS["method"])
        assumed.append(Assumption("method", method.value))
        notes += [f"negated:{m.value}" for m in _FALLBACK if m in given.ruled_out]
    method = pick("method", method)
    adapters = method is not Method.FULL
    ctx: int = _ctx(given, assumed, notes)
    if given.solve == "rank" and not adapters:
        raise QueryError(
            "conflict",
            "rank=max needs lora or qlora: a full fine-tune has no rank",
            key="rank",
            value="max",
            allowed=("lora", "qlora"),
        )
    # A lever being solved for is not assumed: the answer says the value it found.
    micro_batch: int = pick("micro_batch", given.micro_batch, given.solve != "bs")
    lora_rank: int = pick("lora_rank", given.lora_rank, adapters and given.solve != "rank")
    targets: Targets = pick("targets", given.targets, adapters)
    # With adapters the optimizer holds state for a few million parameters only; for a full
    # fine-tune it decides most of the memory. Precision decides how the frozen base is
    # stored too (mixed keeps fp32 copies), so it always matters.
    optimizer: Optimizer = pick("optimizer", given.optimizer, not adapters)
    precision: Precision = pick("precision", given.precision)
    # gc=unsloth names Unsloth's offloaded checkpointing, which only Unsloth has: it implies
    # the stack. A named stack without gc= gets that stack's own default checkpointing.
    stack_given = given.stack
    if stack_given is None and given.grad_checkpointing is Checkpointing.UNSLOTH:
        stack_given = Stack.UNSLOTH
    stack: Stack = pick("stack", stack_given)
    if given.grad_checkpointing is None and stack_given is not None:
        checkpointing = _assume(assumed, "grad_checkpointing", profile(stack).default_gc)
    else:
        checkpointing = pick("grad_checkpointing", given.grad_checkpointing)
    gpu_count: int = given.gpus if given.gpus is not None else _DEFAULTS["gpus"]
    shard = given.shard
    if shard is None and gpu_count > 1:
        # Several GPUs for a full fine-tune are almost always there to shard the weights;
        # adapter runs usually replicate the (small) trainable state.
        shard = _assume(assumed, "shard", Sharding.ZERO3 if not adapters else Sharding.DDP)
    elif shard is None:
        shard = _DEFAULTS["shard"]
    if not adapters and (given.lora_rank is not None or given.targets is not None):
        notes.append("unused:rank" if given.lora_rank is not None else "unused:targets")

    tokens = given.tokens_per_example
    if tokens is None and given.longest_tokens and given.shortest_tokens:
        # «от 1500 до 3500 токенов»: the middle of the range as the average.
        tokens = _assume(
            assumed, "tokens_per_example", (given.shortest_tokens + given.longest_tokens) // 2
        )
    epochs = given.epochs if given.epochs is not None else _DEFAULTS["epochs"]
    dataset_tokens = given.dataset_tokens
    examples = given.dataset_examples
    no_dataset = examples is None and dataset_tokens is None and given.dataset_bytes is None
    if given.steps is not None and no_dataset:
        # With no dataset said, the steps stand for one: max_steps overrides the epochs (HF
        # TrainingArguments), each step the micro-batch times accumulation on every card (all
        # shardings split the data), once through. A dataset said too is the run's.
        per_step = micro_batch * (given.grad_accum or _DEFAULTS["grad_accum"]) * gpu_count
        examples = check_int("dataset", given.steps * per_step)
        assumed.append(Assumption("dataset_examples", str(examples)))
        notes.append(f"dataset_from_steps:{given.steps}:{per_step}")
        epochs = _DEFAULTS["epochs"]
    if dataset_tokens is None and given.dataset_bytes is not None:
        per_token = BYTES_PER_TOKEN.get(given.text_language, BYTES_PER_TOKEN["en"])
        dataset_tokens = max(1, round(given.dataset_bytes / per_token))
        assumed.append(Assumption("dataset_tokens", str(dataset_tokens)))
        notes.append(f"text_tokens:{given.text_language}:{per_token:g}")
    if examples is not None and dataset_tokens is None and tokens is None:
        # Half the context, unless an earlier answer already assumed a length for this data.
        tokens = _assume(assumed, "tokens_per_example", given.tokens_assumed or max(1, ctx // 2))
    said_length = given.epochs is not None or given.steps is not None
    if (examples is not None or dataset_tokens is not None) and not said_length:
        _assume(assumed, "epochs", f"{epochs:g}")
    if tokens is not None and tokens > ctx:
        notes.append(f"tokens_clamped:{tokens}")  # longer examples are cut at ctx in training
        tokens = ctx
    if given.ctx is not None and given.longest_tokens and given.longest_tokens > ctx:
        notes.append(f"longest_cut:{given.longest_tokens}")

    query = FitQuery(
        model=model.id,
        method=method,
        ctx=ctx,
        micro_batch=micro_batch,
        lora_rank=lora_rank,
        targets=targets,
        optimizer=optimizer,
        precision=precision,
        grad_checkpointing=checkpointing,
        gpus=gpu_count,
        shard=shard,
        dataset_examples=examples,
        tokens_per_example=tokens,
        epochs=epochs,
        gpu=given.target_gpu,
        stack=stack,
        offload=given.offload or Offload.NONE,
        loss=given.loss,
        dataset_tokens=dataset_tokens,
        packing=given.packing or _DEFAULTS["packing"],
        grad_accum=given.grad_accum or _DEFAULTS["grad_accum"],
    )
    return ParsedQuery(
        query=query,
        model=model,
        model_from_size=from_size,
        target_gpu=given.target_gpu,
        target_family=given.target_family,
        assumptions=tuple(assumed),
        notes=tuple(notes),
        budget_rub=given.budget_rub,
        asked_size=given.size_b if from_size else None,
        min_vram_gib=given.min_vram_gib,
        hours_per_month=given.hours_per_month,
        russia_only=bool(given.russia_only),
        max_rub_per_hour=given.max_rub_per_hour,
        max_rub_per_gpu_hour=given.max_rub_per_gpu_hour,
        max_rub_per_month=given.max_rub_per_month,
        billing=given.billing,
        said=MappingProxyType(dict(given.said)),
        longest_tokens=given.longest_tokens,
        shortest_tokens=given.shortest_tokens if given.longest_tokens else None,
        steps=given.steps,
        time_budget_hours=given.time_budget_hours,
        card_gb=given.card_gb,
        solve=given.solve,
        asked_about=tuple(dict.fromkeys(given.asked_about)),
    )


def covering_ctx(tokens: int) -> int:
    """The context that holds examples of `tokens`: the next power of two, the way trainers'
    examples set the cap (max_seq_length / cutoff_len / sequence_len 2048, 4096, 8192)."""
    return max(16, 1 << (tokens - 1).bit_length())


def _ctx(given: Given, assumed: list[Assumption], notes: list[str]) -> int:
    """The given ctx; else one that holds the longest example the user described (memory
    follows the longest batch), said as assumed; else the default."""
    if given.ctx is not None:
        return given.ctx
    default: int = _DEFAULTS["ctx"]
    if given.solve == "ctx":
        return default  # a placeholder: the solver puts the largest that fits here
    longest = given.longest_tokens
    average = given.tokens_per_example
    if average is not None and (average > (longest or default)):
        longest = average  # no example is shorter than the average says
    if longest is None:
        return int(_assume(assumed, "ctx", default))
    ctx = min(covering_ctx(longest), int(LIMITS["ctx"][1]))
    notes.append(f"ctx_from_tokens:{longest}")
    return int(_assume(assumed, "ctx", ctx))
