"""The two values one refresh exchanges with storage: what it loads, and what it commits.

    state = await store.load(provider, now)     # one read
    ... diff, part rules, matching, monitor.queueing: pure code, no lock held ...
    await store.commit(provider, plan)          # one write transaction

Between the two, another replica may have refreshed the same provider (two leaders for a few
seconds while one takes over). The plan carries the revision its state was loaded at, and the
commit applies it only if no other refresh of that provider committed since.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from monitor.diff import OfferKey, Tracked
from monitor.health import ProviderHealth
from monitor.offers import Offer
from monitor.parts import PartRuns, PartStatus
from monitor.queueing import CooldownKey, Hold, Queued
from monitor.scrape import ScrapeError


@dataclass(frozen=True)
class RefreshState:
    """Everything a refresh of one provider reads, as of one moment."""

    revision: int  # how many refreshes of this provider committed (0: none yet)
    tracked: Mapping[OfferKey, Tracked]  # the last good snapshot, offers missing a while too
    part_runs: Mapping[str, PartRuns]
    # The last alert of each cooldown key of this provider whose cooldown is still running.
    last_alerts: Mapping[CooldownKey, datetime]
    holds: Mapping[int, Hold]  # chat id -> why its alerts may not go now (other chats: none)
    # The provider's health as its previous scrape left it (None: never scraped): which of
    # its offers were stale until now (monitor.freshness).
    health: ProviderHealth | None = None


@dataclass(frozen=True)
class Healthy:
    offers: int  # listed in the new snapshot
    duration_s: float
    at: datetime


@dataclass(frozen=True)
class Failed:
    """The whole scrape failed, or every part of it did: counted, the snapshot kept."""

    error: ScrapeError
    duration_s: float
    at: datetime


@dataclass(frozen=True)
class RefreshPlan:
    """Everything one refresh writes, in one transaction."""

    health: Healthy | Failed
    # The revision of the state the plan was made from. None: a failed fetch, which read
    # nothing and changes only the provider's failure count.
    revision: int | None = None
    fetched_at: datetime | None = None  # the scrape's time, on the part and snapshot rows
    parts: Sequence[PartStatus] = ()
    tracked: Mapping[OfferKey, Tracked] | None = None  # the new snapshot; None keeps the old
    # The offers that went through diff: history gets a change point for each that changed.
    offers: Sequence[Offer] = ()
    queued: Sequence[Queued] = ()
    queued_at: datetime | None = None  # when the refresh made its alerts
