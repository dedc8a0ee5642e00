"""A real PostgreSQL for tests: a database of the test's own, or this worker's migrated one.

`temporary_database()` creates a database for one test and drops it afterwards (migration
tests, and tests that change a database's settings or schema). `migrated_database()` lends
the test this pytest worker's migrated database, emptied (TRUNCATE) after the test: creating
and dropping a database per test cost most of a PostgreSQL test's time. Should a test change
that database beyond its rows (a table, a column, a setting), it is dropped after the test and
the next test gets a fresh copy, so no test sees another's leftovers.

Every database is named after the pytest-xdist worker (PYTEST_XDIST_WORKER, "main" without
workers) and a random token: workers, and other checkouts' runs on the same server, never
share one.

The server is the one this project's machines run at 127.0.0.1:5432 with trust auth
(GPURADAR_TEST_POSTGRES_URL points elsewhere). Where it is unreachable the PostgreSQL tests
skip, with one line in the report header; in CI (CI=true) they fail instead, because a CI run
that skipped half the storage suite proves nothing about that half.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from tests.ci import skip_or_fail

ADMIN_URL = os.environ.get(
    "GPURADAR_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
PREFIX = "gpuradar_test_"
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")


def new_name(kind: str) -> str:
    """A database name no other test, worker or concurrent run uses."""
    return f"{PREFIX}{WORKER}_{kind}_{secrets.token_hex(4)}"


def url_for(database: str) -> str:
    return urlunsplit(urlsplit(ADMIN_URL)._replace(path=f"/{database}"))


@cache
def unreachable_reason() -> str | None:
    """Why no server answers (None when one does); asked once per test session.

    The probe runs its own event loop in a thread: the first caller may be inside a test's loop.
    """

    async def probe() -> None:
        connection = await asyncpg.connect(ADMIN_URL, timeout=3)
        await connection.close()

    try:
        _in_a_thread(probe)
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        return f"{type(error).__name__}: {error}"
    return None


def _in_a_thread(work: Callable[[], Coroutine[Any, Any, None]]) -> None:
    # Its own event loop in a thread: the caller may be inside a test's loop, and a loop's
    # connections cannot outlive it.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(lambda: asyncio.run(work())).result()


@cache
def migrated_template() -> str:
    """The name of this session's template database with the bundled schema (made once)."""
    from storage.migrations import migrate
    from storage.postgres import PgDatabase

    name = new_name("template")

    async def build() -> None:
        admin = await asyncpg.connect(ADMIN_URL, timeout=5)
        try:
            await admin.execute(f'CREATE DATABASE "{name}"')
        finally:
            await admin.close()
        database = await PgDatabase.open(url_for(name), max_size=1)
        try:
            await migrate(database)
        finally:
            await database.close()  # a template must have no sessions when it is copied

    _templates.append(name)
    try:
        _in_a_thread(build)
    except BaseException:
        drop_templates()
        raise
    return name


_templates: list[str] = []


def drop_templates() -> None:
    """Drop the template and the worker's database this session made (tests/conftest.py, at
    the session's end)."""

    async def drop() -> None:
        admin = await asyncpg.connect(ADMIN_URL, timeout=5)
        try:
            while _templates:
                name = _templates.pop()
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()

    if _templates:
        _in_a_thread(drop)


def require_postgres() -> None:
    """Skip (or in CI fail) the calling test when there is no server."""
    reason = unreachable_reason()
    if reason is None:
        return
    skip_or_fail(f"PostgreSQL not reachable at {ADMIN_URL}: {reason}", "PostgreSQL tests must run")


@asynccontextmanager
async def temporary_database(*, migrated: bool = False) -> AsyncIterator[str]:
    """Create a database with a unique name; yield its URL; drop it afterwards.

    Empty, or `migrated`: a copy of a template that has the bundled schema, migrated once per
    test session (copying it is several times faster than running the migrations).
    """
    name = new_name("db")
    template = f' TEMPLATE "{migrated_template()}"' if migrated else ""
    admin = await asyncpg.connect(ADMIN_URL, timeout=5)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"{template}')
    finally:
        await admin.close()
    try:
        yield url_for(name)
    finally:
        admin = await asyncpg.connect(ADMIN_URL, timeout=5)
        try:
            # FORCE: a killed replica's session may still be open on it.
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


# --- this worker's migrated database -------------------------------------------------------

