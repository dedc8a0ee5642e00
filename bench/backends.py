"""The storage backends a bench measures, and a scratch database of each.

`--backend sqlite|postgresql|both`; unset, both when a PostgreSQL server answers (the tests'
server: GPURADAR_TEST_POSTGRES_URL, else 127.0.0.1:5432), else SQLite alone, said in one line.
A PostgreSQL run gets a database of its own, dropped afterwards.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal, get_args

from storage import Store, migrate
from storage.database import SqliteDatabase
from storage.postgres import PgDatabase
from tests.postgres import ADMIN_URL, temporary_database, unreachable_reason

Backend = Literal["sqlite", "postgresql"]
BACKENDS: tuple[Backend, ...] = get_args(Backend)


def add_backend_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=[*BACKENDS, "both"],
        default=None,
        help="storage to measure (default: both when PostgreSQL is reachable, else sqlite)",
    )


def chosen_backends(option: str | None) -> list[Backend]:
    reason = unreachable_reason()
    if option in BACKENDS:
        wanted: list[Backend] = [option]
    elif option == "both" or reason is None:
        wanted = list(BACKENDS)
    else:
        print(f"PostgreSQL not reachable at {ADMIN_URL} ({reason}): SQLite only")
        return ["sqlite"]
    if "postgresql" in wanted and reason is not None:
        raise SystemExit(f"PostgreSQL not reachable at {ADMIN_URL}: {reason}")
    return wanted


@asynccontextmanager
async def scratch_database(backend: Backend) -> AsyncIterator[SqliteDatabase | PgDatabase]:
    """An empty database of `backend`, gone afterwards."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            sqlite = await SqliteDatabase.open(Path(folder) / "bench.sqlite3")
            try:
                yield sqlite
            finally:
                await sqlite.close()
        return
    async with temporary_database() as url:
        postgres = await PgDatabase.open(url)
        try:
            yield postgres
        finally:
            await postgres.close()


@asynccontextmanager
async def scratch_store(backend: Backend) -> AsyncIterator[Store]:
    """A migrated Store on a scratch database of `backend`."""
    async with scratch_database(backend) as database:
        await migrate(database)
        yield Store(database)
