"""Plans: which live offers hold a run, on how many cards, in what time, for what money.

One planner answers every question about renting: the /fit answer and its details, /fit
compare, a budget, hourly against monthly, and the market questions (cheapest, faster, in
stock). It is pure: a sizing (query and model), the live offers as `PriceQuote`s and the
user's constraints in; ranked `Plan`s out. Routers only render what it returns.

Each plan is true on its own terms:

* it uses every card of the server it rents (a server is rented whole), with the sharding
  that makes the run fit on that count, and never appears when it does not fit;
* its time is the run's time on that count (`estimator.timing`);
* its cost is its own billing: the hourly rate × the hours, or whole months of a monthly
  plan, with the hours of work those months buy;
* it carries the caveats a renter must read before paying (tight, no bf16, slow, abroad,
  stock not published, a month rented for hours of work, no Unsloth on this card, RAM not
  published for a run that offloads to it);
* a run with CPU offload fits a server only with the host RAM it needs (estimator.offload),
  where the provider publishes the server's RAM.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from estimator import gpus as catalog
from estimator.cost import HOURS_PER_MONTH, PriceQuote
from estimator.fit import Judged, Verdict, judge, trains_in_bf16
from estimator.hardware import runs_unsloth
from estimator.memory import MemoryParts, memory_parts
from estimator.offload import host_ram
from estimator.parsing.market import Constraints as StatedConstraints
from estimator.query import FitQuery, Method, Sharding, Stack
from estimator.specs import GpuSpec, ModelSpec
from estimator.timing import (
    CardClass,
    TrainingTime,
    card_class,
    tokens_per_second,
    training_time,
)

# A monthly plan "for hours" when the run uses less than this share of the time it rents:
# the renter pays for at least twice the hours they need.
MONTH_USE_SHARE = 0.5


class Caveat(StrEnum):
    TIGHT = "tight"  # under 10 % of the card left free (estimator.fit.TIGHT_HEADROOM)
    NO_BF16 = "no_bf16"  # fp16/fp32 only (pre-Ampere): slow and prone to overflow
    SLOW = "slow"  # a 60-72 W inference card (T4, A2, A16, L4): trains at a fraction
    NO_UNSLOTH = "no_unsloth"  # the run names Unsloth, which needs compute capability 7.0
    ABROAD = "abroad"  # the server is outside Russia
    STOCK_UNPUBLISHED = "stock_unpublished"  # priced, but the provider publishes no stock
    MONTH_FOR_HOURS = "month_for_hours"  # whole months rented for a run of hours
    RAM_UNPUBLISHED = "ram_unpublished"  # the run offloads to host RAM the offer does not state
    # Several cards whose form the offer does not name: timed as PCIe, the slower link.
    LINK_ASSUMED = "link_assumed"
    # The offer's source has not answered since its price and stock were read (the monitor's
    # stale mark, PriceQuote.stale_since); past a while it is no plan at all.
    STALE = "stale"


@dataclass(frozen=True)
class Constraints:
    """What the user said about the offers, not the run."""

    min_vram_gb: float | None = None  # each card at least this much memory, as sold (GB)
    russia_only: bool = False
    max_rub_per_hour: float | None = None  # the most per server-hour (monthly: month / 720)
    max_rub_per_gpu_hour: float | None = None  # the most per card-hour (server-hour / cards)
    max_rub_per_month: float | None = None  # the most per month (hourly: 720 h round the clock)
    gpus: int | None = None  # exactly this many cards per server
    gpu_ids: frozenset[str] | None = None  # only these cards (a question about one card)
    hourly_only: bool = False
    # Cards without bf16 are planned only when the user named them: they are never advice.
    allow_fp16: frozenset[str] = frozenset()


def within(
    said: StatedConstraints,
    *,
    gpu_ids: frozenset[str] | None = None,
    allow_fp16: frozenset[str] = frozenset(),
    hourly_only: bool = False,
) -> Constraints:
    """The offers what the person said allows (memory, Russia, the caps), narrowed by the
    caller's own terms: the sizing and the market answers read the same words one way."""
    return Constraints(
        min_vram_gb=said.min_vram_gib,
        russia_only=said.russia_only,
        max_rub_per_hour=said.max_rub_per_hour,
        max_rub_per_gpu_hour=said.max_rub_per_gpu_hour,
        max_rub_per_month=said.max_rub_per_month,
        gpu_ids=gpu_ids,
        hourly_only=hourly_only,
        allow_fp16=allow_fp16,
    )


