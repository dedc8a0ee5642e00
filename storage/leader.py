"""One leader among the replicas that share a PostgreSQL database.

The leader holds a session-level advisory lock on a connection of its own, outside the pool.
PostgreSQL releases the lock when that session ends, so a leader killed with -9 (or cut off by
the network) frees it as soon as the server notices the connection is gone; a follower tries
for it every few seconds and takes over.

A leader checks its connection at the same interval. Two replicas can both believe they lead
for at most that long after a network split (the old one has not yet noticed that its session
is gone); what they do then is safe twice: a second poller gets Telegram's 409 and backs off,
and a second refresh writes the same outbox rows, which the unique dedupe key turns into
no-ops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import asyncpg

from storage.postgres import redact_url

logger = logging.getLogger(__name__)

# Advisory lock keys are one bigint namespace per database; these are ours. The outbox's
# claims lock chats by their chat ids (storage.outbox_claims), far below these (Telegram's ids fit
# in 52 bits).
LEADER_LOCK_KEY = 0x67707261_6461_7201  # "gpuradar" leader
MIGRATION_LOCK_KEY = 0x67707261_6461_7202  # "gpuradar" migrations
# Taken by the subscription triggers of schema/0008_delivery.postgresql.sql (a number there):
# changes commit in the order of their numbers.
SUBSCRIPTION_CHANGES_LOCK_KEY = 0x67707261_6461_7203

# Followers try this often; 5 s keeps a takeover well inside 30 s with one missed try.
ELECTION_INTERVAL_S = 5.0
CHECK_TIMEOUT_S = 3.0
KEEPALIVES = (
    "SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3"
)

Hook = Callable[[], Awaitable[None]]


class LeaderElection:
    """Runs until `stop` is set; calls `on_elected` on winning and `on_deposed` on losing."""

    def __init__(
        self,
        url: str,
        *,
        on_elected: Hook,
        on_deposed: Hook,
        interval_s: float = ELECTION_INTERVAL_S,
        key: int = LEADER_LOCK_KEY,
    ) -> None:
        self._url = url
        self._on_elected = on_elected
        self._on_deposed = on_deposed
        self._interval_s = interval_s
        self._key = key
        self._connection: asyncpg.Connection | None = None
        self.is_leader = False
        self.tries = 0  # attempts to win, for tests and logs

    async def run(self, stop: asyncio.Event) -> None:
        try:
            while not stop.is_set():
                if self.is_leader:
                    if not await self._still_holding():
                        await self._step_down("lost the leader connection")
                else:
                    await self._try_to_win()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self._interval_s)
        finally:
            if self.is_leader:
                await self._step_down("stopping")
            await self._close()

    async def _try_to_win(self) -> None:
        self.tries += 1
        try:
            if self._connection is None or self._connection.is_closed():
                self._connection = await asyncpg.connect(self._url, timeout=CHECK_TIMEOUT_S)
                # A leader whose host vanishes sends no FIN: the server would hold its lock
                # until TCP gave up (2 h by default). Probing an idle session after 5 s, every
                # 5 s, 3 times, frees the lock within ~20 s, inside the 30 s takeover.
                await self._connection.execute(KEEPALIVES, timeout=CHECK_TIMEOUT_S)
            won = await self._connection.fetchval(
                "SELECT pg_try_advisory_lock($1)", self._key, timeout=CHECK_TIMEOUT_S
            )
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            logger.warning(
                "leader election: PostgreSQL at %s: %s", redact_url(self._url), type(error).__name__
            )
            await self._close()
            return
        if won:
            self.is_leader = True
            logger.info("elected leader")
            await self._on_elected()

    async def _still_holding(self) -> bool:
        connection = self._connection
        if connection is None or connection.is_closed():
            return False
        try:
            await connection.fetchval("SELECT 1", timeout=CHECK_TIMEOUT_S)
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError):
            return False
        return True

    async def _step_down(self, why: str) -> None:
        self.is_leader = False
        logger.warning("no longer the leader: %s", why)
        try:
            await self._on_deposed()
        finally:
            # Closing the session releases the lock, if the server still holds it for us.
            await self._close()

    async def _close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None and not connection.is_closed():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(connection.close(), CHECK_TIMEOUT_S)
