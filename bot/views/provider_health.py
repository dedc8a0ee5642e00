"""A provider's health in words: the parts of its poll that did not update, shared by the
/prices footer and /admin (the /healthz JSON names them itself), and its error text trimmed
for /admin and the operators' notices."""

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


# A provider's error text is scraped or exception text: long ones are trimmed for the table.
MAX_ERROR_CHARS = 200


def trim(text: str, limit: int) -> str:
    """One line of at most `limit` characters (the Translator escapes it afterwards)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