@dataclass(frozen=True)
class Plan:
    quote: PriceQuote
    gpu: GpuSpec
    shard: Sharding | None  # None on one card
    peak_gib: float  # per card, on this count with this sharding
    headroom_gib: float  # left free at the range's high end (< 0: the range reaches past it)
    verdict: Verdict  # FITS or TIGHT: a plan that does not fit is never made
    hours: float | None  # the run on this count; None without a dataset
    time: TrainingTime | None  # the run's time on this count: its range and the cards' link
    months: int | None  # monthly billing with a known run: whole months rented
    cost_rub: float | None  # what this run costs at this billing; None without a dataset
    rub_per_million_tokens: float  # the price of throughput: ranks plans without a dataset
    caveats: tuple[Caveat, ...]

    @property
    def gpus(self) -> int:
        return self.quote.gpus

    @property
    def monthly(self) -> bool:
        return self.quote.rub_per_hour is None

    @property
    def server_rub_per_hour(self) -> float:
        """The hourly rate, or a month's price over 720 hours for a monthly plan."""
        return hourly_equivalent(self.quote)

    @property
    def cost_high_rub(self) -> float | None:
        """What the run costs at the high end of its time's range: the hours the model's
        measured error allows (estimator.speed_accuracy), at this plan's billing."""
        if self.cost_rub is None or self.time is None:
            return None
        high = self.time.band.high
        if self.monthly:
            assert self.quote.rub_per_month is not None
            return months_for(high) * self.quote.rub_per_month
        return (self.quote.rub_per_hour or 0.0) * high


def hourly_equivalent(quote: PriceQuote) -> float:
    if quote.rub_per_hour is not None:
        return quote.rub_per_hour
    assert quote.rub_per_month is not None
    return quote.rub_per_month / HOURS_PER_MONTH


def rub_per_gpu_hour(quote: PriceQuote) -> float:
    return hourly_equivalent(quote) / max(1, quote.gpus)


def monthly_equivalent(quote: PriceQuote) -> float:
    """A monthly plan's own price, or the hourly rate over a 720-hour month rented 24/7."""
    if quote.rub_per_month is not None:
        return quote.rub_per_month
    assert quote.rub_per_hour is not None
    return quote.rub_per_hour * HOURS_PER_MONTH


def rub_per_gpu_month(quote: PriceQuote) -> float:
    return monthly_equivalent(quote) / max(1, quote.gpus)


def months_for(hours: float) -> int:
    """Whole months of rent that cover `hours` of work (a month is 720 h: providers bill
    30-day months; Selectel and HOSTKEY price servers per 30 days)."""
    return max(1, math.ceil(hours / HOURS_PER_MONTH - 1e-9))


@dataclass(frozen=True)
class Sizing:
    """A run to place: what the planner asks of the memory and timing models."""

    query: FitQuery
    model: ModelSpec
    # The person's own measured speed over the model's (estimator.measurement), 1 without one.
    speed: float = 1.0


