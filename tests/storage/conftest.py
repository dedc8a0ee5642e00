"""Every storage test runs on both backends: a test that takes `backend` (or a fixture built
on it: `place`, `store`, `empty_database`) runs once on SQLite and once on PostgreSQL. Mark
a test `sqlite_only` or `postgresql_only` where the behaviour is one backend's own (a file
lock, user_version, claims shared by replicas)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest

from storage import Store
from storage.database import SqliteDatabase
from storage.postgres import PgDatabase
from storage.sql import Dialect
from tests.postgres import migrated_database, require_postgres, temporary_database

BACKENDS: tuple[Dialect, ...] = ("sqlite", "postgresql")

# What a broken constraint raises on each backend.
INTEGRITY_ERRORS = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)


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


@dataclass(frozen=True)
class Place:
    """Where a test's migrated database lives: a SQLite file, or a PostgreSQL database."""

    backend: Dialect
    path: Path | None = None
    url: str | None = None

    async def open(self) -> Store:
        """Another Store on the same database (a restart, or a second replica)."""
        if self.url is not None:
            return await Store.connect(self.url, max_size=4)
        assert self.path is not None
        return await Store.open(self.path)


@pytest.fixture
async def place(backend: Dialect, tmp_path: Path) -> AsyncIterator[Place]:
    if backend == "sqlite":
        yield Place(backend, path=tmp_path / "store.sqlite3")
        return
    require_postgres()
    async with migrated_database() as url:  # this worker's, emptied after the test
        yield Place(backend, url=url)


@pytest.fixture
async def store(place: Place) -> AsyncIterator[Store]:
    opened = await place.open()
    yield opened
    await opened.close()


@pytest.fixture
async def empty_database(
    backend: Dialect, tmp_path: Path
) -> AsyncIterator[SqliteDatabase | PgDatabase]:
    """A database of `backend` with no schema at all."""
    if backend == "sqlite":
        sqlite = await SqliteDatabase.open(tmp_path / "empty.sqlite3")
        yield sqlite
        await sqlite.close()
        return
    require_postgres()
    async with temporary_database() as url:
        postgres = await PgDatabase.open(url)
        yield postgres
        await postgres.close()
