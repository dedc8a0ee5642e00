"""Per-part provider health: the statuses monitor.parts hands back, and its counters."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import aiosqlite

from monitor.health import PartHealth
from monitor.parts import PartRuns, PartState, PartStatus

# An error text is provider garbage or exception text: stored trimmed.
MAX_ERROR_CHARS = 500


def _text(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


async def read_part_runs(connection: aiosqlite.Connection, provider: str) -> dict[str, PartRuns]:
    cursor = await connection.execute(
        "SELECT part, consecutive_failures, suspect_runs FROM provider_parts WHERE provider = ?",
        (provider,),
    )
    return {row[0]: PartRuns(row[1], row[2]) for row in await cursor.fetchall()}


async def write_part_statuses(
    connection: aiosqlite.Connection,
    provider: str,
    statuses: Sequence[PartStatus],
    at: datetime,
) -> None:
    """Replace the provider's part rows with this scrape's statuses, inside the caller's
    transaction. A part that is gone from the scrape and keeps nothing has no row any more."""
    when = _text(at)
    names = [status.part for status in statuses]
    marks = ", ".join("?" * len(names))
    await connection.execute(
        f"DELETE FROM provider_parts WHERE provider = ? AND part NOT IN ({marks})",  # noqa: S608
        (provider, *names),
    )
    await connection.executemany(
        "INSERT INTO provider_parts (provider, part, state, offers, kept, consecutive_failures,"
        " suspect_runs, error_class, error, last_attempt_at, last_success_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (provider, part) DO UPDATE SET state = excluded.state,"
        " offers = excluded.offers, kept = excluded.kept,"
        " consecutive_failures = excluded.consecutive_failures,"
        " suspect_runs = excluded.suspect_runs, error_class = excluded.error_class,"
        " error = excluded.error, last_attempt_at = excluded.last_attempt_at,"
        " last_success_at = coalesce(excluded.last_success_at, provider_parts.last_success_at)",
        [_row(provider, status, when) for status in statuses],
    )


def _row(provider: str, status: PartStatus, when: str) -> tuple[object, ...]:
    error = status.error
    detail = error.detail if error is not None else status.note or None
    return (
        provider,
        status.part,
        status.state.value,
        status.offers,
        status.kept,
        status.runs.failures,
        status.runs.suspect,
        None if error is None else error.kind,
        None if detail is None else detail[:MAX_ERROR_CHARS],
        when,
        when if status.state is PartState.OK else None,
    )


async def read_part_health(connection: aiosqlite.Connection) -> dict[str, tuple[PartHealth, ...]]:
    """Every provider's parts, by provider, in part order."""
    cursor = await connection.execute("SELECT * FROM provider_parts ORDER BY provider, part")
    found: dict[str, list[PartHealth]] = {}
    for row in await cursor.fetchall():
        found.setdefault(row["provider"], []).append(
            PartHealth(
                part=row["part"],
                state=PartState(row["state"]),
                offers=row["offers"],
                kept=row["kept"],
                consecutive_failures=row["consecutive_failures"],
                suspect_runs=row["suspect_runs"],
                error_class=row["error_class"],
                error=row["error"],
                last_success_at=None
                if row["last_success_at"] is None
                else datetime.fromisoformat(row["last_success_at"]),
            )
        )
    return {provider: tuple(parts) for provider, parts in found.items()}