class _Fitter:
    """The run's per-card peak and time on a count of a card, each computed once."""

    def __init__(self, sizing: Sizing) -> None:
        self.query = sizing.query
        self.model = sizing.model
        self.speed = sizing.speed
        # Host RAM the run's CPU offload needs on a server, GB (0 without offload); the same
        # on any card count (estimator.offload).
        self.ram_gb = host_ram(sizing.query, sizing.model).needed / 1e9
        self._parts: dict[tuple[int, Sharding], MemoryParts] = {}
        self._judged: dict[tuple[str, int, Sharding], Judged] = {}
        self._rates: dict[tuple[str, int], float] = {}
        self._times: dict[tuple[str, int], TrainingTime | None] = {}

    def shardings(self, count: int) -> tuple[Sharding, ...]:
        """What a run on `count` cards may use, cheapest in communication first: the user's
        own choice on their count; otherwise replicas, then full sharding (ZeRO-3 for a full
        fine-tune, FSDP for adapters, as the parser assumes)."""
        if count == self.query.gpus and self.query.gpus > 1:
            return (self.query.shard,)
        sharded = Sharding.ZERO3 if self.query.method is Method.FULL else Sharding.FSDP
        return (Sharding.DDP, sharded)

    def judged(self, gpu: GpuSpec, count: int, shard: Sharding) -> Judged:
        """The run on `count` of `gpu` with `shard`: its peak there, range and verdict."""
        key = (gpu.id, count, shard)
        if key not in self._judged:
            if (count, shard) not in self._parts:
                query = replace(self.query, gpus=count, shard=shard)
                self._parts[(count, shard)] = memory_parts(query, self.model)
            query = replace(self.query, gpus=count, shard=shard)
            self._judged[key] = judge(query, self._parts[(count, shard)], gpu.usable_gib)
        return self._judged[key]

    def fit(self, gpu: GpuSpec, count: int) -> tuple[Sharding | None, Judged] | None:
        if count == 1:
            judged = self.judged(gpu, 1, self.query.shard if self.query.gpus == 1 else Sharding.DDP)
            return None if judged.verdict is Verdict.NO else (None, judged)
        for shard in self.shardings(count):
            judged = self.judged(gpu, count, shard)
            if judged.verdict is not Verdict.NO:
                return shard, judged
        return None

    def tokens_per_hour(self, gpu: GpuSpec, count: int) -> float:
        """The whole server's training throughput, tokens per hour."""
        key = (gpu.id, count)
        if key not in self._rates:
            query = replace(self.query, gpus=count)
            speed = tokens_per_second(query, self.model, gpu, count) * self.speed
            self._rates[key] = speed * count * 3600
        return self._rates[key]

    def time(self, gpu: GpuSpec, count: int) -> TrainingTime | None:
        key = (gpu.id, count)
        if key not in self._times:
            query = replace(self.query, gpus=count)
            self._times[key] = training_time(query, self.model, gpu, count, speed=self.speed)
        return self._times[key]

    def hours(self, gpu: GpuSpec, count: int) -> float | None:
        estimate = self.time(gpu, count)
        return None if estimate is None else estimate.hours


def job_hours(
    sizing: Sizing, gpu_ids: Iterable[str], max_gpus: int = 8
) -> dict[str, dict[int, float]]:
    """The run's hours on each card count (1..`max_gpus`) of each card that holds it there,
    for a watch on the run's cost: computed once when the watch is made."""
    fitter = _Fitter(sizing)
    found: dict[str, dict[int, float]] = {}
    for gpu_id in gpu_ids:
        gpu = catalog.get(gpu_id)
        for count in range(1, max_gpus + 1):
            hours = fitter.hours(gpu, count) if fitter.fit(gpu, count) is not None else None
            if hours is not None:
                found.setdefault(gpu_id, {})[count] = hours
    return found


def _abroad(quote: PriceQuote) -> bool:
    return quote.country not in ("", "RU")


def admits(quote: PriceQuote, constraints: Constraints) -> bool:
    """Whether a quote may be offered at all: rentable now and within what the user said."""
    if not quote.in_stock or quote.gpus < 1:
        return False
    if quote.rub_per_hour is None and quote.rub_per_month is None:
        return False
    try:
        gpu = catalog.get(quote.gpu_id)
    except KeyError:
        return False
    if not trains_in_bf16(gpu) and quote.gpu_id not in constraints.allow_fp16:
        return False
    if constraints.gpu_ids is not None and quote.gpu_id not in constraints.gpu_ids:
        return False
    if constraints.gpus is not None and quote.gpus != constraints.gpus:
        return False
    if constraints.min_vram_gb is not None and gpu.vram_gb < constraints.min_vram_gb:
        return False
    if constraints.russia_only and _abroad(quote):
        return False
    if constraints.hourly_only and quote.rub_per_hour is None:
        return False
    caps = (
        (constraints.max_rub_per_hour, hourly_equivalent),
        (constraints.max_rub_per_gpu_hour, rub_per_gpu_hour),
        (constraints.max_rub_per_month, monthly_equivalent),
    )
    return all(cap is None or price(quote) <= cap for cap, price in caps)


