"""PostgreSQL through an asyncpg pool, behind the same `storage.sql` interface as SQLite.

Unlike the SQLite side there is no process-wide lock: each `transaction()` or `access()` takes
its own pooled connection, and PostgreSQL's row locks (`FOR UPDATE SKIP LOCKED`) and advisory
locks order what several replicas do at once.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from storage.sql import Params, Row, bind, numbered

logger = logging.getLogger(__name__)

# "UPDATE 3", "DELETE 0", "INSERT 0 1": the last number is the rows changed.
_STATUS_COUNT = re.compile(r"(\d+)$")
_COMMENT = re.compile(r"--[^\n]*")

# Start-up against a server that is not there yet (a compose stack starting together): try for
# about this long with exponential backoff before giving up with one line.
CONNECT_ATTEMPTS = 6
CONNECT_FIRST_DELAY_S = 0.5
CONNECT_TIMEOUT_S = 5.0


class DatabaseUnavailableError(Exception):
    """The server could not be reached or refused us; the message never holds the password."""


def redact_url(url: str) -> str:
    """The URL with its password replaced, for log lines and error messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{parts.username or ''}:***@{host}"
    if parts.port is not None:
        netloc += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


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


class PgDatabase:
    def __init__(self, pool: asyncpg.Pool[asyncpg.Record], url: str) -> None:
        self._pool = pool
        self.url = url

    @property
    def dialect(self) -> Literal["postgresql"]:
        return "postgresql"

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        max_size: int = 10,
        attempts: int = CONNECT_ATTEMPTS,
        first_delay_s: float = CONNECT_FIRST_DELAY_S,
    ) -> PgDatabase:
        """Connect, retrying an unreachable server with backoff; raises DatabaseUnavailableError."""
        delay = first_delay_s
        for attempt in range(1, attempts + 1):
            try:
                pool = await asyncpg.create_pool(
                    url, min_size=1, max_size=max_size, timeout=CONNECT_TIMEOUT_S
                )
            except (OSError, TimeoutError, asyncpg.CannotConnectNowError) as error:
                reason = _reason(error)
                if attempt == attempts:
                    raise DatabaseUnavailableError(
                        f"cannot reach PostgreSQL at {redact_url(url)} after {attempts} tries:"
                        f" {reason}"
                    ) from None
                logger.warning(
                    "PostgreSQL at %s not reachable (%s); retrying in %.1f s",
                    redact_url(url),
                    reason,
                    delay,
                )
                await asyncio.sleep(delay)
                delay *= 2
            except asyncpg.PostgresError as error:
                # Wrong password, unknown database, no permission: retrying will not help.
                raise DatabaseUnavailableError(
                    f"PostgreSQL at {redact_url(url)} refused us: {_reason(error)}"
                ) from None
            else:
                return cls(pool, url)
        raise AssertionError("unreachable")  # pragma: no cover

    async def close(self) -> None:
        await self._pool.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PgConnection]:
        async with self._pool.acquire() as raw, raw.transaction():
            yield PgConnection(raw)

    @asynccontextmanager
    async def access(self) -> AsyncIterator[PgConnection]:
        async with self._pool.acquire() as raw:
            yield PgConnection(raw)


def _reason(error: BaseException) -> str:
    # asyncpg's messages name the host, user and database, never the password; the class name
    # says what kind of failure it was when the message is empty.
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
