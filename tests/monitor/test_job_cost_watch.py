"""A watch on a run's total cost: «сообщи, когда мой запуск будет стоить меньше 3 000 ₽».

The run's hours per card and count are fixed when the watch is made; an offer matches when the
whole run costs no more than the budget at that offer's own billing, and a drop alerts when it
brings the run under the budget.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from estimator.fit_words import understand
from estimator.parse import QueryError
from estimator.planner import Sizing, job_hours
from monitor.events import Event, EventKind
from monitor.match_index import MatchIndex
from monitor.match_rules import matches, naive_match
from monitor.offers import Price, StockState
from monitor.subscriptions import AlertKind, Subscription
from monitor.watch_words import parse_watch
from storage.subscriptions import filter_from_json, filter_to_json
from tests.factories import make_offer

T0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
RUN = "8b lora dataset=20k tokens=1024"


def _hours_on_one_4090() -> float:
    parsed = understand(RUN)
    assert parsed is not None
    return job_hours(Sizing(parsed.query, parsed.model), ["RTX 4090"])["RTX 4090"][1]


def _sub(budget: float) -> Subscription:
    return Subscription(1, 100, parse_watch(f"{RUN} budget={budget:g}"))


def _appeared(
    rub_per_hour: float, *, monthly: bool = False, count: int = 1, sku: str = "4090"
) -> Event:
    offer = make_offer(sku, rub_per_hour, gpu="RTX 4090", gpu_count=count)
    if monthly:
        offer = replace(offer, price=Price.per_month(rub_per_hour * 720, "RUB/month"))
    return Event(EventKind.APPEARED, offer, T0)


def _drop(old: float, new: float, sku: str = "4090") -> Event:
    offer = make_offer(sku, new, gpu="RTX 4090")
    return Event(EventKind.PRICE_DROP, offer, T0, old_price_hour=old, new_price_hour=new)


def test_the_watch_holds_the_run_and_alerts_only_under_its_budget():
    watch = parse_watch(f"{RUN} budget=3000")
    assert watch.kinds == frozenset({AlertKind.BELOW_TARGET})
    assert watch.max_job_rub == 3000
    assert watch.job_hours is not None
    hours = _hours_on_one_4090()
    assert watch.job_hours["RTX 4090"][1] == pytest.approx(hours)
    assert watch.job_hours["RTX 4090"][2] < hours  # two cards: sooner
    cheap, dear = 2900 / hours, 3100 / hours  # ₽ per hour that put the run under / over
    sub = _sub(3000)
    assert matches(sub, _appeared(cheap), T0)
    assert not matches(sub, _appeared(dear), T0)


def test_a_drop_alerts_when_it_brings_the_run_under_the_budget():
    hours = _hours_on_one_4090()
    sub = _sub(3000)
    crossing = _drop(3100 / hours, 2900 / hours)
    already_under = _drop(2900 / hours, 2800 / hours)
    assert matches(sub, crossing, T0)
    assert not matches(sub, already_under, T0)


def test_a_monthly_server_costs_its_whole_months():
    hours = _hours_on_one_4090()
    sub = _sub(3000)
    # At this hourly-equivalent the run would cost 2900 by the hour; a month costs 720 h of it.
    assert not matches(sub, _appeared(2900 / hours, monthly=True), T0)
    assert matches(_sub(2900 / hours * 720 + 1), _appeared(2900 / hours, monthly=True), T0)


def test_the_index_agrees_with_the_rule_book():
    hours = _hours_on_one_4090()
    subs = [_sub(3000), replace(_sub(1000), id=2, chat_id=101)]
    gone = _appeared(5.0, sku="e")
    events = [
        _appeared(2900 / hours, sku="a"),
        _appeared(900 / hours, count=2, sku="b"),
        _drop(3100 / hours, 2900 / hours, sku="c"),
        _drop(1100 / hours, 950 / hours, sku="d"),
        _appeared(10.0, monthly=True, sku="f"),
        replace(gone, offer=replace(gone.offer, stock=StockState.OUT_OF_STOCK)),
    ]
    expected = {alert.dedupe_key for alert in naive_match(subs, events, T0)}
    assert len(expected) >= 3  # the case means something
    assert {alert.dedupe_key for alert in MatchIndex(subs).match(events, T0)} == expected


def test_a_budget_without_a_dataset_is_refused():
    with pytest.raises(QueryError) as caught:
        parse_watch("8b lora budget=3000")
    assert caught.value.code == "fit_error"


def test_the_watch_survives_storage():
    watch = parse_watch(f"{RUN} budget=3000")
    again = filter_from_json(filter_to_json(watch))
    assert again.max_job_rub == watch.max_job_rub
    assert again.job_hours is not None
    assert watch.job_hours is not None
    assert {g: dict(h) for g, h in again.job_hours.items()} == {
        g: dict(h) for g, h in watch.job_hours.items()
    }
    assert again.kinds == watch.kinds
