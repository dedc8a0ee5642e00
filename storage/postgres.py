"""PostgreSQL through an asyncpg pool, behind the same `storage.sql` interface as SQLite.

Unlike the SQLite side there is no process-wide lock: each `transaction()` or `access()` takes
its own pooled connection, and PostgreSQL's row locks (`FOR UPDATE SKIP LOCKED`) and advisory
locks order what several replicas do at once.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Literal
from urllib.parse import urlsplit

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from monitor.redaction import hide_userinfo
from storage.sql import Params, Row, WriteWatch, bind, numbered

logger = logging.getLogger(__name__)

# "UPDATE 3", "DELETE 0", "INSERT 0 1": the last number is the rows changed.
_STATUS_COUNT = re.compile(r"(\d+)$")
_COMMENT = re.compile(r"--[^\n]*")

# Start-up against a server that is not there yet (a compose stack starting together): retry
# with exponential backoff from 0.5 s, at most 8 s apart, for CONNECT_RETRY_S (the app passes
# GPURADAR_STARTUP_RETRY_S) before giving up with one line.
CONNECT_RETRY_S = 15.0
CONNECT_FIRST_DELAY_S = 0.5
CONNECT_MAX_DELAY_S = 8.0
CONNECT_TIMEOUT_S = 5.0

# What says the database cannot take writes now, as opposed to a bug in one statement (a
# constraint violation, bad SQL): the server gone or restarting, a standby or read-only
# database, a full disk or no connection slots left.
UNWRITABLE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,  # the connection was closed under us
    # "cannot switch to state N; another operation is in progress": a statement on a
    # connection the server ended mid-operation (seen on every restart of the server).
    asyncpg.InternalClientError,
    asyncpg.ReadOnlySQLTransactionError,
    asyncpg.InsufficientResourcesError,
    asyncpg.OperatorInterventionError,
)
# Worth another try at start-up: the server is not listening yet, or still starting.
_RETRIABLE_AT_START = (
    OSError,
    TimeoutError,
    asyncpg.CannotConnectNowError,
    asyncpg.TooManyConnectionsError,
)


class DatabaseUnavailableError(Exception):
    """The server could not be reached or refused us; the message never holds the password."""


class DatabaseReadOnlyError(Exception):
    """The server takes no writes (a standby, or default_transaction_read_only)."""


def _affected(status: str) -> int:
    match = _STATUS_COUNT.search(status)
    return int(match.group(1)) if match else 0


class PgConnection:
    def __init__(self, raw: PoolConnectionProxy[asyncpg.Record]) -> None:
        self._raw = raw

    @property
    def dialect(self) -> Literal["postgresql"]:
        return "postgresql"

    async def execute(self, sql: str, params: Params = ()) -> int:
        statement = numbered(sql)
        status: str = await self._raw.execute(statement.sql, *bind(statement, params))
        return _affected(status)

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        statement = numbered(sql)
        await self._raw.executemany(statement.sql, [bind(statement, row) for row in rows])

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        statement = numbered(sql)
        return list(await self._raw.fetch(statement.sql, *bind(statement, params)))

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        statement = numbered(sql)
        row: Row | None = await self._raw.fetchrow(statement.sql, *bind(statement, params))
        return row

    async def script(self, sql: str) -> None:
        """Several statements with no parameters (a migration file)."""
        if not _COMMENT.sub("", sql).strip():
            # Nothing but comments: asyncpg fails on the empty answer such a query gets.
            return
        await self._raw.execute(sql)


class PgDatabase(WriteWatch):
    _unwritable = UNWRITABLE_ERRORS

    def __init__(self, pool: asyncpg.Pool[asyncpg.Record], url: str) -> None:
        self._pool = pool
        self.url = url
        super().__init__()

    @property
    def dialect(self) -> Literal["postgresql"]:
        return "postgresql"

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        max_size: int = 10,
        retry_for_s: float = CONNECT_RETRY_S,
        first_delay_s: float = CONNECT_FIRST_DELAY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> PgDatabase:
        """Connect, retrying an unreachable server with backoff for `retry_for_s` (on `clock`);
        raises DatabaseUnavailableError with one line that never holds the password."""
        started = clock()
        delay = first_delay_s
        tries = 0
        while True:
            tries += 1
            try:
                pool = await _connected_pool(url, max_size)
            except _RETRIABLE_AT_START as error:
                reason = _reason(error, url)
                elapsed = clock() - started
                if elapsed + delay > retry_for_s:
                    raise DatabaseUnavailableError(
                        f"cannot reach PostgreSQL at {hide_userinfo(url)} after {tries} tries"
                        f" in {elapsed:.0f} s: {reason}"
                    ) from None
                logger.warning(
                    "PostgreSQL at %s not reachable (%s); retrying in %.1f s",
                    hide_userinfo(url),
                    reason,
                    delay,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, CONNECT_MAX_DELAY_S)
            except asyncpg.PostgresError as error:
                # Wrong password, unknown database, no permission: retrying will not help.
                raise DatabaseUnavailableError(
                    f"PostgreSQL at {hide_userinfo(url)} refused us: {_reason(error, url)}"
                ) from None
            except (ValueError, asyncpg.InterfaceError) as error:
                # A URL asyncpg cannot use (an unknown sslmode, ...).
                raise DatabaseUnavailableError(
                    f"PostgreSQL URL {hide_userinfo(url)} is not usable: {_reason(error, url)}"
                ) from None
            else:
                return cls(pool, url)

    async def close(self) -> None:
        await self._pool.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PgConnection]:
        """A transaction on a pooled connection: committed on success, else rolled back."""
        with self._watching_writes():
            async with self._pool.acquire() as raw, raw.transaction():
                yield PgConnection(raw)
                self._check_fault()  # at commit, as a full disk shows itself

    @asynccontextmanager
    async def write(self) -> AsyncIterator[PgConnection]:
        """A pooled connection for one write statement, atomic on its own (autocommit)."""
        with self._watching_writes():
            self._check_fault()
            async with self._pool.acquire() as raw:
                yield PgConnection(raw)

    @asynccontextmanager
    async def access(self) -> AsyncIterator[PgConnection]:
        """A pooled connection for reads; each statement commits on its own."""
        async with self._pool.acquire() as raw:
            yield PgConnection(raw)

    async def probe_write(self) -> None:
        """Raises if the server cannot take writes now: unreachable, or read-only (a standby
        after a failover, default_transaction_read_only). A full disk only shows on a real
        write, which `write_error` reports."""
        self._check_fault()
        async with self._pool.acquire() as raw:
            read_only = await raw.fetchval("SELECT current_setting('transaction_read_only')")
        if read_only == "on":
            raise DatabaseReadOnlyError("PostgreSQL is read-only (transaction_read_only is on)")

    def _describe(self, error: BaseException) -> str:
        return _reason(error, self.url)


async def _connected_pool(url: str, max_size: int) -> asyncpg.Pool[asyncpg.Record]:
    """A pool with no connection floor, once one connection to the server works.

    No floor (min_size=0): when the server restarts or goes away, every pooled connection
    dies, and asyncpg (0.32) would then try to restore a floor in the background, logging a
    traceback on each failed try for as long as the server is down. Without one, the next
    acquire connects (a refused connection fails at once, and the caller's next round tries
    again), so a replica reconnects by itself on the server's return. The first acquire here
    keeps start-up's promise: an unreachable server fails `open`, which retries it.
    """
    pool: asyncpg.Pool[asyncpg.Record] = await asyncpg.create_pool(
        url, min_size=0, max_size=max_size, timeout=CONNECT_TIMEOUT_S
    )
    try:
        async with pool.acquire(timeout=CONNECT_TIMEOUT_S) as connection:
            await connection.execute("SELECT 1")
    except BaseException:
        pool.terminate()
        raise
    return pool


def _reason(error: BaseException, url: str) -> str:
    """The error's class and first line. asyncpg's messages name the host, user and database,
    not the password; a message that quotes the URL anyway has the password cut out."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    password = urlsplit(url).password
    if password:
        text = text.replace(password, "***")
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
