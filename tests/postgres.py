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
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import cache
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
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, probe()).result()
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        return f"{type(error).__name__}: {error}"
    return None


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
async def temporary_database() -> AsyncIterator[str]:
    """Create an empty database with a unique name; yield its URL; drop it afterwards."""
    name = PREFIX + secrets.token_hex(6)
    admin = await asyncpg.connect(ADMIN_URL, timeout=5)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
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
