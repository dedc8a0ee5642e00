"""A real PostgreSQL for tests: each test gets a database of its own, dropped afterwards.

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
from functools import cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

ADMIN_URL = os.environ.get(
    "GPURADAR_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
PREFIX = "gpuradar_test_"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


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

    name = f"{PREFIX}template_{secrets.token_hex(4)}"

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
    """Drop the templates this session made (tests/conftest.py, at the session's end)."""

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
    message = f"PostgreSQL not reachable at {ADMIN_URL}: {reason}"
    if in_ci():
        pytest.fail(f"{message} (CI=true: PostgreSQL tests must run)", pytrace=False)
    pytest.skip(message)


@asynccontextmanager
async def temporary_database(*, migrated: bool = False) -> AsyncIterator[str]:
    """Create a database with a unique name; yield its URL; drop it afterwards.

    Empty, or `migrated`: a copy of a template that has the bundled schema, migrated once per
    test session (copying it is several times faster than running the migrations).
    """
    name = PREFIX + secrets.token_hex(6)
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
