"""The heartbeat duty: it says at once that the replica is here without holding start-up for
a beat, and the sender starts only once the replicas have had that beat to count each other."""

from __future__ import annotations

import asyncio

from bot.delivery.limiter import Limiter
from bot.jobs import after, heartbeat
from tests.polling import eventually


class Registry:
    """A ReplicaRegistry's beats and leaves, with a live count the test sets."""

    def __init__(self) -> None:
        self.beats: list[str] = []
        self.left: list[str] = []
        self.alive = 1

    async def beat(self, replica_id: str, role: str) -> int:
        self.beats.append(role)
        return self.alive

    async def leave(self, replica_id: str) -> None:
        self.left.append(replica_id)


async def test_start_beats_once_and_returns_and_counted_comes_a_beat_later():
    registry, limiter, counted = Registry(), Limiter(30.0), asyncio.Event()
    registry.alive = 2  # another replica already beats
    duty = heartbeat(
        registry,  # type: ignore[arg-type]  # the two methods the duty calls
        "bot-1",
        lambda: "follower",
        limiter,
        counted,
        interval_s=0.05,
    )
    await duty.start()
    # Start-up went on after one beat; its share already counts the other replica.
    assert registry.beats == ["follower"]
    assert limiter.shared_by == 2
    assert not counted.is_set()
    await eventually(counted.is_set)
    assert len(registry.beats) >= 2
    await duty.stop()
    assert registry.left == ["bot-1"]


async def test_after_runs_once_ready_and_never_when_stopped_first():
    ran: list[str] = []

    async def run(stop: asyncio.Event) -> None:
        ran.append("ran")

    ready, stop = asyncio.Event(), asyncio.Event()
    waiting = asyncio.create_task(after(ready, run)(stop))
    await asyncio.sleep(0)  # one turn: the wrapper is waiting now
    assert ran == []
    ready.set()
    await waiting
    assert ran == ["ran"]

    stopped = asyncio.Event()
    stopped.set()
    await after(asyncio.Event(), run)(stopped)
    assert ran == ["ran"]
