"""One leader among the replicas that share a PostgreSQL database: a lease row, not a lock.

The leader renews the one row of `leader_lease` (schema/0016) every `interval_s`, with its
replica id and its term, each renewal pushing `expires_at` to the database's now() plus
`lease_s`. A follower tries every `interval_s` to take the row, which succeeds only once
`expires_at` has passed on the database's clock, and then with the term one higher. Both are
one statement each (a compare-and-set on the row), so two replicas never win the same term.

A held connection is not leadership: a frozen process (SIGSTOP, a GC pause, a stalled VM)
keeps its TCP session, and an advisory lock on it held for as long as it stayed frozen. A
lease runs out whatever the process does, and a follower takes over within `lease_s` plus
one `interval_s`.

The leader knows its lease only up to a local deadline: the monotonic time at which its last
good renewal was sent, plus `lease_s`. That deadline comes no later than the row's own end
(the statement ran after it was sent), and the monotonic clock runs on while a process is
stopped, so a leader that wakes from a freeze finds its deadline passed before it does
anything: `LeaderLease.held()` says so to every duty step (bot.replica), and the loop here
steps down. A renewal the database refuses (another replica took the row) steps down at once.

What the leader writes that must not come from a stale leader is fenced by the term in the
statement itself (storage.refresh): a frozen leader's commit, started before the takeover,
finds the row's term moved on and is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from storage.sql import Database

logger = logging.getLogger(__name__)

# Advisory lock keys are one bigint namespace per database; these are ours. The outbox's
# claims lock chats by their chat ids (storage.outbox_claims), far below these (Telegram's ids fit
# in 52 bits). The leader no longer holds a lock (the lease row replaced it); its key stays
# reserved so that an old replica still running during a rolling upgrade never collides.
LEADER_LOCK_KEY = 0x67707261_6461_7201  # "gpuradar" leader (before schema/0016)
MIGRATION_LOCK_KEY = 0x67707261_6461_7202  # "gpuradar" migrations
# Taken by the subscription triggers of schema/0008_delivery.postgresql.sql (a number there):
# changes commit in the order of their numbers.
SUBSCRIPTION_CHANGES_LOCK_KEY = 0x67707261_6461_7203

# The leader renews this often and a follower tries this often.
ELECTION_INTERVAL_S = 5.0
# A lease not renewed for this long is another replica's to take: three renewals may miss.
LEADER_LEASE_S = 15.0
STATEMENT_TIMEOUT_S = 3.0

Hook = Callable[[], Awaitable[None]]
Clock = Callable[[], float]

# Take the row if it is free (no row yet, or its lease ended on the database's clock): the
# term goes one up. Refused (no row returned) while another replica's lease runs.
_TAKE = (
    "INSERT INTO leader_lease (singleton, holder, term, expires_at)"
    " VALUES (true, ?, 1, now() + make_interval(secs => ?))"
    " ON CONFLICT (singleton) DO UPDATE SET holder = excluded.holder,"
    " term = leader_lease.term + 1, expires_at = excluded.expires_at"
    " WHERE leader_lease.expires_at <= now()"
    " RETURNING term"
)
# Renew our own lease while it runs: same holder, same term, not yet ended.
_RENEW = (
    "UPDATE leader_lease SET expires_at = now() + make_interval(secs => ?)"
    " WHERE holder = ? AND term = ? AND expires_at > now() RETURNING term"
)
# A clean stop hands the lease over at once instead of leaving it to run out.
_RESIGN = "UPDATE leader_lease SET expires_at = now() WHERE holder = ? AND term = ?"


@dataclass
class LeaderLease:
    """What this replica knows of its own lease: the term it won and until when (local
    monotonic seconds) it may act on it. Shared with the duties, which ask `held()` before
    each step, and with the store's refresh commits, which carry `term`."""

    clock: Clock = time.monotonic
    term: int | None = None
    valid_until: float = 0.0

    def held(self) -> bool:
        return self.term is not None and self.clock() < self.valid_until

    def fence(self) -> int | None:
        """The term to write under, or None when this replica may not write as the leader."""
        return self.term if self.held() else None

    def lose(self) -> None:
        self.term = None
        self.valid_until = 0.0


