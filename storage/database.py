"""SQLite behind the `storage.sql` interface: one aiosqlite connection for the whole process.

SQLite allows one writer at a time, and a single aiosqlite connection cannot hold two
transactions at once: a second coroutine's BEGIN would fail, and one coroutine's COMMIT would
commit the other's statements. So every use of the connection goes through one asyncio lock.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

import aiosqlite

from storage.sql import Params, Row, WriteWatch

BUSY_TIMEOUT_MS = 5000
CACHE_KIB = 32 * 1024


class SqliteConnection:
    """The one connection, as `storage.sql.Connection`: `?` and `:name` are SQLite's own."""

    def __init__(self, raw: aiosqlite.Connection) -> None:
        self._raw = raw

    @property
    def dialect(self) -> Literal["sqlite"]:
        return "sqlite"

    async def execute(self, sql: str, params: Params = ()) -> int:
        cursor = await self._raw.execute(sql, params)
        return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        await self._raw.executemany(sql, rows)

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        # One trip to aiosqlite's thread rather than two (execute, then fetchall).
        return list(await self._raw.execute_fetchall(sql, params))

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        cursor = await self._raw.execute(sql, params)
        row: Row | None = await cursor.fetchone()
        return row


class SqliteDatabase(WriteWatch):
    # Only OperationalError means the file cannot be written: read-only file, disk full, I/O
    # error, lock timeout; a constraint violation is a bug in one query.
    _unwritable = (sqlite3.OperationalError,)

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._raw = connection
        self._connection = SqliteConnection(connection)
        self._lock = asyncio.Lock()
        super().__init__()

    @property
    def dialect(self) -> Literal["sqlite"]:
        return "sqlite"

    @classmethod
    async def open(cls, path: Path) -> SqliteDatabase:
        path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: autocommit, so transactions are exactly the ones we BEGIN.
        connection = await aiosqlite.connect(path, isolation_level=None)
        try:
            connection.row_factory = aiosqlite.Row
            await connection.execute("PRAGMA journal_mode=WAL")
            await connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            await connection.execute("PRAGMA foreign_keys=ON")
            # NORMAL is durable across application crashes in WAL mode; only an OS crash
            # can lose the last transactions, never corrupt the file.
            await connection.execute("PRAGMA synchronous=NORMAL")
            # 32 MiB of page cache (the default is 2): a refresh that queues 20k alerts
            # updates four b-trees at once, and re-reading their pages was a fifth of its time.
            await connection.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        except BaseException:
            await connection.close()
            raise
        return cls(connection)

    async def close(self) -> None:
        async with self._lock:
            await self._raw.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteConnection]:
        """Serialised write transaction: committed on success, rolled back on any exception."""
        async with self._lock:
            with self._watching_writes():
                await self._raw.execute("BEGIN IMMEDIATE")
                try:
                    yield self._connection
                    self._check_fault()  # at commit, as a full disk shows itself
                except BaseException:
                    await self._raw.rollback()
                    raise
                await self._raw.commit()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[SqliteConnection]:
        """Serialised access for one autocommit write statement (atomic on its own).

        Saves the BEGIN and COMMIT trips of `transaction()` where a single UPDATE is all.
        """
        async with self._lock:
            with self._watching_writes():
                self._check_fault()
                yield self._connection

    @asynccontextmanager
    async def access(self) -> AsyncIterator[SqliteConnection]:
        """Serialised access without a transaction, for reads.

        Holding the lock means a read never sees another coroutine's uncommitted writes.
        """
        async with self._lock:
            yield self._connection

    async def probe_write(self) -> None:
        """Take the write lock and let go without changing anything: raises if writes fail.

        Catches a read-only file or a held lock; a full disk only shows on a real write, which
        `write_error` reports.
        """
        async with self._lock:
            self._check_fault()
            await self._raw.execute("BEGIN IMMEDIATE")
            await self._raw.rollback()

    async def run_script(self, script: str) -> None:
        """Several statements that manage their own transaction (a migration): on an error,
        whatever the script began is rolled back before the error is raised."""
        async with self._lock:
            try:
                await self._raw.executescript(script)
            except sqlite3.Error:
                if self._raw.in_transaction:
                    await self._raw.rollback()
                raise

    async def pragma(self, name: str) -> object:
        async with self._lock:
            cursor = await self._raw.execute(f"PRAGMA {name}")
            row = await cursor.fetchone()
            return None if row is None else row[0]