def _caveats(
    plan_gpu: GpuSpec,
    quote: PriceQuote,
    verdict: Verdict,
    query: FitQuery,
    hours: float | None,
    ram_gb: float,
) -> tuple[Caveat, ...]:
    found: list[Caveat] = []
    if verdict is Verdict.TIGHT:
        found.append(Caveat.TIGHT)
    if not plan_gpu.bf16:
        found.append(Caveat.NO_BF16)
    if card_class(plan_gpu) in (CardClass.POWER_LIMITED, CardClass.PASCAL):
        found.append(Caveat.SLOW)
    if query.stack is Stack.UNSLOTH and not runs_unsloth(plan_gpu):
        found.append(Caveat.NO_UNSLOTH)
    if _abroad(quote):
        found.append(Caveat.ABROAD)
    if not quote.stock_published:
        found.append(Caveat.STOCK_UNPUBLISHED)
    if ram_gb > 0 and quote.ram_gb is None:
        found.append(Caveat.RAM_UNPUBLISHED)
    if quote.gpus > 1 and not quote.form_published:
        found.append(Caveat.LINK_ASSUMED)
    if quote.stale_since is not None:
        found.append(Caveat.STALE)
    if quote.rub_per_hour is None and hours is not None:
        rented = months_for(hours) * HOURS_PER_MONTH
        if hours < MONTH_USE_SHARE * rented:
            found.append(Caveat.MONTH_FOR_HOURS)
    return tuple(found)


def short_of_ram(quote: PriceQuote, ram_gb: float) -> bool:
    """Whether the server's published RAM is below what the run's offload needs."""
    return ram_gb > 0 and quote.ram_gb is not None and quote.ram_gb < ram_gb


def plan_for(
    sizing: Sizing, quote: PriceQuote, fitter: _Fitter | None = None, *, check_ram: bool = True
) -> Plan | None:
    """The plan one quote makes for the run, or None when the run does not fit its cards (or,
    with `check_ram`, an offloading run its published RAM)."""
    fitter = fitter or _Fitter(sizing)
    if check_ram and short_of_ram(quote, fitter.ram_gb):
        return None
    gpu = catalog.get(quote.gpu_id)
    fitted = fitter.fit(gpu, quote.gpus)
    if fitted is None:
        return None
    shard, judged = fitted
    verdict = judged.verdict
    time = fitter.time(gpu, quote.gpus)
    hours = None if time is None else time.hours
    months: int | None = None
    cost: float | None = None
    if hours is not None:
        if quote.rub_per_hour is not None:
            cost = quote.rub_per_hour * hours
        else:
            assert quote.rub_per_month is not None
            months = months_for(hours)
            cost = quote.rub_per_month * months
    per_million = hourly_equivalent(quote) / fitter.tokens_per_hour(gpu, quote.gpus) * 1e6
    return Plan(
        quote=quote,
        gpu=gpu,
        shard=shard,
        peak_gib=judged.memory.peak,
        headroom_gib=gpu.usable_gib - judged.band.high,
        verdict=verdict,
        hours=hours,
        time=time,
        months=months,
        cost_rub=cost,
        rub_per_million_tokens=per_million,
        caveats=_caveats(gpu, quote, verdict, sizing.query, hours, fitter.ram_gb),
    )


def _rank(plan: Plan) -> tuple[bool, float, float, float, int]:
    """Plans that hold the run with room first: a card the estimate's range reaches into
    («впритык») is never ranked above one it leaves room on. Then the cheapest run (with a
    dataset). Without one there is no run to price: the cheapest server-hour first, the
    figure each line shows (the price of a million tokens rests on a throughput model
    calibrated on well-fed batches, and ranking by it would reorder lines whose shown prices
    say otherwise); among equals the faster, then fewer cards."""
    tight = plan.verdict is Verdict.TIGHT
    if plan.cost_rub is not None:
        return (tight, plan.cost_rub, plan.hours or 0.0, plan.server_rub_per_hour, plan.gpus)
    return (tight, plan.server_rub_per_hour, plan.rub_per_million_tokens, 0.0, plan.gpus)


