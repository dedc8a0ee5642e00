"""What parsing returns: the query, the model it names, and what was assumed or ignored."""

from __future__ import annotations

from dataclasses import dataclass

from estimator.parsing.market import Constraints
from estimator.query import FitQuery
from estimator.specs import ModelSpec


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
    # out_of_range:<key> (free text: the value was dropped), extra_gpu:<name>,
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
    # A reverse question: the lever to solve for ("ctx", "bs", "rank": ctx=max, «какой
    # максимальный контекст влезет»); the query holds the default there until solved.
    solve: str | None = None
    # The model was read from the user's config.json (estimator.config_query), not the catalog:
    # no /fit command can name it, so follow-ups and buttons carry it by other means.
    model_from_config: bool = False
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
