"""Where this replica stands: alone on a SQLite file, or one of several sharing PostgreSQL.

Chosen once, from the database the store opened (`topology_of`), and asked wherever the two
differ: who leads (the election), whether replicas tell each other they live (the heartbeats,
from which each takes its share of the send rate), how the sender claims from the outbox (its
lease and claim horizon), where a user's flood state lives, and what start-up does with
claims that a dead process left.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

from bot.config import Settings
from bot.replica import Election, ElectionFactory
from storage import Store
from storage.flows import SharedFlows
from storage.leader import Hook, LeaderElection, LeaderLease
from storage.postgres import PgDatabase
from storage.replicas import ReplicaRegistry


@dataclass(frozen=True)
class ClaimPolicy:
    """How the sender claims: each claim lives `lease` unless renewed (every third of it);
    with `horizon_s`, a pass claims what this replica sends in that long at its share of the
    rate, so that a fan-out spreads over the replicas instead of one claiming it all."""

    lease: timedelta
    horizon_s: float | None = None


# Alone: 5-minute leases and full batches; start-up releases a dead process's claims.
SOLE_CLAIMS = ClaimPolicy(lease=timedelta(minutes=5))
# Shared: each pass claims 5 s of this replica's sends.
REPLICA_HORIZON_S = 5.0


def replica_claims(lease_s: float) -> ClaimPolicy:
    """Shared: a dead replica's unsent rows go to another within `lease_s`
    (GPURADAR_CLAIM_LEASE_S, 15 s by default)."""
    return ClaimPolicy(lease=timedelta(seconds=lease_s), horizon_s=REPLICA_HORIZON_S)


@dataclass(frozen=True)
class Alone:
    """The one process on a SQLite file (storage.lock holds it): it leads from the start,
    keeps flood state in memory, and any claim still held at start-up was a dead process's.

    `election` is for tests that decide when this process leads.
    """

    election: ElectionFactory | None = None
    claims: ClaimPolicy = SOLE_CLAIMS
    flows: None = field(default=None, init=False)
    heartbeats: None = field(default=None, init=False)
    # No lease: the one process on the file leads for as long as it holds the file.
    lease: None = field(default=None, init=False)

    async def release_stale_claims(self, store: Store) -> int:
        return await store.release_claims()


@dataclass(frozen=True)
class Shared:
    """One of the replicas sharing a PostgreSQL database: a lease row elects the leader
    (storage.leader; `lease` is this replica's view of it, which the duties ask before each
    step and the refresh commits carry), heartbeats count the replicas (storage.replicas), the
    flood state is in the database (storage.flows), and a dead replica's claims are left to
    their leases."""

    election: ElectionFactory
    flows: SharedFlows
    heartbeats: ReplicaRegistry
    claims: ClaimPolicy
    lease: LeaderLease | None = None

    async def release_stale_claims(self, store: Store) -> int:
        return 0


Topology = Alone | Shared


def lease_held(topology: Topology) -> Callable[[], bool]:
    """What each duty step asks before it acts (housekeeping, a scheduled refresh): whether
    this replica's leader lease still holds. Alone on a SQLite file, it always does."""
    lease = topology.lease
    return (lambda: True) if lease is None else lease.held


def topology_of(
    store: Store, settings: Settings, *, election: ElectionFactory | None = None
) -> Topology:
    """The topology of the database `store` opened; `election` replaces the default one."""
    database = store.database
    if not isinstance(database, PgDatabase):
        return Alone(election)
    lease = None
    if election is None:
        lease = LeaderLease()
        election = postgresql_election(
            database,
            settings.replica_id,
            lease,
            interval_s=settings.election_interval_s,
            lease_s=settings.leader_lease_s,
        )
    return Shared(
        election=election,
        flows=SharedFlows(database),
        heartbeats=ReplicaRegistry(database),
        claims=replica_claims(settings.claim_lease_s),
        lease=lease,
    )


def postgresql_election(
    database: PgDatabase, replica_id: str, lease: LeaderLease, *, interval_s: float, lease_s: float
) -> ElectionFactory:
    """The replicas sharing `database` elect their leader with a lease row (storage.leader),
    renewed, and tried for by followers, every `interval_s` (GPURADAR_ELECTION_INTERVAL_S),
    free for another to take once `lease_s` (GPURADAR_LEADER_LEASE_S) passed unrenewed."""

    def election(on_elected: Hook, on_deposed: Hook) -> Election:
        return LeaderElection(
            database,
            replica_id,
            on_elected=on_elected,
            on_deposed=on_deposed,
            interval_s=interval_s,
            lease_s=lease_s,
            lease=lease,
        )

    return election