def plan_runs(
    sizing: Sizing,
    quotes: Iterable[PriceQuote],
    constraints: Constraints = Constraints(),
    *,
    check_ram: bool = True,
) -> list[Plan]:
    """Every admissible quote that holds the run, best first. `check_ram=False` drops the
    host RAM check of an offloading run (to tell whether RAM alone left no plan)."""
    fitter = _Fitter(sizing)
    plans = [
        made
        for quote in quotes
        if admits(quote, constraints)
        and (made := plan_for(sizing, quote, fitter, check_ram=check_ram)) is not None
    ]
    return sorted(plans, key=_rank)


def _same_choice(plan: Plan) -> tuple[object, ...]:
    """What a renter chooses between: two pools of one provider at one price in one country
    are one option."""
    quote = plan.quote
    return (
        quote.provider,
        quote.gpu_id,
        quote.gpus,
        quote.rub_per_hour,
        quote.rub_per_month,
        quote.country,
    )


def distinct(plans: Sequence[Plan]) -> list[Plan]:
    """The plans without repeats of the same choice (Selectel's ru-7a and ru-7b pools at one
    price), best first."""
    seen: set[tuple[object, ...]] = set()
    kept = []
    for plan in plans:
        key = _same_choice(plan)
        if key not in seen:
            seen.add(key)
            kept.append(plan)
    return kept


def shown_plans(plans: Sequence[Plan], shown: int, asked: GpuSpec | None = None) -> list[Plan]:
    """The plans an answer lists, the one rule every answer uses: the best `shown` distinct
    plans, in which, whenever the market has them,
    - the card the person asked about (`asked`: the card itself, else its family, «h100»
      naming the PCIe row while an SXM is on offer) keeps a line: its best plan, by the hour
      if it has one, since its time and cost is what was asked;
    - an hourly plan stands: a job of hours is never offered only as months of rent.
    What they need takes the last places; the best plans keep the first. With one place
    and both needs, the asked card keeps it."""
    plans = distinct(plans)
    needs: list[Plan] = []  # what must stand, first the most needed

    def listed() -> list[Plan]:
        room = max(0, shown - len(needs))
        return [*[plan for plan in plans if plan not in needs][:room], *needs[:shown]]

    def asked_missing() -> bool:
        return asked is not None and not any(p.gpu.family == asked.family for p in listed())

    family = [p for p in plans if asked is not None and p.gpu.family == asked.family]
    on_card = [p for p in family if asked is not None and p.gpu.id == asked.id] or family
    asked_line = next((p for p in on_card if not p.monthly), on_card[0] if on_card else None)
    if asked_line is not None and asked_missing():
        needs.append(asked_line)
    hourly = next((plan for plan in plans if not plan.monthly), None)
    if hourly is not None and not any(not plan.monthly for plan in listed()):
        needs.append(hourly)
        if asked_line is not None and asked_missing():  # the hourly line pushed it out
            needs.insert(0, asked_line)
    return listed()


# --- hourly against monthly ----------------------------------------------------------------


@dataclass(frozen=True)
class BreakEven:
    """The same card and count, by the hour and by the month."""

    hourly: PriceQuote
    monthly: PriceQuote
    hours: float  # hours of use a month after which the month is cheaper
    usage_hours: float | None  # the user's hours a month, or this run's length

    @property
    def pays_off(self) -> bool:
        """Whether a month can beat the hour at all: only when it does within 720 hours;
        otherwise the hour is cheaper even around the clock."""
        return self.hours < HOURS_PER_MONTH

    @property
    def monthly_wins(self) -> bool | None:
        if self.usage_hours is None:
            return None
        return self.pays_off and self.usage_hours > self.hours

    @property
    def around_the_clock_rub(self) -> float:
        """A month of the hourly rate at 720 hours."""
        assert self.hourly.rub_per_hour is not None
        return self.hourly.rub_per_hour * HOURS_PER_MONTH


