"""The planner's results in words: plan lines, the break-even and the budget, in ru or en.

Every figure printed here is one the planner computed for that plan: its own card count, its
own time, its own billing. Units are written once per figure.
"""

from __future__ import annotations

from estimator.cost import HOURS_PER_MONTH
from estimator.planner import BreakEven, BudgetVerdict, Caveat, Plan
from estimator.texts import Markup, text


def gib(value: float) -> str:
    return f"{value:.1f}"


def duration(language: str, hours: float) -> str:
    if hours < 1:
        return text(language, "fit-minutes", minutes=str(max(1, round(hours * 60))))
    if hours < 48:
        return text(language, "fit-hours", hours=f"{hours:.1f}" if hours < 10 else f"{hours:.0f}")
    return text(language, "fit-days", days=f"{hours / 24:.1f}")


def rubles(value: float) -> str:
    """Russian money format: thin spaces between thousands, decimal comma below 1000 ₽."""
    if value >= 1000:
        return f"{round(value):,}".replace(",", "\u202f")
    return f"{value:.2f}".replace(".", ",")


def where(plan: Plan, language: str) -> str:
    """The server: card, count, provider, and the country when it is not Russia."""
    quote = plan.quote
    common = {"gpu": quote.gpu_id, "count": str(quote.gpus), "provider": quote.provider}
    if Caveat.ABROAD in plan.caveats:
        return text(language, "fit-plan-where-abroad", country=quote.country, **common)
    return text(language, "fit-plan-where", **common)


def flags(plan: Plan, language: str) -> str:
    """The caveats a renter must see next to the price, in a few words each. The foreign
    location is already in `where`."""
    shown = [c for c in plan.caveats if c is not Caveat.ABROAD]
    if not shown:
        return ""
    words = ", ".join(text(language, f"caveat-short-{c.value}") for c in shown)
    return text(language, "fit-plan-flags", flags=words)


def plan_line(n: int, plan: Plan, language: str) -> str:
    quote = plan.quote
    common = {
        "n": str(n),
        "where": Markup(where(plan, language)),
        "flags": Markup(flags(plan, language)),
    }
    if plan.cost_rub is not None and plan.hours is not None:
        if plan.monthly:
            assert plan.months is not None
            return text(
                language,
                "fit-plan-month",
                total=rubles(plan.cost_rub),
                months=plan.months,
                time=duration(language, plan.hours),
                **common,
            )
        return text(
            language,
            "fit-plan-hour",
            rate=rubles(quote.rub_per_hour or 0.0),
            time=duration(language, plan.hours),
            total=rubles(plan.cost_rub),
            **common,
        )
    if plan.monthly:
        return text(
            language, "fit-plan-rate-month", rate=rubles(quote.rub_per_month or 0.0), **common
        )
    return text(language, "fit-plan-rate-hour", rate=rubles(quote.rub_per_hour or 0.0), **common)


def no_hourly_line(plans: list[Plan], language: str) -> str | None:
    """Said plainly when every plan is monthly: «почасовых 4×H100 сейчас нет»."""
    if not plans or not all(plan.monthly for plan in plans):
        return None
    kinds = {(plan.quote.gpu_id, plan.gpus) for plan in plans}
    if len(kinds) == 1:
        gpu, count = next(iter(kinds))
        return text(language, "fit-no-hourly", what=f"{count}×{gpu}")
    return text(language, "fit-no-hourly-any")


def break_even_line(point: BreakEven, language: str) -> str:
    """Hourly against monthly for the same card and count. A month is said to pay off only
    when it does within a month of use; otherwise the hour wins even around the clock."""
    hourly, monthly = point.hourly, point.monthly
    common = {
        "gpu": monthly.gpu_id,
        "count": str(monthly.gpus),
        "monthly_provider": monthly.provider,
        "month": rubles(monthly.rub_per_month or 0.0),
        "rate": rubles(hourly.rub_per_hour or 0.0),
    }
    if point.pays_off:
        return text(
            language,
            "fit-breakeven-pays",
            hours=f"{point.hours:.0f}",
            days=f"{point.hours / 24:.1f}",
            hourly_provider=hourly.provider,
            **common,
        )
    return text(
        language, "fit-breakeven-never", around=rubles(point.around_the_clock_rub), **common
    )


def usage_line(point: BreakEven, language: str, *, per_month: bool) -> str | None:
    """Which billing wins at the user's hours a month, or for this run's length."""
    if point.usage_hours is None:
        return None
    choice = "monthly" if point.monthly_wins else "hourly"
    if per_month:
        hours = min(point.usage_hours, HOURS_PER_MONTH)
        return text(language, "fit-breakeven-usage", usage=f"{hours:g}", choice=choice)
    return text(
        language, "fit-breakeven-job", job=duration(language, point.usage_hours), choice=choice
    )


def budget_line(verdict: BudgetVerdict, language: str) -> str:
    budget = rubles(verdict.budget_rub)
    chosen = verdict.run or verdict.cheapest
    if chosen is not None and chosen.cost_rub is not None and chosen.hours is not None:
        key = "fit-budget-yes" if verdict.run is not None else "fit-budget-no"
        return text(
            language,
            key,
            budget=budget,
            gpu=chosen.quote.gpu_id,
            count=str(chosen.gpus),
            provider=chosen.quote.provider,
            total=rubles(chosen.cost_rub),
            time=duration(language, chosen.hours),
        )
    if verdict.rate is not None and verdict.hours_for_budget is not None:
        rate = verdict.rate
        return text(
            language,
            "fit-budget-hours",
            budget=budget,
            hours=f"{verdict.hours_for_budget:.0f}",
            gpu=rate.quote.gpu_id,
            count=str(rate.gpus),
            rate=rubles(rate.server_rub_per_hour),
            provider=rate.quote.provider,
        )
    return text(language, "fit-budget-none", budget=budget)


def unmet_line(unmet: tuple[str, ...], language: str) -> str:
    what = ", ".join(text(language, f"unmet-{code}") for code in unmet)
    return text(language, "fit-unmet", what=what)
