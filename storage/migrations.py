"""Numbered SQL migrations applied in order and recorded in `PRAGMA user_version`.

Files are `schema/NNNN_name.sql`. Each runs inside its own transaction together with the
user_version bump (user_version is transactional in SQLite), so a broken file leaves the
database exactly as it was before that file.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

from storage.database import Database

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class MigrationError(Exception):
    """A migration could not be applied; the database is left at the previous version."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def bundled_migrations() -> list[Migration]:
    """The migrations shipped in `storage/schema`, checked for gaps and duplicates."""
    folder = resources.files("storage").joinpath("schema")
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text("utf-8")))
    return check_sequence(found)


def check_sequence(migrations: list[Migration]) -> list[Migration]:
    ordered = sorted(migrations, key=lambda migration: migration.version)
    for expected, migration in enumerate(ordered, start=1):
        if migration.version != expected:
            raise MigrationError(
                f"migrations must be numbered 1, 2, 3...: expected {expected:04d}, "
                f"found {migration.name}"
            )
    return ordered


async def migrate(database: Database, migrations: list[Migration] | None = None) -> int:
    """Bring the schema up to date; returns the resulting version."""
    pending = bundled_migrations() if migrations is None else check_sequence(migrations)
    latest = len(pending)
    current = int(str(await database.pragma("user_version")))
    if current > latest:
        raise MigrationError(
            f"database schema is version {current}, newer than this code knows ({latest})"
        )
    for migration in pending[current:]:
        await _apply(database, migration)
    return latest


async def _apply(database: Database, migration: Migration) -> None:
    script = (
        "BEGIN IMMEDIATE;\n"
        f"{migration.sql}\n;\n"
        f"PRAGMA user_version = {migration.version};\n"
        "COMMIT;\n"
    )
    async with database.access() as connection:
        try:
            await connection.executescript(script)
        except sqlite3.Error as error:
            if connection.in_transaction:
                await connection.rollback()
            raise MigrationError(f"migration {migration.name} failed: {error}") from error
