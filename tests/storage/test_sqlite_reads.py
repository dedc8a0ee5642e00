"""SQLite's reads on their own read-only connections: a long read holds no writer up, and a
committed write is what every reading connection sees next."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from storage.database import READ_CONNECTIONS, SqliteDatabase
from storage.sql import scalar

# Far beyond any healthy write, far below the test run's limit: only a writer stuck behind
# the read reaches it.
STUCK_S = 10


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    db = await SqliteDatabase.open(tmp_path / "reads.sqlite3")
    await db.run_script("CREATE TABLE t (id INTEGER PRIMARY KEY);")
    yield db
    await db.close()


async def test_a_write_commits_while_a_long_read_runs(database: SqliteDatabase):
    started, release = threading.Event(), threading.Event()

    def held(value: int) -> int:
        # Runs inside the SELECT on the reader's thread: the read is under way until released.
        started.set()
        release.wait(STUCK_S)
        return value

    async with database.access() as reader:
        await reader._raw.create_function("held", 1, held)
        read = asyncio.create_task(reader.fetchone("SELECT held(count(*)) FROM t"))
        try:
            assert await asyncio.to_thread(started.wait, STUCK_S)
            async with asyncio.timeout(STUCK_S):
                async with database.transaction() as writer:
                    await writer.execute("INSERT INTO t (id) VALUES (1)")
                await database.probe_write()
        finally:
            release.set()
            row = await read
    assert row is not None
    assert row[0] == 0  # the read kept the state it began with
    async with database.access() as connection:
        assert await scalar(connection, "SELECT count(*) FROM t") == 1


async def test_every_reader_sees_a_committed_write_at_its_next_read(database: SqliteDatabase):
    async with database.transaction() as writer:
        await writer.executemany("INSERT INTO t (id) VALUES (?)", [(1,), (2,)])
    async with asyncio.timeout(STUCK_S), AsyncExitStack() as held:
        readers = [
            await held.enter_async_context(database.access()) for _ in range(READ_CONNECTIONS)
        ]
        # A first row of several: a statement left open would pin each reader's snapshot.
        for reader in readers:
            assert await reader.fetchone("SELECT id FROM t ORDER BY id") is not None
        async with database.write() as writer:
            await writer.execute("INSERT INTO t (id) VALUES (3)")
        for reader in readers:
            assert await scalar(reader, "SELECT count(*) FROM t") == 3


async def test_readers_cannot_write(database: SqliteDatabase):
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        async with database.access() as reader:
            await reader.execute("INSERT INTO t (id) VALUES (1)")


async def test_an_in_memory_database_reads_on_its_one_connection():
    # Two connections to ":memory:" would be two databases, and it has no WAL.
    db = await SqliteDatabase.open(Path(":memory:"))
    try:
        assert db._readers is None
        await db.run_script("CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);")
        async with db.access() as connection:
            assert await scalar(connection, "SELECT count(*) FROM t") == 1
    finally:
        await db.close()