# Everything about a database but its rows: its tables, columns, constraints, indexes,
# triggers, functions, schemas, its settings (ALTER DATABASE ... SET) and the migrations it
# records. Equal before and after a test: TRUNCATE makes it as good as a fresh copy.
_SHAPE = """
SELECT md5(concat_ws('|',
  (SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace
   WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'),
  (SELECT string_agg(format('%s.%s:%s', n.nspname, c.relname, c.relkind), ','
                     ORDER BY n.nspname, c.relname)
   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'),
  (SELECT string_agg(format('%s.%s:%s:%s:%s', a.attrelid::regclass, a.attname,
                            format_type(a.atttypid, a.atttypmod), a.attnotnull,
                            pg_get_expr(d.adbin, d.adrelid)), ','
                     ORDER BY a.attrelid::regclass::text, a.attnum)
   FROM pg_attribute a
   JOIN pg_class c ON c.oid = a.attrelid
   JOIN pg_namespace n ON n.oid = c.relnamespace
   LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE a.attnum > 0 AND NOT a.attisdropped
     AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'),
  (SELECT string_agg(format('%s:%s', conrelid::regclass, pg_get_constraintdef(oid)), ','
                     ORDER BY conrelid::regclass::text, conname)
   FROM pg_constraint WHERE connamespace = 'public'::regnamespace),
  (SELECT string_agg(indexdef, ',' ORDER BY indexdef) FROM pg_indexes
   WHERE schemaname NOT LIKE 'pg\\_%' AND schemaname <> 'information_schema'),
  (SELECT string_agg(format('%s:%s:%s', tgrelid::regclass, tgname, tgenabled), ','
                     ORDER BY tgrelid::regclass::text, tgname)
   FROM pg_trigger WHERE NOT tgisinternal),
  (SELECT string_agg(md5(pg_get_functiondef(p.oid)), ',' ORDER BY p.proname, p.oid)
   FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
     AND p.prokind IN ('f', 'p')),
  (SELECT string_agg(array_to_string(setconfig, ','), ';') FROM pg_db_role_setting
   WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())),
  (SELECT string_agg(format('%s:%s', version, name), ',' ORDER BY version)
   FROM schema_migrations)
))
"""
# The tables a test writes rows to: every table but the migrations' own record.
_TABLES = """
SELECT format('%I.%I', schemaname, tablename) FROM pg_tables
WHERE schemaname NOT LIKE 'pg\\_%' AND schemaname <> 'information_schema'
  AND tablename <> 'schema_migrations'
"""
# A session a test left open (a killed replica's pool) may hold a lock TRUNCATE waits for.
_OTHERS = """
SELECT pg_terminate_backend(pid) FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid()
"""
_EMPTYING_TIMEOUT = "5s"


@dataclass
class _Lent:
    name: str
    shape: str
    tables: list[str]


_lent: _Lent | None = None


@asynccontextmanager
async def migrated_database() -> AsyncIterator[str]:
    """The URL of this worker's migrated database, with no rows; emptied after the test.

    One test at a time uses it (a pytest worker runs one test at a time). Where the test
    changed it beyond its rows, or emptying it fails, it is dropped: the next test gets a
    fresh copy of the migrated template.
    """
    global _lent
    if _lent is None:
        _lent = await _lend_new()
    lent = _lent
    _lent = None  # not lent again unless emptied below
    try:
        yield url_for(lent.name)
    finally:
        if await _emptied(lent):
            _lent = lent
        else:
            await _drop(lent.name)


async def _lend_new() -> _Lent:
    name = new_name("shared")
    admin = await asyncpg.connect(ADMIN_URL, timeout=5)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{migrated_template()}"')
    finally:
        await admin.close()
    _templates.append(name)  # dropped at the session's end with the template
    connection = await asyncpg.connect(url_for(name), timeout=5)
    try:
        tables = [row[0] for row in await connection.fetch(_TABLES)]
        for table in tables:
            # The emptying below would lose rows the migrations themselves wrote.
            exists = f"SELECT EXISTS (SELECT FROM {table})"  # noqa: S608 - quoted by %I
            if await connection.fetchval(exists):
                raise AssertionError(f"the migrated template has rows in {table}")
        shape = await connection.fetchval(_SHAPE)
    finally:
        await connection.close()
    return _Lent(name, shape, tables)


async def _emptied(lent: _Lent) -> bool:
    """Truncate every table; False where the database is no longer as migrated."""
    try:
        connection = await asyncpg.connect(url_for(lent.name), timeout=5)
    except (OSError, TimeoutError, asyncpg.PostgresError):
        return False
    try:
        await connection.execute(_OTHERS)
        if await connection.fetchval(_SHAPE) != lent.shape:
            return False
        await connection.execute(f"SET lock_timeout = '{_EMPTYING_TIMEOUT}'")
        await connection.execute(f"TRUNCATE {', '.join(lent.tables)} RESTART IDENTITY CASCADE")
    except (OSError, TimeoutError, asyncpg.PostgresError):
        return False
    finally:
        await connection.close()
    return True


async def _drop(name: str) -> None:
    admin = await asyncpg.connect(ADMIN_URL, timeout=5)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()
    if name in _templates:
        _templates.remove(name)
