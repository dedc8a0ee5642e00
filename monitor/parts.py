"""Which parts of a scrape go through, and which keep their last good offers. Pure.

A provider's scrape comes in parts (monitor.scrape). Each part is judged on its own:

* FAILED: the part met a ScrapeError (HTTP error, a redirect to another host, a bot check,
  a changed layout);
* EMPTY: it parsed to no GPU offer at all. A provider never sells out of everything in one
  part at once; a well-formed empty answer (`{"result": []}` from the wrong host, a page that
  is now built by JavaScript) is far likelier, so it is an error for that part;
* SUSPECT: it lost more than half of its last good offers in one scrape. It is held until the
  drop has been seen in CONFIRM_AFTER scrapes in a row; the scrape that completes the run goes
  through as usual (the missing offers then count towards removal like any others). A part
  that was tracked but is not in the scrape at all (an immers model the index no longer links)
  is a drop to nothing and is held the same way;
* OK: its offers go through diff.

A held part (FAILED, EMPTY, SUSPECT) keeps its last good offers exactly as they were and makes
no events. The provider as a whole is failing only when every part it reported is FAILED or
EMPTY. A part's first good scrape is its baseline: stored, not announced, as a provider's first
snapshot always was (otherwise a part that recovers after never having worked would announce
every offer in it as new).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from monitor.diff import OfferKey, Tracked, diff
from monitor.events import Event
from monitor.offers import Offer
from monitor.scrape import LayoutError, ScrapeError, ScrapeResult

# Scrapes in a row that must show a big drop before it is believed. Three at the providers'
# 10-15 minute intervals is half an hour to three quarters: long enough for a misrouted answer
# or a deploy to pass, short enough that a real clear-out shows within the hour.
CONFIRM_AFTER = 3


class PartState(StrEnum):
    OK = "ok"
    FAILED = "failed"
    EMPTY = "empty"
    SUSPECT = "suspect"


@dataclass(frozen=True)
class PartRuns:
    """What is remembered about a part between scrapes (storage persists it)."""

    failures: int = 0  # consecutive FAILED or EMPTY scrapes
    suspect: int = 0  # consecutive scrapes that showed the same big drop


@dataclass(frozen=True)
class PartStatus:
    """How one part fared in one scrape."""

    part: str
    state: PartState
    offers: int  # offers this scrape gave for it
    kept: int  # last good offers it keeps while held
    runs: PartRuns
    error: ScrapeError | None = None  # FAILED, EMPTY
    note: str = ""  # SUSPECT: what dropped, and how often it has been seen

    @property
    def held(self) -> bool:
        return self.state is not PartState.OK

    @property
    def failed(self) -> bool:
        return self.state in (PartState.FAILED, PartState.EMPTY)


@dataclass(frozen=True)
class Settlement:
    events: tuple[Event, ...]
    # The provider's new tracked state (accepted parts diffed, held parts carried as they were).
    tracked: dict[OfferKey, Tracked]
    # The offers that went through: what the change history records.
    accepted_offers: tuple[Offer, ...]
    statuses: tuple[PartStatus, ...] = field(default_factory=tuple)
    # Every part the scrape reported failed or was empty: the provider as a whole is failing.
    failing: bool = False

    @property
    def error(self) -> ScrapeError | None:
        """The first part's error, to name when the whole provider is failing."""
        return next((s.error for s in self.statuses if s.error is not None), None)


def settle(
    previous: Mapping[OfferKey, Tracked],
    result: ScrapeResult,
    runs: Mapping[str, PartRuns],
    *,
    removal_after: int = 2,
    confirm_after: int = CONFIRM_AFTER,
    expired: Collection[OfferKey] = frozenset(),
) -> Settlement:
    """Judge every part of `result` against the provider's tracked offers in `previous`;
    `expired` (monitor.freshness.expired_keys) goes to diff."""
    if confirm_after < 1:
        raise ValueError(f"confirm_after must be at least 1, got {confirm_after}")
    mine = {key: t for key, t in previous.items() if key[0] == result.provider}
    by_part: dict[str, list[Tracked]] = {}
    for entry in mine.values():
        by_part.setdefault(entry.part, []).append(entry)

    statuses = [
        _judge(result, name, outcome, by_part.get(name, []), runs.get(name, PartRuns()),
               confirm_after)
        for name, outcome in result.parts.items()
    ]  # fmt: skip
    if all(status.failed for status in statuses):
        return Settlement((), mine, (), tuple(statuses), failing=True)
    statuses += [
        _absent(name, entries, runs.get(name, PartRuns()), confirm_after)
        for name, entries in sorted(by_part.items())
        if name not in result.parts
    ]
    accepted = {status.part for status in statuses if not status.held}
    changes = diff(mine, result, removal_after=removal_after, accepted=accepted, expired=expired)
    baseline = {name for name in accepted if _is_baseline(name, result, mine, by_part)}
    part_of = result.part_of()
    events = tuple(e for e in changes.events if part_of.get(e.offer.key) not in baseline)
    offers = tuple(
        offer
        for name, outcome in result.parts.items()
        if name in accepted and isinstance(outcome, tuple)
        for offer in outcome
    )
    return Settlement(events, changes.tracked, offers, tuple(statuses))


def _judge(
    result: ScrapeResult,
    name: str,
    outcome: tuple[Offer, ...] | ScrapeError,
    entries: list[Tracked],
    runs: PartRuns,
    confirm_after: int,
) -> PartStatus:
    kept = sum(1 for entry in entries if entry.missing_runs == 0)
    failed = PartRuns(failures=runs.failures + 1)
    if isinstance(outcome, ScrapeError):
        return PartStatus(name, PartState.FAILED, 0, kept, failed, outcome)
    if not outcome:
        error = LayoutError(result.provider, f"{_label(name)}: no GPU offers")
        return PartStatus(name, PartState.EMPTY, 0, kept, failed, error)
    seen = {entry.offer.key for entry in entries if entry.missing_runs == 0}
    lost = len(seen - {offer.key for offer in outcome})
    if seen and lost * 2 > len(seen) and runs.suspect + 1 < confirm_after:
        suspect = runs.suspect + 1
        note = f"lost {lost} of {len(seen)} offers (seen {suspect} of {confirm_after} times)"
        return PartStatus(
            name, PartState.SUSPECT, len(outcome), kept, PartRuns(0, suspect), None, note
        )
    return PartStatus(name, PartState.OK, len(outcome), 0, PartRuns())


def _absent(name: str, entries: list[Tracked], runs: PartRuns, confirm_after: int) -> PartStatus:
    """A tracked part the scrape did not mention: a drop to nothing, held like one."""
    kept = sum(1 for entry in entries if entry.missing_runs == 0)
    suspect = runs.suspect + 1
    if suspect >= confirm_after or not kept:
        return PartStatus(name, PartState.OK, 0, 0, PartRuns())
    note = f"not in the scrape, {kept} offers kept (seen {suspect} of {confirm_after} times)"
    return PartStatus(name, PartState.SUSPECT, 0, kept, PartRuns(0, suspect), None, note)


def _is_baseline(
    name: str,
    result: ScrapeResult,
    mine: Mapping[OfferKey, Tracked],
    by_part: Mapping[str, list[Tracked]],
) -> bool:
    """The part's first good scrape: nothing of it is tracked, by part or by key."""
    outcome = result.parts.get(name)
    offers = outcome if isinstance(outcome, tuple) else ()
    return name not in by_part and not any(offer.key in mine for offer in offers)


def _label(part: str) -> str:
    return f"part {part!r}" if part else "the scrape"
