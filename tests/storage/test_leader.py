"""The leader lease (storage.leader) on a real PostgreSQL: one leader per term, a takeover once
a lease runs out, and a leader that wakes from a freeze stepping down before anything else."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage.leader import LeaderElection, LeaderLease
from storage.migrations import migrate
from storage.postgres import PgDatabase
from tests.fakes.helpers import FakeClock
from tests.polling import eventually
from tests.postgres import require_postgres, temporary_database

INTERVAL_S = 0.05
LEASE_S = 0.6


@pytest.fixture
async def url() -> AsyncIterator[str]:
    require_postgres()
    async with temporary_database() as database_url:
        yield database_url


@pytest.fixture
async def databases(url: str) -> AsyncIterator[tuple[PgDatabase, PgDatabase]]:
    """Two replicas' pools on one migrated database."""
    first, second = await PgDatabase.open(url), await PgDatabase.open(url)
    try:
        await migrate(first)
        yield first, second
    finally:
        await first.close()
        await second.close()


def election(
    database: PgDatabase, name: str, events: list[str], lease: LeaderLease | None = None
) -> LeaderElection:
    async def elected() -> None:
        events.append(f"{name} elected")

    async def deposed() -> None:
        events.append(f"{name} deposed")

    return LeaderElection(
        database,
        name,
        on_elected=elected,
        on_deposed=deposed,
        interval_s=INTERVAL_S,
        lease_s=LEASE_S,
        lease=lease,
    )


async def lease_row(database: PgDatabase) -> tuple[str, int]:
    async with database.access() as connection:
        row = await connection.fetchone("SELECT holder, term FROM leader_lease")
    assert row is not None
    return str(row[0]), int(row[1])


async def test_one_leader_and_a_takeover_when_it_stops(
    databases: tuple[PgDatabase, PgDatabase],
) -> None:
    events: list[str] = []
    first, second = election(databases[0], "a", events), election(databases[1], "b", events)
    stop_first, stop_second = asyncio.Event(), asyncio.Event()
    run_first = asyncio.create_task(first.run(stop_first))
    await eventually(lambda: first.is_leader)
    assert first.lease.term == 1
    run_second = asyncio.create_task(second.run(stop_second))
    # Several of b's tries go by while a renews its lease, and b loses each one.
    await eventually(lambda: second.tries >= 3)
    assert first.is_leader
    assert not second.is_leader
    stop_first.set()
    await run_first  # a clean stop ends the lease at once: b need not wait it out
    await eventually(lambda: second.is_leader, LEASE_S)
    assert second.lease.term == 2
    assert await lease_row(databases[0]) == ("b", 2)
    stop_second.set()
    await run_second
    assert events == ["a elected", "a deposed", "b elected", "b deposed"]


async def test_a_leader_that_wakes_past_its_lease_steps_down_and_cannot_renew(
    databases: tuple[PgDatabase, PgDatabase],
) -> None:
    events: list[str] = []
    clock = FakeClock(0.0)  # moved on by hand: what a process sees on waking
    stale = election(databases[0], "a", events, LeaderLease(clock))
    stop_stale = asyncio.Event()
    run_stale = asyncio.create_task(stale.run(stop_stale))
    await eventually(lambda: stale.is_leader)
    assert stale.lease.held()
    # Its lease ends on the database's clock while another replica wins the next term: the
    # row is moved on behind its back, as a follower's take would after the freeze.
    async with databases[1].write() as connection:
        await connection.execute(
            "UPDATE leader_lease SET holder = 'b', term = term + 1,"
            " expires_at = now() + interval '1 minute'"
        )
    # Its next renewal is refused: it steps down at once, not at its own deadline.
    await eventually(lambda: not stale.is_leader, LEASE_S)
    assert events == ["a elected", "a deposed"]
    assert stale.lease.fence() is None
    stop_stale.set()
    await run_stale
    assert await lease_row(databases[0]) == ("b", 2)  # its stop did not end b's lease


async def test_the_local_deadline_ends_leadership_without_the_database(
    databases: tuple[PgDatabase, PgDatabase],
) -> None:
    events: list[str] = []
    clock = FakeClock(0.0)  # moved on by hand: what a process sees on waking
    leader = election(databases[0], "a", events, LeaderLease(clock))
    stop = asyncio.Event()
    running = asyncio.create_task(leader.run(stop))
    await eventually(lambda: leader.is_leader)
    clock.advance(LEASE_S)  # woken from a freeze as long as the lease: nothing may act on it
    assert not leader.lease.held()
    assert leader.lease.fence() is None
    await eventually(lambda: not leader.is_leader, LEASE_S)
    stop.set()
    await running
    assert events[:2] == ["a elected", "a deposed"]


# A replica's election alone in a process of its own, to be stopped with SIGSTOP: it prints
# each change of role with its term.
CHILD = """
import asyncio, sys
from storage.leader import LeaderElection
from storage.postgres import PgDatabase

async def main(url):
    database = await PgDatabase.open(url)
    election = None
    async def elected():
        print("elected", election.lease.term, flush=True)
    async def deposed():
        print("deposed", flush=True)
    election = LeaderElection(
        database, "frozen", on_elected=elected, on_deposed=deposed,
        interval_s=float(sys.argv[2]), lease_s=float(sys.argv[3]),
    )
    await election.run(asyncio.Event())

asyncio.run(main(sys.argv[1]))
"""


async def test_a_frozen_leader_loses_the_lease_and_steps_down_on_waking(
    url: str, databases: tuple[PgDatabase, PgDatabase]
) -> None:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        url,
        str(INTERVAL_S),
        str(LEASE_S),
        stdout=asyncio.subprocess.PIPE,
        cwd=Path(__file__).parents[2],
    )
    assert child.stdout is not None
    try:
        async with asyncio.timeout(30):
            assert (await child.stdout.readline()).split() == [b"elected", b"1"]
        events: list[str] = []
        follower = election(databases[1], "b", events)
        stop = asyncio.Event()
        running = asyncio.create_task(follower.run(stop))
        await eventually(lambda: follower.tries >= 3)
        assert not follower.is_leader  # the child renews its lease

        os.kill(child.pid, signal.SIGSTOP)  # its TCP session stays open; its lease does not
        await eventually(lambda: follower.is_leader, LEASE_S + 10 * INTERVAL_S)
        assert follower.lease.term == 2
        os.kill(child.pid, signal.SIGCONT)
        async with asyncio.timeout(5):
            assert (await child.stdout.readline()).split() == [b"deposed"]
        # The child follows now, trying against b's live lease: one leader, and b's term.
        assert follower.lease.held()
        assert await lease_row(databases[1]) == ("b", 2)
        stop.set()
        await running
    finally:
        if child.returncode is None:
            child.kill()
        await child.wait()
