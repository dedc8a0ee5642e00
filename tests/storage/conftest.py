"""Every storage test runs on both backends: a test that takes `backend` (or a fixture built
on it) runs once on SQLite and once on PostgreSQL. Mark a test `sqlite_only` or
`postgresql_only` where the behaviour is one backend's own (a file lock, user_version, a claim
shared by replicas)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage.database import Database
from storage.postgres import PgDatabase
from storage.sql import Dialect
from tests.postgres import require_postgres, temporary_database

BACKENDS: tuple[Dialect, ...] = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" not in metafunc.fixturenames:
        return
    marks = {mark.name for mark in metafunc.definition.iter_markers()}
    backends = [
        backend
        for backend in BACKENDS
        if not (backend == "postgresql" and "sqlite_only" in marks)
        and not (backend == "sqlite" and "postgresql_only" in marks)
    ]
    metafunc.parametrize("backend", backends)


@pytest.fixture
async def empty_database(backend: Dialect, tmp_path: Path) -> AsyncIterator[Database | PgDatabase]:
    """A database of `backend` with no schema at all."""
    if backend == "sqlite":
        sqlite = await Database.open(tmp_path / "empty.sqlite3")
        yield sqlite
        await sqlite.close()
        return
    require_postgres()
    async with temporary_database() as url:
        postgres = await PgDatabase.open(url)
        yield postgres
        await postgres.close()
