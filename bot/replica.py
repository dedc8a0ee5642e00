"""A replica's role: leader or follower, and the duties that only the leader carries.

Every replica serves its ops port, sends from the outbox and (in webhook mode) answers the
updates Telegram posts to it. Only the leader long-polls Telegram (two pollers would get 409s
and each lose updates to the other), runs the refresher (two would fetch every site twice) and
the daily housekeeping. On SQLite there is one process per database (storage.lock), so it
leads from the start; on PostgreSQL an election (storage.leader) picks one by a lease, and a
follower takes over the duties once the leader's lease has run out unrenewed (it died, froze or
was cut off).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

logger = logging.getLogger(__name__)

Role = Literal["leader", "follower"]
Hook = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class Duty:
    """Something that runs while this replica leads: `start` on election, `stop` on losing it."""

    name: str
    start: Hook
    stop: Hook


class Election(Protocol):
    async def run(self, stop: asyncio.Event) -> None:
        """Campaign until `stop` is set, calling the hooks it was built with."""


# on_elected, on_deposed -> an election that calls them (storage.leader.LeaderElection).
ElectionFactory = Callable[[Hook, Hook], Election]


class Replica:
    def __init__(
        self,
        replica_id: str,
        duties: Sequence[Duty],
        *,
        election: ElectionFactory | None = None,
        on_role: Callable[[Role], None] = lambda role: None,
    ) -> None:
        self.replica_id = replica_id
        self._duties = list(duties)
        self._election = election
        self._on_role = on_role
        self._running: list[Duty] = []
        self.role: Role = "follower"
        on_role(self.role)

    @property
    def elected(self) -> bool:
        """True when leadership comes from an election, false when this replica is alone."""
        return self._election is not None

    async def run(self, stop: asyncio.Event) -> None:
        """Hold the role until `stop` is set; the duties are stopped before this returns."""
        try:
            if self._election is None:
                await self._become_leader()
                await stop.wait()
            else:
                await self._election(self._become_leader, self._become_follower).run(stop)
        finally:
            await self._become_follower()

    async def _become_leader(self) -> None:
        if self.role == "leader":
            return
        self.role = "leader"
        self._on_role(self.role)
        logger.info("replica %s leads: starting %s", self.replica_id, self._names(self._duties))
        for duty in self._duties:
            try:
                await duty.start()
            except Exception:
                # A duty that cannot start must not take the others down with it: the next
                # election (or restart) tries again, and /healthz shows what is not running.
                logger.exception("replica %s: duty %s did not start", self.replica_id, duty.name)
                continue
            self._running.append(duty)

    async def _become_follower(self) -> None:
        if self.role == "follower":
            return
        self.role = "follower"
        self._on_role(self.role)
        logger.info("replica %s follows: stopping %s", self.replica_id, self._names(self._running))
        while self._running:
            duty = self._running.pop()
            try:
                await duty.stop()
            except Exception:
                logger.exception("replica %s: duty %s did not stop", self.replica_id, duty.name)

    @staticmethod
    def _names(duties: Sequence[Duty]) -> str:
        return ", ".join(duty.name for duty in duties) or "nothing"
