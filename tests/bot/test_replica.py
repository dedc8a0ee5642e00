"""Replica roles: the leader's duties start on election and stop on deposition."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.replica import Duty, Hook, Replica, Role
from tests.bot.conftest import CHAT, running_app
from tests.bot.ops.test_server import SECRET, get_json, post_update, start_update, webhook_app
from tests.fakes.providers import FakeProviders, all_sites
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually


class FakeElection:
    """Wins and loses when the test says so."""

    def __init__(self) -> None:
        self.elect: Hook | None = None
        self.depose: Hook | None = None
        self.running = asyncio.Event()

    def __call__(self, on_elected: Hook, on_deposed: Hook) -> FakeElection:
        self.elect, self.depose = on_elected, on_deposed
        return self

    async def run(self, stop: asyncio.Event) -> None:
        self.running.set()
        await stop.wait()

    async def win(self) -> None:
        await self.running.wait()
        assert self.elect is not None
        await self.elect()

    async def lose(self) -> None:
        assert self.depose is not None
        await self.depose()


def recording(log: list[str], name: str, *, fail_start: bool = False) -> Duty:
    async def start() -> None:
        if fail_start:
            raise RuntimeError("cannot")
        log.append(f"start {name}")

    async def stop() -> None:
        log.append(f"stop {name}")

    return Duty(name, start, stop)


async def test_alone_it_leads_at_once_and_stops_its_duties_in_reverse() -> None:
    log: list[str] = []
    roles: list[Role] = []
    replica = Replica("r1", [recording(log, "a"), recording(log, "b")], on_role=roles.append)
    stop = asyncio.Event()
    task = asyncio.create_task(replica.run(stop))
    await eventually(lambda: replica.role == "leader")
    assert log == ["start a", "start b"]
    assert not replica.elected
    stop.set()
    await task
    assert log == ["start a", "start b", "stop b", "stop a"]
    assert roles == ["follower", "leader", "follower"]


async def test_duties_follow_the_election() -> None:
    log: list[str] = []
    election = FakeElection()
    replica = Replica("r2", [recording(log, "poll")], election=election)
    stop = asyncio.Event()
    task = asyncio.create_task(replica.run(stop))
    await election.running.wait()
    assert (replica.role, log) == ("follower", [])
    await election.win()
    await election.win()  # a repeated win starts nothing twice
    assert (replica.role, log) == ("leader", ["start poll"])
    await election.lose()
    assert (replica.role, log) == ("follower", ["start poll", "stop poll"])
    await election.win()
    stop.set()
    await task
    assert log == ["start poll", "stop poll", "start poll", "stop poll"]


async def test_a_duty_that_fails_to_start_leaves_the_others_running() -> None:
    log: list[str] = []
    replica = Replica("r3", [recording(log, "bad", fail_start=True), recording(log, "good")])
    stop = asyncio.Event()
    task = asyncio.create_task(replica.run(stop))
    await eventually(lambda: "start good" in log)
    stop.set()
    await task
    assert log == ["start good", "stop good"]


async def test_a_follower_serves_but_neither_polls_nor_refreshes(
    telegram: FakeTelegram, db_path: Path
) -> None:
    election = FakeElection()
    async with (
        FakeProviders(all_sites()) as sites,
        running_app(
            telegram,
            db_path,
            election=election,
            replica_id="bot-2",
            monitor=True,
            **sites.urls(),
        ) as application,
    ):
        assert application.ops is not None
        await election.running.wait()
        _, body = await get_json(application.ops.port, "/healthz")
        assert body["replica"] == {"id": "bot-2", "role": "follower"}
        assert body["scheduler"] == "standby"
        assert "gpuradar_leader 0.0" in application.metrics.render().decode()
        # Still served: a user's update reaches a follower in webhook mode.
        assert await application.store.ping()

        await election.win()
        await telegram.wait_for_call("getUpdates")
        await eventually(lambda: bool(sites["selectel"].requests))  # refreshes at once
        _, body = await get_json(application.ops.port, "/healthz")
        assert body["replica"]["role"] == "leader"
        assert body["scheduler"] == "running"
        assert "gpuradar_leader 1.0" in application.metrics.render().decode()

        await election.lose()
        _, body = await get_json(application.ops.port, "/healthz")
        assert body["scheduler"] == "standby"
        assert body["replica"]["role"] == "follower"
        # Deposition awaited the poller's end: nothing polls or fetches from here on.
        polls = len(telegram.calls_of("getUpdates"))
        fetched = len(sites["selectel"].requests)
        update = telegram.push_message(CHAT, "/help")
        assert len(telegram.calls_of("getUpdates")) == polls
        assert len(sites["selectel"].requests) == fetched

        # The next leader reads what waited in Telegram's queue: nothing was dropped.
        await election.win()
        await telegram.wait_confirmed(update, 10)
        await telegram.wait_for_call("sendMessage")


async def test_a_follower_polls_nothing_before_it_leads(
    telegram: FakeTelegram, db_path: Path
) -> None:
    election = FakeElection()
    async with running_app(telegram, db_path, election=election):
        await election.running.wait()
        assert telegram.calls_of("getUpdates") == []
        assert telegram.calls_of("getMe") == []


async def test_in_webhook_mode_a_follower_answers_updates_but_does_not_refresh(
    telegram: FakeTelegram, db_path: Path
) -> None:
    election = FakeElection()
    async with (
        FakeProviders(all_sites()) as sites,
        webhook_app(
            telegram,
            db_path,
            election=election,
            monitor=True,
            **sites.urls(),
        ) as application,
    ):
        await election.running.wait()
        after = telegram.mark()
        status, _ = await post_update(application, start_update(1), SECRET)
        assert status == 200
        assert (await telegram.wait_for_call("sendMessage", after=after)).ok
        assert application.role == "follower"
        assert not sites["selectel"].requests  # the leader refreshes, not this one
        assert not telegram.calls_of("getUpdates")  # nobody polls in webhook mode

        await election.win()
        await eventually(lambda: bool(sites["selectel"].requests))
        assert not telegram.calls_of("getUpdates")
