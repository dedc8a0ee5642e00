"""SQLite behind the `storage.sql` interface: one writing connection and a few reading ones.

SQLite allows one writer at a time, and a single aiosqlite connection cannot hold two
transactions at once: a second coroutine's BEGIN would fail, and one coroutine's COMMIT would
commit the other's statements. So every write goes through one connection behind one asyncio
lock. Reads go to a small pool of read-only connections: in WAL mode a reader sees the last
committed state and neither waits for the writer nor holds it up, so a long history read no
longer stalls every other command's writes (and the health check's write probe).
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
# Reads that can run at once: a few slow ones (a chart's history, the open data) still leave a
# connection free for a command's quick reads. Each is one aiosqlite thread.
READ_CONNECTIONS = 4


class SqliteConnection:
    """One connection, as `storage.sql.Connection`: `?` and `:name` are SQLite's own."""

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
        try:
            row: Row | None = await cursor.fetchone()
        finally:
            # A statement left unfinished keeps its read transaction open: a reading
            # connection's next query would still see the state from before later commits.
            await cursor.close()
        return row


class SqliteDatabase(WriteWatch):
    # Only OperationalError means the file cannot be written: read-only file, disk full, I/O
    # error, lock timeout; a constraint violation is a bug in one query.
    _unwritable = (sqlite3.OperationalError,)

    def __init__(
        self, connection: aiosqlite.Connection, readers: Sequence[aiosqlite.Connection] = ()
    ) -> None:
        self._raw = connection
        self._connection = SqliteConnection(connection)
        self._lock = asyncio.Lock()
        # Free reading connections; none (no WAL: an in-memory database) means reads share
        # the writer's connection and lock, as a reader would otherwise block commits.
        self._readers: asyncio.Queue[SqliteConnection] | None = None
        self._raw_readers = list(readers)
        if readers:
            self._readers = asyncio.Queue()
            for reader in readers:
                self._readers.put_nowait(SqliteConnection(reader))
        super().__init__()

    @property
    def dialect(self) -> Literal["sqlite"]:
        return "sqlite"

    @classmethod
    async def open(cls, path: Path, readers: int = READ_CONNECTIONS) -> SqliteDatabase:
        path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: autocommit, so transactions are exactly the ones we BEGIN.
        connection = await aiosqlite.connect(path, isolation_level=None)
        opened: list[aiosqlite.Connection] = []
        try:
            connection.row_factory = aiosqlite.Row
            cursor = await connection.execute("PRAGMA journal_mode=WAL")
            mode = await cursor.fetchone()
            await cursor.close()
            await connection.execute("PRAGMA foreign_keys=ON")
            # NORMAL is durable across application crashes in WAL mode; only an OS crash
            # can lose the last transactions, never corrupt the file.
            await connection.execute("PRAGMA synchronous=NORMAL")
            await _tune(connection)
            if mode is not None and mode[0] == "wal":
                for _ in range(readers):
                    opened.append(await _open_reader(path))
        except BaseException:
            for reader in opened:
                await reader.close()
            await connection.close()
            raise
        return cls(connection, opened)

    async def close(self) -> None:
        if self._readers is not None:
            for _ in self._raw_readers:  # waits for the reads under way
                await self._readers.get()
            for reader in self._raw_readers:
                await reader.close()
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
        """A read-only connection of its own, for reads: each statement sees what was
        committed when it began, never another coroutine's transaction half done.

        Reads inside one's own transaction go through that transaction's connection.
        """
        if self._readers is None:
            async with self._lock:
                yield self._connection
            return
        reader = await self._readers.get()
        try:
            yield reader
        finally:
            self._readers.put_nowait(reader)

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


async def _tune(connection: aiosqlite.Connection) -> None:
    """What every connection, writing or reading, sets for itself."""
    await connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    # 32 MiB of page cache (the default is 2): a refresh that queues 20k alerts updates four
    # b-trees at once, and re-reading their pages was a fifth of its time; a history read
    # walks as many.
    await connection.execute(f"PRAGMA cache_size=-{CACHE_KIB}")


def _read_only_uri(path: Path) -> str:
    # as_uri quotes what a URI cannot hold as is (`?`, `#`, `%` in a folder's name).
    return f"{path.absolute().as_uri()}?mode=ro"


async def _open_reader(path: Path) -> aiosqlite.Connection:
    """A read-only connection to the file the writer has open in WAL mode."""
    reader = await aiosqlite.connect(_read_only_uri(path), uri=True, isolation_level=None)
    try:
        reader.row_factory = aiosqlite.Row
        await _tune(reader)
    except BaseException:
        await reader.close()
        raise
    return reader
