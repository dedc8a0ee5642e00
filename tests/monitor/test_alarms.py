"""Provider alarms: one "failing" at K failures in a row, one "recovered" after, per provider."""

from __future__ import annotations

import pytest

from monitor.alarms import AlarmEvent, AlarmKind, ProviderAlarms
from monitor.pipeline import PipelineOutcome
from monitor.scrape import NetworkError


def ok(provider: str = "selectel") -> PipelineOutcome:
    return PipelineOutcome(provider, True, offers=5)


def failed(provider: str = "selectel", detail: str = "timeout") -> PipelineOutcome:
    return PipelineOutcome(provider, False, error=NetworkError(provider, detail))


def feed(alarms: ProviderAlarms, outcomes: list[PipelineOutcome]) -> list[AlarmEvent | None]:
    return [alarms.observe(outcome) for outcome in outcomes]


def test_failing_is_said_exactly_once_at_the_threshold():
    alarms = ProviderAlarms()
    events = feed(alarms, [failed(detail=f"timeout {i}") for i in range(10)])
    assert events[:2] == [None, None]
    assert events[2] == AlarmEvent(
        AlarmKind.FAILING, "selectel", 3, error_class="NetworkError", error="timeout 2"
    )
    assert events[3:] == [None] * 7
    assert alarms.failing() == ["selectel"]


def test_recovered_is_said_exactly_once_on_the_next_success():
    alarms = ProviderAlarms(threshold=3)
    feed(alarms, [failed()] * 5)
    events = feed(alarms, [ok(), ok(), ok()])
    assert events == [AlarmEvent(AlarmKind.RECOVERED, "selectel", 5), None, None]
    assert alarms.failing() == []


def test_a_short_streak_says_nothing_and_does_not_count_towards_the_next():
    alarms = ProviderAlarms(threshold=3)
    events = feed(alarms, [failed(), failed(), ok(), failed(), failed(), ok()])
    assert events == [None] * 6


def test_a_second_outage_is_said_again():
    alarms = ProviderAlarms(threshold=2)
    events = feed(alarms, [failed(), failed(), ok(), failed(), failed(), failed()])
    kinds = [event.kind if event else None for event in events]
    assert kinds == [None, AlarmKind.FAILING, AlarmKind.RECOVERED, None, AlarmKind.FAILING, None]


def test_providers_are_independent():
    alarms = ProviderAlarms(threshold=3)
    outcomes = [
        failed("selectel"),
        failed("immers"),
        failed("selectel"),
        ok("immers"),
        failed("selectel"),  # selectel's third in a row
        failed("immers"),
        failed("immers"),
        ok("selectel"),
        failed("immers"),  # immers' third in a row since its success
    ]
    said = [(e.kind, e.provider) for e in feed(alarms, outcomes) if e is not None]
    assert said == [
        (AlarmKind.FAILING, "selectel"),
        (AlarmKind.RECOVERED, "selectel"),
        (AlarmKind.FAILING, "immers"),
    ]
    assert alarms.failing() == ["immers"]


def test_success_without_history_says_nothing_and_threshold_one_alarms_at_once():
    assert ProviderAlarms().observe(ok()) is None
    event = ProviderAlarms(threshold=1).observe(PipelineOutcome("hostkey", False))
    assert event == AlarmEvent(AlarmKind.FAILING, "hostkey", 1)


def test_threshold_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        ProviderAlarms(threshold=0)
