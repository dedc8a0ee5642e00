"""The planner's results in words: plan lines, the break-even and the budget, in ru or en.

Every figure printed here is one the planner computed for that plan: its own card count, its
own time, its own billing. Units are written once per figure.
"""

from __future__ import annotations

from estimator.cost import HOURS_PER_MONTH
from estimator.i18n import Html, translator
from estimator.number_text import money, plain
from estimator.planner import BreakEven, BudgetVerdict, Caveat, Plan
from estimator.timing import TrainingTime


def gib(value: float) -> str:
    return f"{value:.1f}"


def duration(language: str, hours: float) -> str:
    i18n = translator(language)
    if hours < 1:
        return i18n("fit-minutes", minutes=str(max(1, round(hours * 60))))
    if hours < 48:
        return i18n("fit-hours", hours=f"{hours:.1f}" if hours < 10 else f"{hours:.0f}")
    return i18n("fit-days", days=f"{hours / 24:.1f}")


def hours_span(language: str, low: float, high: float) -> str:
    """A range of hours in one unit where both ends share it («1.2–1.8 ч», «40–55 мин»)."""
    i18n = translator(language)
    if high < 1:
        return i18n("fit-minutes", minutes=f"{max(1, round(low * 60))}–{max(1, round(high * 60))}")
    if low >= 1 and high < 10:
        return i18n("fit-hours", hours=f"{low:.1f}–{high:.1f}")
    if low >= 1 and high < 48:
        return i18n("fit-hours", hours=f"{low:.0f}–{high:.0f}")
    if low >= 48:
        return i18n("fit-days", days=f"{low / 24:.1f}–{high / 24:.1f}")
    return f"{duration(language, low)} – {duration(language, high)}"


def time_span(language: str, time: TrainingTime) -> str:
    """The run's hours as the range its measured error allows (estimator.speed_accuracy)."""
    return hours_span(language, time.band.low, time.band.high)


def size_text(language: str, value_bytes: float) -> str:
    """A size in bytes in decimal units, as file managers and providers show disks and RAM."""
    english = language == "en"
    for ru, en, scale in (("ТБ", "TB", 1e12), ("ГБ", "GB", 1e9), ("МБ", "MB", 1e6)):
        if value_bytes >= scale:
            return f"{value_bytes / scale:.1f} {en if english else ru}"
    return f"{value_bytes / 1e3:.0f} {'KB' if english else 'КБ'}"


def where(plan: Plan, language: str) -> str:
    """The server: card, count, provider, and the country when it is not Russia."""
    i18n = translator(language)
    quote = plan.quote
    common = {"gpu": quote.gpu_id, "count": str(quote.gpus), "provider": quote.provider}
    if Caveat.ABROAD in plan.caveats:
        return i18n("fit-plan-where-abroad", country=quote.country, **common)
    return i18n("fit-plan-where", **common)


def flags(plan: Plan, language: str) -> str:
    """The caveats a renter must see next to the price, in a few words each. The foreign
    location is already in `where`."""
    i18n = translator(language)
    shown = [c for c in plan.caveats if c is not Caveat.ABROAD]
    if not shown:
        return ""
    words = ", ".join(i18n(f"caveat-short-{c.value}") for c in shown)
    return i18n("fit-plan-flags", flags=words)


def plan_line(n: int, plan: Plan, language: str) -> str:
    i18n = translator(language)
    quote = plan.quote
    common = {
        "n": str(n),
        "where": Html(where(plan, language)),
        "flags": Html(flags(plan, language)),
    }
    if plan.cost_rub is not None and plan.time is not None:
        if plan.monthly:
            assert plan.months is not None
            return i18n(
                "fit-plan-month",
                total=money(plan.cost_rub, i18n.language),
                months=plan.months,
                time=time_span(language, plan.time),
                **common,
            )
        rate = quote.rub_per_hour or 0.0
        band = plan.time.band
        return i18n(
            "fit-plan-hour",
            rate=money(rate, i18n.language),
            time=time_span(language, plan.time),
            total=f"{money(rate * band.low, language)}–{money(rate * band.high, language)}",
            **common,
        )
    if plan.monthly:
        return i18n(
            "fit-plan-rate-month", rate=money(quote.rub_per_month or 0.0, i18n.language), **common
        )
    return i18n(
        "fit-plan-rate-hour", rate=money(quote.rub_per_hour or 0.0, i18n.language), **common
    )


