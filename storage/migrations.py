"""One ordered list of numbered SQL migrations for both backends.

`schema/NNNN_name.sql` is run by both; where the dialects differ, a version has two files,
`NNNN_name.sqlite.sql` and `NNNN_name.postgresql.sql`, written to leave the same tables.

SQLite records the version in `PRAGMA user_version`. Each file runs in its own transaction
together with the bump (user_version is transactional in SQLite), so a broken file leaves the
database exactly as it was before that file.

PostgreSQL records versions in `schema_migrations`. Every pending file runs in ONE transaction
that first takes `pg_advisory_xact_lock(MIGRATION_LOCK_KEY)`: replicas starting at the same
moment queue on the lock, and each one after the first finds the work done. A broken file
rolls the whole run back.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from importlib import resources
from importlib.resources.abc import Traversable
from typing import get_args

import asyncpg

from storage.cards import fill_cards
from storage.database import SqliteDatabase
from storage.history_tiers import rebuild_tiers
from storage.leader import MIGRATION_LOCK_KEY
from storage.postgres import PgDatabase
from storage.sql import Connection, Dialect, scalar

DIALECTS: tuple[Dialect, ...] = get_args(Dialect)
_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)(?:\.(sqlite|postgresql))?\.sql$")

_SCHEMA_MIGRATIONS = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version     integer     PRIMARY KEY,
    name        text        NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
)
"""


# A step in Python that a version's SQL cannot do (reading the GPU catalogue; the history
# summaries, whose grains and ranking storage.history_tiers holds), run after that version's
# SQL in the same transaction.
DataStep = Callable[[Connection], Awaitable[None]]
DATA_STEPS: Mapping[int, DataStep] = {22: fill_cards, 23: rebuild_tiers}


class MigrationError(Exception):
    """A migration could not be applied; the database is left at the previous version."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str  # "0005_outbox": the file name without the dialect and .sql
    scripts: Mapping[Dialect, str]  # what each backend runs
    data_step: DataStep | None = None  # run after the script, in its transaction

    @classmethod
    def shared(cls, version: int, name: str, sql: str) -> Migration:
        """One file for both backends."""
        return cls(version, name, dict.fromkeys(DIALECTS, sql))

    def script(self, dialect: Dialect) -> str:
        return self.scripts[dialect]


def bundled_migrations() -> list[Migration]:
    """The migrations shipped in `storage/schema`, checked for gaps, duplicates and halves."""
    found = read_migrations(resources.files("storage").joinpath("schema"))
    return [replace(m, data_step=DATA_STEPS.get(m.version)) for m in found]


def read_migrations(folder: Traversable) -> list[Migration]:
    files: dict[int, dict[str, str]] = {}  # version -> {file name: its text}
    for entry in folder.iterdir():
        if _NAME.match(entry.name):
            version = int(entry.name[:4])
            files.setdefault(version, {})[entry.name] = entry.read_text("utf-8")
    return check_sequence([_migration(version, found) for version, found in files.items()])


def _migration(version: int, found: dict[str, str]) -> Migration:
    names: set[str] = set()
    scripts: dict[Dialect, str] = {}
    shared: str | None = None
    for file_name, text in found.items():
        match = _NAME.match(file_name)
        assert match is not None
        names.add(f"{match.group(1)}_{match.group(2)}")
        dialect = match.group(3)
        if dialect is None:
            shared = text
        else:
            scripts[dialect] = text  # type: ignore[index]  # the pattern allows only dialects
    listing = ", ".join(sorted(found))
    if len(names) > 1:
        raise MigrationError(f"migration {version:04d} has files of two names: {listing}")
    (name,) = names
    if shared is not None:
        if scripts:
            raise MigrationError(f"migration {name} is both shared and per dialect: {listing}")
        return Migration.shared(version, name, shared)
    missing = [dialect for dialect in DIALECTS if dialect not in scripts]
    if missing:
        raise MigrationError(f"migration {name} has no {name}.{missing[0]}.sql (found {listing})")
    return Migration(version, name, scripts)


def check_sequence(migrations: list[Migration]) -> list[Migration]:
    ordered = sorted(migrations, key=lambda migration: migration.version)
    for expected, migration in enumerate(ordered, start=1):
        if migration.version != expected:
            raise MigrationError(
                f"migrations must be numbered 1, 2, 3...: expected {expected:04d}, "
                f"found {migration.name}"
            )
    return ordered


async def migrate(
    database: SqliteDatabase | PgDatabase, migrations: list[Migration] | None = None
) -> int:
    """Bring the schema up to date; returns the resulting version."""
    pending = bundled_migrations() if migrations is None else check_sequence(migrations)
    if isinstance(database, PgDatabase):
        await _migrate_postgresql(database, pending)
    else:
        await _migrate_sqlite(database, pending)
    return len(pending)


def _check_not_newer(current: int, latest: int) -> None:
    if current > latest:
        raise MigrationError(
            f"database schema is version {current}, newer than this code knows ({latest})"
        )


async def _migrate_sqlite(database: SqliteDatabase, migrations: list[Migration]) -> None:
    current = int(str(await database.pragma("user_version")))
    _check_not_newer(current, len(migrations))
    for migration in migrations[current:]:
        if migration.data_step is not None:
            await _migrate_sqlite_with_step(database, migration, migration.data_step)
            continue
        script = (
            "BEGIN IMMEDIATE;\n"
            f"{migration.script('sqlite')}\n;\n"
            f"PRAGMA user_version = {migration.version};\n"
            "COMMIT;\n"
        )
        try:
            await database.run_script(script)
        except sqlite3.Error as error:
            raise MigrationError(f"migration {migration.name} failed: {error}") from error


async def _migrate_sqlite_with_step(
    database: SqliteDatabase, migration: Migration, step: DataStep
) -> None:
    """One version whose SQL is followed by a step in Python: statement by statement in one
    transaction with the step and the version's bump (user_version is transactional)."""
    try:
        async with database.transaction() as connection:
            for statement in _statements(migration.script("sqlite")):
                await connection.execute(statement)
            await step(connection)
            await connection.execute(f"PRAGMA user_version = {migration.version}")
    except sqlite3.Error as error:
        raise MigrationError(f"migration {migration.name} failed: {error}") from error


def _statements(script: str) -> list[str]:
    """A script's statements, each whole (sqlite3.complete_statement), comments kept."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending)
            pending = ""
    return statements


async def _migrate_postgresql(database: PgDatabase, migrations: list[Migration]) -> None:
    try:
        async with database.transaction() as connection:
            # Before anything else, even the bookkeeping table: a replica that waited here
            # sees what the one before it committed (each statement reads anew).
            await connection.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK_KEY,))
            await connection.script(_SCHEMA_MIGRATIONS)
            latest = await scalar(connection, "SELECT max(version) FROM schema_migrations")
            current = 0 if latest is None else int(str(latest))
            _check_not_newer(current, len(migrations))
            for migration in migrations[current:]:
                try:
                    await connection.script(migration.script("postgresql"))
                    if migration.data_step is not None:
                        await migration.data_step(connection)
                except asyncpg.PostgresError as error:
                    raise MigrationError(f"migration {migration.name} failed: {error}") from error
                await connection.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (?, ?)",
                    (migration.version, migration.name),
                )
    except asyncpg.PostgresError as error:
        raise MigrationError(f"migrations failed: {error}") from error
