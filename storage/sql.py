"""What every storage query is written against: one connection interface over two backends.

Queries are written once, in the SQL that SQLite and PostgreSQL share (`ON CONFLICT`,
`RETURNING`, CTEs, window functions), with `?` or `:name` placeholders. Where the dialects
really differ, a query asks `connection.dialect`. The PostgreSQL side rewrites the placeholders
to asyncpg's `$1, $2, ...` once per distinct statement.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Literal, Protocol

Dialect = Literal["sqlite", "postgresql"]
Params = Sequence[object] | Mapping[str, object]

# Called before every write; raising makes that write fail as a read-only or full disk would.
# Tests and the e2e storage-fault checks install one; production never does.
WriteFault = Callable[[], None]


class Row(Protocol):
    """aiosqlite.Row and asyncpg.Record both read by position and by column name.

    A value is Any, as both libraries type it: the column's type is the query's to know.
    """

    def __getitem__(self, key: int | str, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...

    def keys(self) -> Iterable[str]: ...


class Connection(Protocol):
    @property
    def dialect(self) -> Dialect: ...

    async def execute(self, sql: str, params: Params = ()) -> int:
        """Run one statement; returns the rows it changed."""

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None: ...

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]: ...

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None: ...


class WriteWatch:
    """What both backends do around a write: run a test's injected fault first, and keep the
    failure of the last write while no write has succeeded since (`Database.write_error`).

    `_unwritable` names the errors that mean the database itself cannot be written, and
    `_describe` says one in a line; anything else (a constraint violation) passes unrecorded.
    """

    _unwritable: tuple[type[BaseException], ...] = ()

    def __init__(self) -> None:
        self.write_fault: WriteFault | None = None
        self._write_error: str | None = None

    @property
    def write_error(self) -> str | None:
        return self._write_error

    def _describe(self, error: BaseException) -> str:
        return str(error)

    def _check_fault(self) -> None:
        if self.write_fault is not None:
            self.write_fault()

    @contextlib.contextmanager
    def _watching_writes(self) -> Iterator[None]:
        try:
            yield
        except self._unwritable as error:
            self._write_error = self._describe(error)
            raise
        self._write_error = None


class Database(Protocol):
    # Raised from before each write and at each commit, while set (tests of storage faults).
    write_fault: WriteFault | None

    @property
    def dialect(self) -> Dialect: ...

    @property
    def write_error(self) -> str | None:
        """Why the last write failed, while no write has succeeded since; None if they work.

        Only failures of the database itself count (unwritable, full, gone), never a
        constraint violation: that is a bug in one query, not an unwritable database."""

    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """A write transaction: committed on success, rolled back on any exception."""

    def write(self) -> AbstractAsyncContextManager[Connection]:
        """A connection for ONE write statement, atomic on its own: no BEGIN/COMMIT trips."""

    def access(self) -> AbstractAsyncContextManager[Connection]:
        """A connection for reads (each statement commits on its own)."""

    async def probe_write(self) -> None:
        """Raise if the database cannot take a write now, changing nothing."""

    async def close(self) -> None: ...


async def scalar(connection: Connection, sql: str, params: Params = ()) -> Any:
    """The first column of the first row, or None when there is no row."""
    row = await connection.fetchone(sql, params)
    return None if row is None else row[0]


# --- what the dialects store differently ---------------------------------------------------

# How finely a column keeps time. SQLite stores ISO 8601 text in UTC at one fixed width per
# column, so that text order is time order; PostgreSQL a timestamptz cut to the same
# precision, so both backends hand back the same values.
Precision = Literal["seconds", "microseconds"]


def moment_value(dialect: Dialect, moment: datetime, precision: Precision = "seconds") -> object:
    """`moment` as a parameter for a time column."""
    utc = moment.astimezone(UTC)
    if precision == "seconds":
        utc = utc.replace(microsecond=0)
    return utc if dialect == "postgresql" else utc.isoformat(timespec=precision)


def moment_of(value: object) -> datetime:
    """A time column's value as an aware datetime in UTC."""
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.fromisoformat(str(value))


def optional_moment(value: object) -> datetime | None:
    return None if value is None else moment_of(value)


# One bound parameter holding a whole list, whatever its length: SQLite reads a JSON array
# with json_each, PostgreSQL takes an array. `IN (?, ?, ...)` would make one statement per
# length (and PostgreSQL refuses an empty `IN ()`).
ListType = Literal["bigint", "text"]


def in_list(dialect: Dialect, placeholder: str = "?", element: ListType = "bigint") -> str:
    """`IN <the list bound at placeholder>`, for after a column."""
    if dialect == "postgresql":
        return f"= ANY(CAST({placeholder} AS {element}[]))"
    return f"IN (SELECT value FROM json_each({placeholder}))"  # noqa: S608 - a placeholder


def not_in_list(dialect: Dialect, placeholder: str = "?", element: ListType = "bigint") -> str:
    """`NOT IN <the list bound at placeholder>` (true for an empty list)."""
    if dialect == "postgresql":
        return f"<> ALL(CAST({placeholder} AS {element}[]))"
    return f"NOT IN (SELECT value FROM json_each({placeholder}))"  # noqa: S608 - a placeholder


def list_value(dialect: Dialect, values: Iterable[int] | Iterable[str]) -> object:
    """The parameter for `in_list` / `not_in_list`."""
    items = list(values)
    return items if dialect == "postgresql" else json.dumps(items)


def greatest(dialect: Dialect, *terms: str) -> str:
    """The larger of the terms: SQLite's scalar max() is PostgreSQL's GREATEST()."""
    function = "GREATEST" if dialect == "postgresql" else "max"
    return f"{function}({', '.join(terms)})"


# --- placeholders --------------------------------------------------------------------------

# Skipped as a whole: quoted strings and identifiers, comments, and `::` casts; a `?` or a
# `:name` anywhere else is a placeholder.
_TOKENS = re.compile(
    r"'(?:[^']|'')*'"  # 'string'
    r'|"(?:[^"]|"")*"'  # "identifier"
    r"|--[^\n]*"  # -- comment
    r"|::"  # cast, not a name
    r"|\?"  # positional
    r"|:([A-Za-z_][A-Za-z0-9_]*)"  # named
)


@dataclass(frozen=True)
class Numbered:
    """A statement with `$n` placeholders, and for named ones the name of each number."""

    sql: str
    names: tuple[str, ...] | None  # None: positional


@lru_cache(maxsize=1024)
def numbered(sql: str) -> Numbered:
    """Rewrite `?` / `:name` placeholders as `$1, $2, ...` (a name used twice keeps its number)."""
    order: dict[str, int] = {}
    positional = 0
    kinds: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        nonlocal positional
        piece = match.group(0)
        if piece == "?":
            kinds.add("?")
            positional += 1
            return f"${positional}"
        name = match.group(1)
        if name is None:
            return piece
        kinds.add(":")
        if name not in order:
            order[name] = len(order) + 1
        return f"${order[name]}"

    rewritten = _TOKENS.sub(replace, sql)
    if len(kinds) > 1:
        raise ValueError("a statement mixes ? and :name placeholders")
    return Numbered(rewritten, tuple(order) if ":" in kinds else None)


def bind(statement: Numbered, params: Params) -> tuple[object, ...]:
    """The arguments in `$n` order."""
    if statement.names is None:
        if isinstance(params, Mapping):
            raise TypeError("positional statement given named parameters")
        return tuple(params)
    if not isinstance(params, Mapping):
        raise TypeError("named statement given positional parameters")
    return tuple(params[name] for name in statement.names)
