"""The asyncpg side of storage.sql against a real server (the election: test_leader.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from unittest.mock import patch

import asyncpg
import pytest

from storage.postgres import (
    DatabaseReadOnlyError,
    DatabaseUnavailableError,
    PgDatabase,
)
from tests.postgres import require_postgres, temporary_database


@pytest.fixture
async def url() -> AsyncIterator[str]:
    require_postgres()
    async with temporary_database() as database_url:
        yield database_url


@pytest.fixture
async def database(url: str) -> AsyncIterator[PgDatabase]:
    opened = await PgDatabase.open(url)
    yield opened
    await opened.close()


async def test_statements_run_with_either_placeholder_style(database: PgDatabase):
    async with database.transaction() as connection:
        await connection.execute("CREATE TABLE t (id bigint PRIMARY KEY, name text)")
        await connection.executemany("INSERT INTO t VALUES (?, ?)", [(1, "a"), (2, "b")])
    async with database.access() as connection:
        changed = await connection.execute(
            "UPDATE t SET name = :n WHERE id >= :id", {"n": "z", "id": 2}
        )
        rows = await connection.fetchall("SELECT id, name FROM t ORDER BY id")
        missing = await connection.fetchone("SELECT id FROM t WHERE id = ?", (9,))
    assert changed == 1
    assert [(row["id"], row[1]) for row in rows] == [(1, "a"), (2, "z")]
    assert missing is None


async def test_a_failed_transaction_leaves_nothing(database: PgDatabase):
    async with database.transaction() as connection:
        await connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")

    async def insert_then_fail() -> None:
        async with database.transaction() as connection:
            await connection.execute("INSERT INTO t VALUES (?)", (1,))
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await insert_then_fail()
    async with database.access() as connection:
        assert await connection.fetchall("SELECT * FROM t") == []


async def test_an_unreachable_server_is_retried_then_fails_with_one_line_and_no_password(
    caplog: pytest.LogCaptureFixture,
):
    url = "postgresql://gpuradar:s3cret-pw@127.0.0.1:1/nowhere"
    # The budget runs on a clock that moves only by the delays slept, so a slow first attempt
    # on a busy machine cannot use it up before any retry.
    slept: list[float] = []
    real_sleep = asyncio.sleep

    def clock() -> float:
        return sum(slept)

    async def counted_sleep(delay: float) -> None:
        slept.append(delay)
        await real_sleep(0)

    with pytest.raises(DatabaseUnavailableError) as raised, patch("asyncio.sleep", counted_sleep):
        await PgDatabase.open(url, retry_for_s=0.05, first_delay_s=0.01, clock=clock)
    message = str(raised.value)
    retries = [record.getMessage() for record in caplog.records]
    assert retries  # delays of 0.01 s and more fit in the budget before it gives up
    assert all("not reachable" in line and "s3cret-pw" not in line for line in retries)
    assert f"after {len(retries) + 1} tries" in message
    assert "s3cret-pw" not in message
    assert "\n" not in message


async def test_a_refusal_is_not_retried(url: str):
    wrong = url.rsplit("/", 1)[0] + "/no_such_database_here"
    with pytest.raises(DatabaseUnavailableError, match="refused us: InvalidCatalogNameError"):
        await PgDatabase.open(wrong, retry_for_s=60)


def write_error(database: PgDatabase) -> str | None:
    return database.write_error  # read anew each time (mypy would keep a narrowed value)


async def test_write_failures_of_the_database_are_reported_until_a_write_succeeds(
    database: PgDatabase,
):
    async with database.transaction() as connection:
        await connection.execute("CREATE TABLE t (id bigint PRIMARY KEY)")

    def server_gone() -> None:
        raise ConnectionResetError("connection reset by peer")

    database.write_fault = server_gone
    with pytest.raises(ConnectionResetError):
        async with database.transaction() as connection:
            await connection.execute("INSERT INTO t VALUES (1)")
    assert write_error(database) == "ConnectionResetError: connection reset by peer"
    with pytest.raises(ConnectionResetError):
        await database.probe_write()
    database.write_fault = None
    async with database.access() as connection:
        assert await connection.fetchall("SELECT * FROM t") == []  # rolled back
    await database.probe_write()  # proves nothing about a full disk: the error stays
    assert write_error(database) == "ConnectionResetError: connection reset by peer"
    async with database.write() as connection:
        assert await connection.execute("INSERT INTO t VALUES (1)") == 1
    assert write_error(database) is None
    # A constraint violation is a bug in one statement, not an unwritable database.
    with pytest.raises(asyncpg.UniqueViolationError):
        async with database.write() as connection:
            await connection.execute("INSERT INTO t VALUES (1)")
    assert write_error(database) is None


async def test_a_read_only_database_fails_the_probe_and_its_writes(url: str):
    name = url.rsplit("/", 1)[1]
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    finally:
        await admin.close()
    database = await PgDatabase.open(url)
    try:
        with pytest.raises(DatabaseReadOnlyError):
            await database.probe_write()
        with pytest.raises(asyncpg.ReadOnlySQLTransactionError):
            async with database.transaction() as connection:
                await connection.execute("CREATE TABLE t (id bigint)")
        assert database.write_error is not None
        assert "read-only" in database.write_error
    finally:
        await database.close()
