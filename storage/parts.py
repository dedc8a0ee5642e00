"""Per-part provider health: the statuses monitor.parts hands back, and its counters."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from monitor.health import PartHealth
from monitor.parts import PartRuns, PartState, PartStatus
from storage.sql import Connection, list_value, moment_value, not_in_list, optional_moment

# An error text is provider garbage or exception text: stored trimmed.
MAX_ERROR_CHARS = 500


async def read_part_runs(connection: Connection, provider: str) -> dict[str, PartRuns]:
    rows = await connection.fetchall(
        "SELECT part, consecutive_failures, suspect_runs FROM provider_parts WHERE provider = ?",
        (provider,),
    )
    return {row[0]: PartRuns(row[1], row[2]) for row in rows}


async def write_part_statuses(
    connection: Connection,
    provider: str,
    statuses: Sequence[PartStatus],
    at: datetime,
) -> None:
    """Replace the provider's part rows with this scrape's statuses, inside the caller's
    transaction. A part that is gone from the scrape and keeps nothing has no row any more."""
    dialect = connection.dialect
    when = moment_value(dialect, at)
    names = [status.part for status in statuses]
    await connection.execute(
        "DELETE FROM provider_parts WHERE provider = ?"  # noqa: S608 - fixed fragment
        f" AND part {not_in_list(dialect, element='text')}",
        (provider, list_value(dialect, names)),
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


def _row(provider: str, status: PartStatus, when: object) -> tuple[object, ...]:
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


async def read_part_health(
    connection: Connection, provider: str | None = None
) -> dict[str, tuple[PartHealth, ...]]:
    """Every provider's parts (or one `provider`'s), by provider, in part order."""
    found: dict[str, list[PartHealth]] = {}
    if provider is None:
        rows = await connection.fetchall("SELECT * FROM provider_parts ORDER BY provider, part")
    else:
        rows = await connection.fetchall(
            "SELECT * FROM provider_parts WHERE provider = ? ORDER BY part", (provider,)
        )
    for row in rows:
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
                last_success_at=optional_moment(row["last_success_at"]),
            )
        )
    return {provider: tuple(parts) for provider, parts in found.items()}
