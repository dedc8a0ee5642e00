"""Which of a refresh's alerts are queued, and when each is due. Pure: no clock, no database.

The rules that used to run inside the refresh's write transaction, in storage:

* cooldown: a subscription hears of the same offer and kind of change at most once per its
  cooldown (the last alert times come from the refresh's `load`,
  monitor.pipeline.PipelineStore);
* blocked chats get nothing (their subscriptions are paused too, so this only catches a block
  that raced the refresh);
* quiet hours and snoozes: the alert is queued now but due when they end, and marked held (it
  then arrives in the quiet-hours digest); what the alert's snooze and mute buttons mean as
  times (`snooze_ends`, `mute_ends`) is here too;
* dedupe: an alert appears once per subscription and event (`Alert.dedupe_key`), however often
  the matcher names it; the outbox's unique key stops the same alert in a later refresh.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from monitor.alerts import Alert
from monitor.users import DEFAULT_TIMEZONE, QuietHours, next_local_time, quiet_until

# What a cooldown is kept per: subscription id, provider, sku, location, EventKind value.
CooldownKey = tuple[int, str, str, str, str]


def cooldown_key(alert: Alert) -> CooldownKey:
    provider, sku, location = alert.event.offer.key
    return (alert.subscription_id, provider, sku, location, alert.event.kind.value)


@dataclass(frozen=True)
class Hold:
    """A chat whose alerts may not simply go now. Every other chat's are due at once, so a
    refresh loads only these (a few users set quiet hours; most never do)."""

    timezone: str = DEFAULT_TIMEZONE
    quiet_hours: QuietHours | None = None
    blocked: bool = False
    snoozed_until: datetime | None = None  # a live snooze ("💤 until morning")

    def due(self, now: datetime) -> datetime:
        """When an alert made `now` may go: after the snooze, and outside quiet hours (a
        snooze that ends inside quiet hours waits for their end)."""
        start = now if self.snoozed_until is None else max(now, self.snoozed_until)
        return quiet_until(self.quiet_hours, self.timezone, start)


MUTE_FOR = timedelta(hours=24)  # an alert's mute button silences its subscription for a day
MORNING_MINUTE = 8 * 60  # "until morning" means the next 08:00 on the user's clock


def mute_ends(now: datetime) -> datetime:
    """When a subscription muted from an alert at `now` speaks again."""
    return now + MUTE_FOR


def snooze_ends(now: datetime, timezone: str) -> datetime:
    """When a chat snoozed "until morning" at `now` hears again: the next 08:00 on its clock
    (later today when it is still night, else tomorrow)."""
    return next_local_time(now, timezone, MORNING_MINUTE)


class Queued(NamedTuple):
    """An outbox row to write. A tuple: a big refresh makes 20k of these."""

    alert: Alert
    dedupe_key: str
    due_at: datetime
    held: bool  # quiet hours or a snooze keep it back: it goes out in the digest
    # The end of the cooldown this alert starts; the refresh loads only the alerts whose
    # cooldown is still running, so what it reads grows with those, not with the history.
    cooling_until: datetime


def queue(
    alerts: Iterable[Alert],
    *,
    now: datetime,
    last_alerts: Mapping[CooldownKey, datetime],
    holds: Mapping[int, Hold],
) -> list[Queued]:
    """The rows to queue for these candidate alerts of a refresh made at `now`."""
    queued: list[Queued] = []
    seen: set[str] = set()
    # A refresh's alerts share few events (thousands of subscribers, one H100): an event's
    # key parts are worked out once, and most alerts need no hold look-up beyond a miss.
    events: dict[int, tuple[str, str, str, str, str]] = {}
    cooldowns: dict[int, timedelta] = {}  # a handful of distinct lengths among thousands
    for alert in alerts:
        hold = holds.get(alert.chat_id)
        if hold is not None and hold.blocked:
            continue
        event = alert.event
        parts = events.get(id(event))
        if parts is None:
            provider, sku, location = event.offer.key
            parts = events[id(event)] = (event.key, provider, sku, location, event.kind.value)
        event_key, provider, sku, location, kind = parts
        cooldown = cooldowns.get(alert.cooldown_s)
        if cooldown is None:
            cooldown = cooldowns[alert.cooldown_s] = timedelta(seconds=alert.cooldown_s)
        if last_alerts:
            last = last_alerts.get((alert.subscription_id, provider, sku, location, kind))
            if last is not None and now - last < cooldown:
                continue
        dedupe = f"{alert.subscription_id}|{event_key}"  # = Alert.dedupe_key
        if dedupe in seen:
            continue
        seen.add(dedupe)
        due = now if hold is None else hold.due(now)
        queued.append(Queued(alert, dedupe, due, due != now, now + cooldown))
    return queued
