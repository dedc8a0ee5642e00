"""What parsing returns: the query, the model it names, and what was assumed or ignored."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from estimator.parsing.market import Constraints
from estimator.query import FitQuery
from estimator.specs import ModelSpec


def _nothing_said() -> Mapping[Slot, str]:
    return MappingProxyType({})


class Slot(StrEnum):
    """A setting a message can give: a FitQuery field, or what ParsedQuery keeps beside it.
    `ParsedQuery.said` maps each one the text set to the words that set it."""

    MODEL = "model"
    METHOD = "method"
    CTX = "ctx"
    MICRO_BATCH = "micro_batch"
    LORA_RANK = "lora_rank"
    TARGETS = "targets"
    OPTIMIZER = "optimizer"
    PRECISION = "precision"
    GRAD_CHECKPOINTING = "grad_checkpointing"
    GPUS = "gpus"
    SHARD = "shard"
    DATASET_EXAMPLES = "dataset_examples"
    TOKENS_PER_EXAMPLE = "tokens_per_example"
    LONGEST_TOKENS = "longest_tokens"
    SHORTEST_TOKENS = "shortest_tokens"
    DATASET_TOKENS = "dataset_tokens"  # also a dataset given as text size («2 гб текста»)
    EPOCHS = "epochs"
    GPU = "gpu"  # the card (target_gpu or target_family)
    STACK = "stack"
    OFFLOAD = "offload"
    LOSS = "loss"
    PACKING = "packing"
    GRAD_ACCUM = "grad_accum"
    STEPS = "steps"
    TIME_BUDGET = "time_budget_hours"
    CARD_GB = "card_gb"
    BUDGET = "budget_rub"
    MIN_VRAM = "min_vram_gib"
    HOURS_PER_MONTH = "hours_per_month"
    RUSSIA_ONLY = "russia_only"
    MAX_RUB_PER_HOUR = "max_rub_per_hour"
    MAX_RUB_PER_GPU_HOUR = "max_rub_per_gpu_hour"
    MAX_RUB_PER_MONTH = "max_rub_per_month"
    BILLING = "billing"
    SOLVE = "solve"
    CHEAPEST = "cheapest"
    RULED_OUT = "ruled_out"


@dataclass(frozen=True)
class Assumption:
    """A value the user did not give. `key` is a FitQuery field name or "model"."""

    key: str
    value: str  # what was assumed, as the bot shows it ("qlora", "2048", "Llama-2-13B")


@dataclass(frozen=True)
class ParsedQuery:
    query: FitQuery
    model: ModelSpec
    model_from_size: bool  # a bare size ("13b") was mapped to a representative model
    target_gpu: str | None  # canonical id of the GPU asked about (gpus.resolve_for_sizing)
    target_family: str | None  # only a family ("H100") was named: the bot picks its best member
    assumptions: tuple[Assumption, ...]
    # Machine codes for what was ignored or adjusted, "code" or "code:detail":
    # unknown_key:<key>, repeated_key:<key> (the last value wins), ignored:<word>,
    # unused:rank / unused:targets (full fine-tune), tokens_clamped:<asked> (tokens per
    # example > the given ctx: cut to ctx), longest_cut:<n> (the longest example > the given
    # ctx), ctx_from_tokens:<n> (no ctx given: raised to hold examples of n tokens),
    # negated:<method> (ruled out: «без qlora»; it decided the assumed method),
    # out_of_range:<key> (free text: the value was dropped), extra_gpu:<name>[:<count>],
    # extra_size:<n>, extra_method:<method> (free text: only the first one counts).
    notes: tuple[str, ...]
    budget_rub: float | None = None  # «уложусь в 5000 ₽?»: the most the user will pay
    asked_size: float | None = None  # the bare size asked ("7b" -> 7.0), echoed as asked
    # Constraints on the offers rather than on the run; the planner applies them, and an
    # answer that cannot honour one says so.
    min_vram_gib: float | None = None  # «карта с 48 гигами»: each card at least this much
    hours_per_month: float | None = None  # «60 часов в месяц»: the break-even's usage
    russia_only: bool = False  # «только РФ»: no offer outside Russia
    max_rub_per_hour: float | None = None  # «до 300 ₽/ч»: the most per server-hour
    longest_tokens: int | None = None  # «максимум 3500 токенов»: the longest example
    shortest_tokens: int | None = None  # «от 1500 до 3500»: the low end of a range
    # «60 шагов»: the run's optimizer steps as said; the dataset they stand for is assumed
    # (note `dataset_from_steps`), so a follow-up keeps the steps, not their product.
    steps: int | None = None
    time_budget_hours: float | None = None  # «успею за 5 часов?»: the most the run may take
    card_gb: float | None = None  # «хватит ли 24 гб?»: a card's memory (as sold) asked about
    # A reverse question: the lever to solve for ("ctx", "bs", "rank": ctx=max, «какой
    # максимальный контекст влезет»); the query holds the default there until solved.
    solve: str | None = None
    # The model was read from the user's config.json (estimator.config_query), not the catalog:
    # no /fit command can name it, so follow-ups and buttons carry it by other means.
    model_from_config: bool = False
    # A cap per GPU-hour («до 600 ₽ за GPU-час», "under 600 rub per GPU-hour"): the price of
    # a server divided by its cards; and a cap per month of rent («до 200 000 ₽ в месяц»).
    max_rub_per_gpu_hour: float | None = None
    max_rub_per_month: float | None = None
    # The billing asked for («а помесячно?», "per month"): "hour" or "month"; None: both.
    billing: str | None = None
    # The words that set each slot, as written («50к» for the budget, «8к контексте» for ctx):
    # the answer's header shows what was read. Slots the text did not set are absent.
    said: Mapping[Slot, str] = field(default_factory=_nothing_said, compare=False)
    # Levers the person asked about in question form («нужен ли offload?», "do we need
    # DeepSpeed?", «стоит ли 8-битный оптимизатор?»), as FitQuery field names ("offload",
    # "shard", "optimizer", ...). A question is not an instruction: the query keeps the
    # default for these, and the answer compares the run with and without.
    asked_about: tuple[str, ...] = ()

    @property
    def constraints(self) -> Constraints:
        return Constraints(
            min_vram_gib=self.min_vram_gib,
            hours_per_month=self.hours_per_month,
            russia_only=self.russia_only,
            max_rub_per_hour=self.max_rub_per_hour,
            max_rub_per_gpu_hour=self.max_rub_per_gpu_hour,
            max_rub_per_month=self.max_rub_per_month,
        )

    def assumed(self, key: str) -> str | None:
        """The assumed value of `key`, or None when the user gave it."""
        return next((a.value for a in self.assumptions if a.key == key), None)


class QueryError(ValueError):
    """What a user typed cannot be used: the one user-input error, for /fit and free
    questions here and for /watch and /prices filters (monitor.watch_words). `reason` is one
    line of English; the bot translates `code` (with `key`, `value` and `allowed` filled in)
    into the user's language, with the texts of the command that was asked.

    /fit codes: no_model, bad_value, out_of_range, unknown_gpu, unknown_key (value: the
    nearest known key, or None), conflict. /watch codes: empty, unknown_gpu, bad_value,
    unknown_key (value: the key as typed), no_filter, fit_error. `allowed` lists what the key
    accepts.
    """

    def __init__(
        self,
        code: str,
        reason: str,
        *,
        key: str | None = None,
        value: str | None = None,
        allowed: tuple[str, ...] = (),
    ) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.key = key
        self.value = value
        self.allowed = allowed