def break_evens(
    quotes: Iterable[PriceQuote],
    constraints: Constraints = Constraints(),
    usage_hours: float | None = None,
) -> list[BreakEven]:
    """One break-even per (card, count) that is rented both ways, cheapest hour first."""
    hourly: dict[tuple[str, int], PriceQuote] = {}
    monthly: dict[tuple[str, int], PriceQuote] = {}
    both_ways = replace(constraints, hourly_only=False)
    for quote in quotes:
        if not admits(quote, both_ways):
            continue
        key = (quote.gpu_id, quote.gpus)
        if quote.rub_per_hour is not None:
            best = hourly.get(key)
            if best is None or quote.rub_per_hour < (best.rub_per_hour or math.inf):
                hourly[key] = quote
        elif quote.rub_per_month is not None:
            best = monthly.get(key)
            if best is None or quote.rub_per_month < (best.rub_per_month or math.inf):
                monthly[key] = quote
    found = []
    for key in hourly.keys() & monthly.keys():
        h, m = hourly[key], monthly[key]
        assert h.rub_per_hour is not None
        assert m.rub_per_month is not None
        found.append(BreakEven(h, m, m.rub_per_month / h.rub_per_hour, usage_hours))
    return sorted(found, key=lambda point: (rub_per_gpu_hour(point.hourly), point.hourly.gpus))


def break_even_for(
    plans: Sequence[Plan], quotes: Iterable[PriceQuote], usage_hours: float | None
) -> BreakEven | None:
    """The break-even of the best plan's own card and count, else of the best plan that is
    rented both ways. The run's length stands in for the usage when the user gave none."""
    points = {(p.hourly.gpu_id, p.hourly.gpus): p for p in break_evens(quotes)}
    for plan in plans:
        point = points.get((plan.quote.gpu_id, plan.gpus))
        if point is not None:
            usage = usage_hours if usage_hours is not None else plan.hours
            return replace(point, usage_hours=usage)
    return None


# --- a budget ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BudgetVerdict:
    budget_rub: float
    # The first plan whose run costs no more than the budget even at its time's high end.
    run: Plan | None
    # Else the first whose run likely fits: its estimate is within the budget, its high end not.
    likely: Plan | None
    cheapest: Plan | None  # the cheapest plan at all, when none is within the budget
    rate: Plan | None  # without a run length: the cheapest hourly plan
    hours_for_budget: float | None  # how many hours of that plan the budget buys


def within_budget(budget_rub: float, plans: Sequence[Plan]) -> BudgetVerdict:
    """Whether the run fits `budget_rub`, on the safe side: «укладываетесь» only when even
    the high end of its hours does (an under-estimate costs a person their budget), «скорее
    всего» when only its estimate does."""
    costed = [plan for plan in plans if plan.cost_rub is not None]
    if costed:
        cheapest = min(costed, key=lambda plan: plan.cost_rub or 0.0)
        sure = [plan for plan in costed if (plan.cost_high_rub or 0.0) <= budget_rub]
        likely = [plan for plan in costed if (plan.cost_rub or 0.0) <= budget_rub]
        if sure:
            return BudgetVerdict(budget_rub, sure[0], None, cheapest, None, None)
        return BudgetVerdict(budget_rub, None, likely[0] if likely else None, cheapest, None, None)
    hourly = [plan for plan in plans if not plan.monthly]
    rate = min(hourly, key=lambda plan: plan.server_rub_per_hour, default=None)
    hours = budget_rub / rate.server_rub_per_hour if rate is not None else None
    return BudgetVerdict(budget_rub, None, None, None, rate, hours)


# --- market questions ----------------------------------------------------------------------


def cheapest_offers(
    quotes: Iterable[PriceQuote], constraints: Constraints = Constraints()
) -> list[PriceQuote]:
    """Admissible quotes by price per card-hour, then fewer cards: one card's price is
    compared with one card's (a 4-card server is never "from" its whole rate)."""
    usable = [quote for quote in quotes if admits(quote, constraints)]
    return sorted(usable, key=lambda q: (rub_per_gpu_hour(q), q.gpus, q.provider))
