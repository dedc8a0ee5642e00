"""One aiosqlite connection for the whole process, with its pragmas and a transaction helper.

SQLite allows one writer at a time, and a single aiosqlite connection cannot hold two
transactions at once: a second coroutine's BEGIN would fail, and one coroutine's COMMIT would
commit the other's statements. So every use of the connection goes through one asyncio lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

BUSY_TIMEOUT_MS = 5000
CACHE_KIB = 32 * 1024

# Called before every write; raising makes that write fail as a read-only or full disk would.
# Tests and the e2e storage-fault checks install one; production never does.
WriteFault = Callable[[], None]


class Database:
    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()
        self.write_fault: WriteFault | None = None
        # The last write's failure while no write has succeeded since (None: writes work).
        # Only OperationalError counts: read-only file, disk full, I/O error, lock timeout;
        # a constraint violation is a bug in one query, not an unwritable database.
        self.write_error: str | None = None

    @classmethod
    async def open(cls, path: Path) -> Database:
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
            await self._connection.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """Serialised write transaction: committed on success, rolled back on any exception."""
        async with self._lock:
            with self._watching_writes():
                await self._connection.execute("BEGIN IMMEDIATE")
                try:
                    yield self._connection
                    self._check_fault()  # at commit, as a full disk shows itself
                except BaseException:
                    await self._connection.rollback()
                    raise
                await self._connection.commit()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[aiosqlite.Connection]:
        """Serialised access for one autocommit write statement (atomic on its own).

        Saves the BEGIN and COMMIT trips of `transaction()` where a single UPDATE is all.
        """
        async with self._lock:
            with self._watching_writes():
                self._check_fault()
                yield self._connection

    async def probe_write(self) -> None:
        """Take the write lock and let go without changing anything: raises if writes fail.

        Catches a read-only file or a held lock; a full disk only shows on a real write, which
        `write_error` reports.
        """
        async with self._lock:
            self._check_fault()
            await self._connection.execute("BEGIN IMMEDIATE")
            await self._connection.rollback()

    def _check_fault(self) -> None:
        if self.write_fault is not None:
            self.write_fault()

    @contextlib.contextmanager
    def _watching_writes(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.OperationalError as error:
            self.write_error = str(error)
            raise
        self.write_error = None

    @asynccontextmanager
    async def access(self) -> AsyncIterator[aiosqlite.Connection]:
        """Serialised access without a transaction: reads, and scripts that manage their own.

        Holding the lock means a read never sees another coroutine's uncommitted writes.
        """
        async with self._lock:
            yield self._connection

    async def run_script(self, script: str) -> None:
        """Several statements that manage their own transaction (a migration): on an error,
        whatever the script began is rolled back before the error is raised."""
        async with self._lock:
            try:
                await self._connection.executescript(script)
            except sqlite3.Error:
                if self._connection.in_transaction:
                    await self._connection.rollback()
                raise

    async def pragma(self, name: str) -> object:
        async with self.access() as connection:
            cursor = await connection.execute(f"PRAGMA {name}")
            row = await cursor.fetchone()
            return None if row is None else row[0]
