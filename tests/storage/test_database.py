"""The storage.sql interface on both backends: transactions, constraints, list parameters
and times, as every query module relies on them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from storage import Store
from storage.sql import in_list, list_value, moment_of, moment_value, not_in_list
from tests.storage.conftest import INTEGRITY_ERRORS

T0 = datetime(2026, 11, 29, 12, 0, 5, 123456, tzinfo=UTC)
USER = (
    "INSERT INTO users (chat_id, language, timezone, created_at, last_seen_at)"
    " VALUES (?, ?, 'UTC', ?, ?)"
)


async def test_a_transaction_rolls_back_whole_on_an_error(store: Store):
    at = moment_value(store.dialect, T0)

    async def insert_then_fail() -> None:
        async with store._db.transaction() as connection:
            await connection.execute(USER, (1, "ru", at, at))
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await insert_then_fail()
    assert await store.count_users() == 0


async def test_the_schema_refuses_invalid_rows(store: Store):
    at = moment_value(store.dialect, T0)
    with pytest.raises(INTEGRITY_ERRORS):
        async with store._db.transaction() as connection:
            await connection.execute(USER, (1, "de", at, at))
    assert store.write_error is None  # a bad row is a bug, not an unwritable database


@pytest.mark.parametrize("ids", [[], [2], [1, 3, 99]])
async def test_one_list_parameter_of_any_length(store: Store, ids: list[int]):
    dialect = store.dialect
    at = moment_value(dialect, T0)
    async with store._db.transaction() as connection:
        await connection.executemany(USER, [(chat, "ru", at, at) for chat in (1, 2, 3)])
    async with store._db.access() as connection:
        inside = await connection.fetchall(
            f"SELECT chat_id FROM users WHERE chat_id {in_list(dialect)} ORDER BY 1",  # noqa: S608
            (list_value(dialect, ids),),
        )
        outside = await connection.fetchall(
            f"SELECT chat_id FROM users WHERE chat_id {not_in_list(dialect)} ORDER BY 1",  # noqa: S608
            (list_value(dialect, ids),),
        )
    assert [row[0] for row in inside] == [chat for chat in (1, 2, 3) if chat in ids]
    assert [row[0] for row in outside] == [chat for chat in (1, 2, 3) if chat not in ids]


async def test_times_come_back_as_they_went_in_at_the_columns_precision(store: Store):
    moscow = timezone(timedelta(hours=3))
    async with store._db.transaction() as connection:
        await connection.execute(
            "INSERT INTO chat_snooze (chat_id, until) VALUES (1, ?)",
            (moment_value(store.dialect, T0.astimezone(moscow), "microseconds"),),
        )
        await connection.execute(
            USER, (2, "ru", moment_value(store.dialect, T0), moment_value(store.dialect, T0))
        )
    async with store._db.access() as connection:
        (snooze,) = await connection.fetchall("SELECT until FROM chat_snooze")
        (user,) = await connection.fetchall("SELECT created_at FROM users")
    assert moment_of(snooze[0]) == T0  # microseconds kept, in UTC
    assert moment_of(snooze[0]).utcoffset() == timedelta(0)
    assert moment_of(user[0]) == T0.replace(microsecond=0)  # a seconds column
