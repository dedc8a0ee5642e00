"""Three `python -m bot` replicas on one PostgreSQL, the leader frozen mid fan-out.

A frozen process (SIGSTOP: a GC pause, a swapped-out host, a stalled VM) keeps its TCP
connections, so nothing but a lease can take its role away. 150 users watch the H100, it comes
into stock, and right after the first alert is delivered the leader (and its workers) is
frozen until another replica has taken over (at least three leases), then thawed. Scaled down
from the issue's 90 s at production settings (15 s leases) to 3 s leases:

- while the leader stays frozen, another replica polls getUpdates and refreshes, and a /help
  sent during the freeze is answered. The test waits on these conditions, never on time: a
  successor that only acts once the leader thaws would wait forever, and fails at WITHIN_S.
  How long the takeover took is printed beside any failure; the figures themselves
  (about a lease and one election try) are bench/replicas.py's to report;
- every user gets the alert, duplicates at most GPURADAR_SEND_CONCURRENCY (the frozen
  replica's sends in flight: its other claims ran out and are fenced, bot/delivery/sender.py
  and storage/outbox_claims.py);
- after the thaw, exactly one leader, and the fake Telegram answers no getUpdates with 409.
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

# The rate of tests/e2e/test_replicas.py: the /watch answers take seconds, not tens.
from tests.e2e.test_replicas import SEND_RATE, USERS, the_leader
from tests.e2e.watchers import (
    WATCH,
    alerts,
    answered_help,
    drained,
    selectel_success,
    server_list_fetches,
    watching,
)
from tests.fakes.providers import FakeProviders, FakeSite, all_sites
from tests.fakes.sites.selectel import H100Control
from tests.fakes.telegram import Conflict, FakeTelegram
from tests.polling import eventually
from tests.postgres import require_postgres, temporary_database
from tests.processes import BotProcess, bot_settings

# Real processes, waited on for seconds: scheduled first (tests/conftest.py).
pytestmark = pytest.mark.processes

REPLICAS = ("r1", "r2", "r3")
# GPURADAR_REFRESH_SECONDS (production: 600-900 s): the H100's flip is seen within seconds.
REFRESH_S = 3
IN_FLIGHT = 8  # GPURADAR_SEND_CONCURRENCY: the frozen replica's sends in flight, the bound
LEASE_S = 3.0  # GPURADAR_LEADER_LEASE_S and GPURADAR_CLAIM_LEASE_S (production: 15 s)
ELECTION_INTERVAL_S = 0.5  # a follower tries this often (production: 5 s)
# The least the leader stays frozen: its leader and claim leases both run out.
FREEZE_S = 3 * LEASE_S
WITHIN_S = 120.0


def settings(
    telegram: FakeTelegram, sites: FakeProviders, database: str, name: str
) -> dict[str, str]:
    return bot_settings(
        telegram.base_url,
        database=database,
        sites=sites,
        refresh_s=REFRESH_S,
        GPURADAR_REPLICA_ID=name,
        GPURADAR_SEND_CONCURRENCY=str(IN_FLIGHT),
        GPURADAR_CLAIM_LEASE_S=str(LEASE_S),
        GPURADAR_LEADER_LEASE_S=str(LEASE_S),
        GPURADAR_ELECTION_INTERVAL_S=str(ELECTION_INTERVAL_S),
        GPURADAR_SEND_RATE=SEND_RATE,
    )


async def test_a_leader_frozen_mid_fan_out_is_replaced_and_wakes_harmless(tmp_path: Path):
    require_postgres()
    async with (
        temporary_database() as database,
        FakeProviders(all_sites()) as sites,
        FakeTelegram() as telegram,
    ):
        selectel = sites["selectel"]
        h100 = H100Control(count=0)  # before any replica starts: no refresh sees it in stock
        h100.install(selectel)
        async with AsyncExitStack() as stack:
            bots = []
            for name in REPLICAS:
                folder = tmp_path / name
                bot = BotProcess(folder, settings(telegram, sites, database, name), name=name)
                bots.append(await stack.enter_async_context(bot))
                # Before it is stopped: never leave a frozen process behind a failed assertion.
                stack.callback(bot.thaw)
            counts, conflicts = await scenario(bots, telegram, selectel, h100)
    assert set(counts) == set(USERS)
    duplicates = sum(count - 1 for count in counts.values())
    assert duplicates <= IN_FLIGHT, f"{duplicates} duplicate alerts"
    assert conflicts == [], f"{len(conflicts)} 409s after the thaw"
    for bot in bots:
        bot.assert_clean()


async def scenario(
    bots: list[BotProcess], telegram: FakeTelegram, selectel: FakeSite, h100: H100Control
) -> tuple[Counter[int], list[Conflict]]:
    """Elect, watch, flip, freeze the leader, take over, thaw; the alerts and the 409s after
    the thaw."""
    leader = await the_leader(bots)
    await leader.wait_healthy(lambda body: selectel_success(body) is not None)
    for chat in USERS:
        telegram.push_message(chat, WATCH)
    await telegram.wait_until(lambda: watching(telegram, USERS) or None, timeout=WITHIN_S)

    h100.count = 1
    await telegram.wait_until(lambda: alerts(telegram, USERS) or None, timeout=WITHIN_S)
    leader.freeze()
    frozen_at, frozen_wall = time.monotonic(), time.time()
    mark = telegram.mark()
    assert len(alerts(telegram, USERS)) < len(USERS), "the fan-out ended before the freeze"

    telegram.push_message(USERS[0], "/help")
    await telegram.wait_until(
        lambda: answered_help(telegram, USERS[0], mark) or None, timeout=WITHIN_S
    )
    helped = time.monotonic() - frozen_at

    def polls_since() -> list[float]:
        # Arrival times (time.time()): the frozen process sends no request at all.
        return [call.time for call in telegram.calls_of("getUpdates") if call.time > frozen_wall]

    def fetches_since() -> list[float]:
        return [at for at in server_list_fetches(selectel) if at > frozen_at]

    await eventually(lambda: bool(polls_since()), WITHIN_S, every=0.1)
    await eventually(lambda: bool(fetches_since()), WITHIN_S, every=0.1)
    polled, fetched = polls_since()[0] - frozen_wall, fetches_since()[0] - frozen_at
    # Shown with pytest -s, and in the report of a later failure: which duty came when.
    print(f"takeover: first poll {polled:.1f} s, first fetch {fetched:.1f} s, /help {helped:.1f} s")
    survivors = [bot for bot in bots if bot is not leader]
    successor = await the_leader(survivors)

    await eventually(lambda: time.monotonic() - frozen_at >= FREEZE_S, WITHIN_S, every=0.1)
    leader.thaw()
    thawed = telegram.clock()
    # The thawed replica finds its lease gone and steps down: one leader, the successor.
    assert await the_leader(bots) is successor
    await telegram.wait_until(
        lambda: set(alerts(telegram, USERS)) == set(USERS) or None, timeout=WITHIN_S
    )
    # Every row settled, the frozen replica's ran-out claims included: the count is final.
    await eventually(drained(successor), WITHIN_S, every=0.2)
    # A poll or two on each side of the thaw: a stale getUpdates would have been answered 409.
    after = len(telegram.calls_of("getUpdates"))
    await eventually(lambda: len(telegram.calls_of("getUpdates")) >= after + 2, WITHIN_S, every=0.1)
    return alerts(telegram, USERS), telegram.conflicts_since(thawed)
