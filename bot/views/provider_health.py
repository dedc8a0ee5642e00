"""The parts of a provider's poll that did not update, in words: shared by the /prices footer
and /admin (the /healthz JSON names them itself)."""

from __future__ import annotations

from estimator.i18n import Translator
from monitor.health import PartHealth, ProviderHealth


def part_text(i18n: Translator, part: PartHealth) -> str:
    """`cloud (LayoutError)`, `server (empty answer)`, `4090 (sudden drop, ...)`."""
    if part.state.value == "suspect":
        return i18n("provider-part-suspect", part=part.part)
    if part.state.value == "empty":
        return i18n("provider-part-empty", part=part.part)
    return i18n("provider-part-failed", part=part.part, error=part.error_class or "?")


def troubled_parts_text(i18n: Translator, health: ProviderHealth) -> str:
    return ", ".join(part_text(i18n, part) for part in health.troubled_parts)


def admin_part_state(i18n: Translator, part: PartHealth) -> str:
    if part.state.value == "suspect":
        return i18n("admin-part-state-suspect", runs=part.suspect_runs)
    if part.state.value == "empty":
        return i18n("admin-part-state-empty", failures=part.consecutive_failures)
    return i18n(
        "admin-part-state-failed",
        error_class=part.error_class or "?",
        failures=part.consecutive_failures,
    )
