"""When to tell the operator about a provider: once when it starts failing, once when it is back.

Pure state, fed every pipeline outcome in order. A provider "fails" when it has failed
`threshold` refreshes in a row; that is said exactly once per failing streak, however long the
streak runs, and the first success after it is said exactly once as a recovery. A short streak
(under the threshold) that ends in a success says nothing at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from monitor.pipeline import PipelineOutcome

DEFAULT_THRESHOLD = 3


class AlarmKind(StrEnum):
    FAILING = "failing"
    RECOVERED = "recovered"


@dataclass(frozen=True)
class AlarmEvent:
    kind: AlarmKind
    provider: str
    # FAILING: the threshold just reached; RECOVERED: how long the failing streak was.
    failures: int
    # The error of the outcome that raised the alarm (FAILING only).
    error_class: str | None = None
    error: str | None = None


@dataclass
class _State:
    failures: int = 0
    alarmed: bool = False


class ProviderAlarms:
    """Per-provider failure streaks; `observe` returns an event only on a change worth a message."""

    def __init__(self, threshold: int = DEFAULT_THRESHOLD) -> None:
        if threshold < 1:
            raise ValueError("threshold must be at least 1")
        self.threshold = threshold
        self._states: dict[str, _State] = {}

    def observe(self, outcome: PipelineOutcome) -> AlarmEvent | None:
        state = self._states.setdefault(outcome.provider, _State())
        if outcome.ok:
            streak, alarmed = state.failures, state.alarmed
            state.failures, state.alarmed = 0, False
            return AlarmEvent(AlarmKind.RECOVERED, outcome.provider, streak) if alarmed else None
        state.failures += 1
        if state.alarmed or state.failures < self.threshold:
            return None
        state.alarmed = True
        error = outcome.error
        return AlarmEvent(
            AlarmKind.FAILING,
            outcome.provider,
            state.failures,
            error_class=None if error is None else error.kind,
            error=None if error is None else error.detail,
        )

    def failing(self) -> list[str]:
        """Providers currently in an alarmed failing streak, sorted."""
        return sorted(name for name, state in self._states.items() if state.alarmed)
