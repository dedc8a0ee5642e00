"""The asyncpg side of storage.sql, and the leader election, against a real server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from storage.leader import LeaderElection
from storage.postgres import DatabaseUnavailableError, PgDatabase, redact_url
from tests.polling import eventually
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


async def test_an_unreachable_server_fails_with_one_line_and_no_password():
    url = "postgresql://gpuradar:s3cret-pw@127.0.0.1:1/nowhere"
    with pytest.raises(DatabaseUnavailableError) as raised:
        await PgDatabase.open(url, attempts=2, first_delay_s=0.01)
    message = str(raised.value)
    assert "s3cret-pw" not in message
    assert "after 2 tries" in message
    assert "\n" not in message


def test_redact_url_hides_only_the_password():
    assert redact_url("postgresql://u:p@h:5/db?x=1") == "postgresql://u:***@h:5/db?x=1"
    assert redact_url("postgresql://u@h/db") == "postgresql://u@h/db"


async def test_one_leader_and_a_takeover_when_it_goes(url: str):
    events: list[str] = []

    def election(name: str) -> LeaderElection:
        async def elected() -> None:
            events.append(f"{name} elected")

        async def deposed() -> None:
            events.append(f"{name} deposed")

        return LeaderElection(url, on_elected=elected, on_deposed=deposed, interval_s=0.05)

    first, second = election("a"), election("b")
    stop_first, stop_second = asyncio.Event(), asyncio.Event()
    run_first = asyncio.create_task(first.run(stop_first))
    await eventually(lambda: first.is_leader)
    run_second = asyncio.create_task(second.run(stop_second))
    # Several of b's tries go by while a holds the lock, and b loses each one.
    await eventually(lambda: second.tries >= 3)
    assert first.is_leader
    assert not second.is_leader
    stop_first.set()
    await run_first
    await eventually(lambda: second.is_leader)
    stop_second.set()
    await run_second
    assert events == ["a elected", "a deposed", "b elected", "b deposed"]
