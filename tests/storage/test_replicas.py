"""What replicas share through PostgreSQL: heartbeats and users' flood state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from monitor.flood import BURST
from storage.flows import SharedFlows
from storage.migrations import migrate
from storage.postgres import PgDatabase
from storage.replicas import STALE_AFTER_S, ReplicaRegistry
from tests.postgres import require_postgres, temporary_database


@pytest.fixture
async def databases() -> AsyncIterator[tuple[PgDatabase, PgDatabase]]:
    """Two replicas' pools on one migrated database."""
    require_postgres()
    async with temporary_database() as url:
        first, second = await PgDatabase.open(url), await PgDatabase.open(url)
        try:
            await migrate(first)
            yield first, second
        finally:
            await first.close()
            await second.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_the_live_count_follows_heartbeats_and_leaving(
    databases: tuple[PgDatabase, PgDatabase],
) -> None:
    clock = Clock()
    one, two = (ReplicaRegistry(db, clock) for db in databases)
    assert await one.beat("bot-1", "leader") == 1
    assert await two.beat("bot-2", "follower") == 2
    assert await one.roles() == {"bot-1": "leader", "bot-2": "follower"}

    clock.now += STALE_AFTER_S + 0.1  # bot-2 was killed -9: no more beats from it
    assert await one.beat("bot-1", "leader") == 1
    assert await two.beat("bot-2", "leader") == 2  # back, and leading now
    await two.leave("bot-2")  # a clean stop is seen at once
    assert await one.beat("bot-1", "follower") == 1


async def test_one_flood_over_two_replicas_is_judged_as_one(
    databases: tuple[PgDatabase, PgDatabase],
) -> None:
    clock = Clock()
    first, second = (SharedFlows(db, clock) for db in databases)
    key = ("Message", 42)
    sent = clock.now  # six messages in one second, on alternate replicas
    verdicts = [await (first, second)[n % 2].judge_flow(key, sent, 1.0) for n in range(6)]
    # The bucket's answers, then one notice for the flood, whichever replica judged it.
    assert verdicts == ["answer"] * int(BURST) + ["notice", "drop", "drop"]
    assert await second.judge_flow(("Message", 43), sent, 1.0) == "answer"  # other users apart
    # A button press has no date: the store's clock times it.
    assert await first.judge_flow(("CallbackQuery", 42), None, 1.0) == "answer"

    clock.now += 60
    assert await second.forget_quiet() == 0
    clock.now += 5 * 60  # all quiet for over FORGET_AFTER_S
    assert await second.forget_quiet() == 3
    assert await first.judge_flow(key, clock.now, 1.0) == "answer"


async def test_simultaneous_updates_of_one_user_get_one_answer(
    databases: tuple[PgDatabase, PgDatabase],
) -> None:
    clock = Clock()
    flows = [SharedFlows(databases[i % 2], clock) for i in range(6)]
    sent = clock.now
    verdicts = await asyncio.gather(*(each.judge_flow(("Message", 7), sent, 1.0) for each in flows))
    # Judged one at a time, whatever the race: the bucket's answers and one notice.
    assert sorted(verdicts) == sorted(["answer"] * int(BURST) + ["notice", "drop", "drop"])
