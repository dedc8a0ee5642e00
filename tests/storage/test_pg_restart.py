"""The asyncpg pool across a restart and an outage of its server (a private cluster,
tests/private_postgres.py): statements fail fast with an error the callers count as the
database gone, and work again by themselves once the server is back, with no background
reconnect logging tracebacks meanwhile."""

from __future__ import annotations

import asyncio
import logging

import pytest

from storage.postgres import UNWRITABLE_ERRORS, PgDatabase
from storage.sql import scalar
from tests.polling import eventually
from tests.private_postgres import PrivatePostgres

BACK_WITHIN_S = 10.0


async def answers(database: PgDatabase) -> bool:
    try:
        async with asyncio.timeout(2), database.access() as connection:
            return bool(await scalar(connection, "SELECT 1") == 1)
    except UNWRITABLE_ERRORS:
        return False


def failing(database: PgDatabase) -> str | None:
    return database.write_error


async def test_the_pool_survives_a_restart_and_an_outage(caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.WARNING, logger="asyncpg")
    async with PrivatePostgres() as cluster:
        database = await PgDatabase.open(cluster.url, retry_for_s=10)
        try:
            assert await answers(database)

            await asyncio.to_thread(cluster.restart)
            await eventually(lambda: answers(database), BACK_WITHIN_S, every=0.1)

            await asyncio.to_thread(cluster.stop)
            # Refused at once, as an error every caller treats as "the database is gone".
            async with asyncio.timeout(5):
                with pytest.raises(UNWRITABLE_ERRORS):
                    async with database.write() as connection:
                        await connection.execute("SELECT 1")
            assert failing(database) is not None
            assert not await answers(database)

            await asyncio.to_thread(cluster.start)
            await eventually(lambda: answers(database), BACK_WITHIN_S, every=0.1)
            async with database.write() as connection:
                await connection.execute("SELECT 1")
            assert failing(database) is None
        finally:
            await database.close()
    assert not [r for r in caplog.records if r.name.startswith("asyncpg")], "asyncpg logged"