def no_hourly_line(plans: list[Plan], language: str) -> str | None:
    """Said plainly when every plan is monthly: «почасовых 4×H100 сейчас нет»."""
    i18n = translator(language)
    if not plans or not all(plan.monthly for plan in plans):
        return None
    kinds = {(plan.quote.gpu_id, plan.gpus) for plan in plans}
    if len(kinds) == 1:
        gpu, count = next(iter(kinds))
        return i18n("fit-no-hourly", what=f"{count}×{gpu}")
    return i18n("fit-no-hourly-any")


def break_even_line(point: BreakEven, language: str, *, family: str | None = None) -> str:
    """Hourly against monthly for the same card and count. A month is said to pay off only
    when it does within a month of use; otherwise the hour wins even around the clock.

    With `family` the line is one bullet of a market answer (bot/routers/market.py): it names
    the family asked about, counts whole days, and ends with which billing wins at the
    user's hours; without it, it is a sizing answer's (usage_line says the rest)."""
    i18n = translator(language)
    hourly, monthly = point.hourly, point.monthly
    prefix = "fit" if family is None else "market"
    common = {
        "gpu": family or monthly.gpu_id,
        "count": str(monthly.gpus),
        "monthly_provider": monthly.provider,
        "hourly_provider": hourly.provider,
        "month": money(monthly.rub_per_month or 0.0, i18n.language),
        "rate": money(hourly.rub_per_hour or 0.0, i18n.language),
    }
    if point.pays_off:
        days = point.hours / 24
        line = i18n(
            f"{prefix}-breakeven-pays",
            hours=f"{point.hours:.0f}",
            days=f"{days:.1f}" if family is None else f"{days:.0f}",
            **common,
        )
    else:
        line = i18n(
            f"{prefix}-breakeven-never",
            around=money(point.around_the_clock_rub, i18n.language),
            **common,
        )
    if family is not None and point.usage_hours is not None:
        choice = "monthly" if point.monthly_wins else "hourly"
        line += " " + i18n("market-breakeven-usage", usage=plain(point.usage_hours), choice=choice)
    return line


def usage_line(point: BreakEven, language: str, *, per_month: bool) -> str | None:
    """Which billing wins at the user's hours a month, or for this run's length."""
    i18n = translator(language)
    if point.usage_hours is None:
        return None
    choice = "monthly" if point.monthly_wins else "hourly"
    if per_month:
        hours = min(point.usage_hours, HOURS_PER_MONTH)
        return i18n("fit-breakeven-usage", usage=plain(hours), choice=choice)
    return i18n("fit-breakeven-job", job=duration(language, point.usage_hours), choice=choice)


def budget_line(verdict: BudgetVerdict, language: str) -> str:
    i18n = translator(language)
    budget = money(verdict.budget_rub, i18n.language)
    chosen = verdict.run or verdict.likely or verdict.cheapest
    if chosen is not None and chosen.cost_rub is not None and chosen.hours is not None:
        if verdict.run is not None:
            key = "fit-budget-yes"
        elif verdict.likely is not None:
            key = "fit-budget-likely"
        else:
            key = "fit-budget-no"
        return i18n(
            key,
            budget=budget,
            gpu=chosen.quote.gpu_id,
            count=str(chosen.gpus),
            provider=chosen.quote.provider,
            total=money(chosen.cost_rub, i18n.language),
            high=money(chosen.cost_high_rub or chosen.cost_rub, i18n.language),
            time=duration(language, chosen.hours),
        )
    if verdict.rate is not None and verdict.hours_for_budget is not None:
        rate = verdict.rate
        return i18n(
            "fit-budget-hours",
            budget=budget,
            hours=f"{verdict.hours_for_budget:.0f}",
            gpu=rate.quote.gpu_id,
            count=str(rate.gpus),
            rate=money(rate.server_rub_per_hour, i18n.language),
            provider=rate.quote.provider,
        )
    return i18n("fit-budget-none", budget=budget)


def unmet_line(unmet: tuple[str, ...], language: str) -> str:
    i18n = translator(language)
    what = ", ".join(i18n(f"unmet-{code}") for code in unmet)
    return i18n("fit-unmet", what=what)