class LeaderElection:
    """Runs until `stop` is set; calls `on_elected` on winning and `on_deposed` on losing."""

    def __init__(
        self,
        database: Database,
        replica_id: str,
        *,
        on_elected: Hook,
        on_deposed: Hook,
        interval_s: float = ELECTION_INTERVAL_S,
        lease_s: float = LEADER_LEASE_S,
        lease: LeaderLease | None = None,
    ) -> None:
        if lease_s <= interval_s:
            raise ValueError("the leader lease must outlast the renewal interval")
        self._db = database
        self._replica_id = replica_id
        self._on_elected = on_elected
        self._on_deposed = on_deposed
        self._interval_s = interval_s
        self._lease_s = lease_s
        self.lease = lease or LeaderLease()
        self.is_leader = False
        self._last_term: int | None = None
        self.tries = 0  # attempts to win, for tests and logs

    async def run(self, stop: asyncio.Event) -> None:
        try:
            while not stop.is_set():
                if self.is_leader:
                    await self._renew()
                else:
                    await self._try_to_win()
                await self._wait(stop)
        finally:
            if self.is_leader:
                await self._step_down("stopping")
                if self._last_term is not None:
                    await self._resign()

    async def _wait(self, stop: asyncio.Event) -> None:
        delay = self._interval_s
        if self.is_leader:
            # Wake at the local deadline at the latest, to step down if no renewal got through.
            delay = max(0.0, min(delay, self.lease.valid_until - self.lease.clock()))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)

    async def _try_to_win(self) -> None:
        self.tries += 1
        sent_at = self.lease.clock()
        answered, term = await self._statement(_TAKE, (self._replica_id, self._lease_s))
        if not answered or term is None:
            return
        self.lease.term, self.lease.valid_until = term, sent_at + self._lease_s
        if not self.lease.held():  # the statement took the whole lease: let it run out
            self.lease.lose()
            return
        self.is_leader = True
        logger.info("elected leader, term %s", term)
        await self._on_elected()

    async def _renew(self) -> None:
        if not self.lease.held():
            # Frozen or cut off past the deadline: another replica may lead already.
            await self._step_down("the lease ran out before it was renewed")
            return
        sent_at = self.lease.clock()
        answered, term = await self._statement(
            _RENEW, (self._lease_s, self._replica_id, self.lease.term)
        )
        if answered and term is None:
            await self._step_down("another replica holds the lease")
        elif answered:
            self.lease.valid_until = sent_at + self._lease_s
        elif not self.lease.held():
            await self._step_down("the lease ran out while the database did not answer")

    async def _statement(self, sql: str, params: tuple[object, ...]) -> tuple[bool, int | None]:
        """(whether the database answered, the term its row says: None for no row)."""
        try:
            async with asyncio.timeout(STATEMENT_TIMEOUT_S), self._db.write() as connection:
                row = await connection.fetchone(sql, params)
        except Exception as error:  # the next round tries again; the local deadline decides
            logger.warning("leader lease: %s: %s", type(error).__name__, error)
            return False, None
        return True, None if row is None else int(row[0])

    async def _step_down(self, why: str) -> None:
        self.is_leader = False
        self._last_term = self.lease.term
        self.lease.lose()
        logger.warning("no longer the leader: %s", why)
        await self._on_deposed()

    async def _resign(self) -> None:
        # Best effort: if it fails, the lease runs out on its own.
        with contextlib.suppress(Exception):
            async with asyncio.timeout(STATEMENT_TIMEOUT_S), self._db.write() as connection:
                await connection.execute(_RESIGN, (self._replica_id, self._last_term))
