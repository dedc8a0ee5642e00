"""The queueing rules, without a database: cooldown, blocked chats, quiet hours, snoozes, dedupe."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest

from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import StockState
from monitor.queueing import (
    CooldownKey,
    Hold,
    Queued,
    cooldown_key,
    mute_ends,
    queue,
    snooze_ends,
)
from monitor.users import QuietHours
from tests.factories import make_offer

T0 = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
MOSCOW_NIGHT = QuietHours(23 * 60, 8 * 60)  # over midnight


def event(sku: str = "h100", kind: EventKind = EventKind.APPEARED, at: datetime = T0) -> Event:
    return Event(
        kind, make_offer(sku, 320.0, gpu="H100 80GB"), at, old_stock=StockState.OUT_OF_STOCK
    )


def run(
    alerts: list[Alert],
    now: datetime = T0,
    *,
    last: Mapping[CooldownKey, datetime] | None = None,
    holds: Mapping[int, Hold] | None = None,
) -> list[Queued]:
    return queue(alerts, now=now, last_alerts=last or {}, holds=holds or {})


TWO_HOURS_S = 2 * 3600  # a subscription's own cooldown, which its alerts carry


def test_an_alert_without_holds_is_due_now_and_starts_its_cooldown():
    alert = Alert(1, 10, event(), TWO_HOURS_S)
    assert run([alert]) == [Queued(alert, alert.dedupe_key, T0, False, T0 + 2 * HOUR)]


def test_cooldown_is_per_subscription_offer_and_kind():
    told = Alert(1, 10, event(), TWO_HOURS_S)
    last = {cooldown_key(told): T0 - HOUR}
    others = [
        Alert(1, 11, event(), TWO_HOURS_S),  # another subscription
        Alert(1, 10, event("a100"), TWO_HOURS_S),  # another offer
        Alert(1, 10, event(kind=EventKind.PRICE_DROP), TWO_HOURS_S),  # another kind of change
    ]
    queued = run([told, *others], last=last)
    assert [row.alert for row in queued] == others
    assert cooldown_key(told) == (10, "acme", "h100", "MSK-1", "appeared")


def test_the_cooldown_ends_exactly_after_its_length():
    alert = Alert(1, 10, event(), TWO_HOURS_S)
    last = {cooldown_key(alert): T0 - 2 * HOUR}
    assert run([alert], T0 - timedelta(seconds=1), last=last) == []
    assert [row.alert for row in run([alert], last=last)] == [alert]
    # A cooldown of 0 never holds anything back.
    assert len(run([alert._replace(cooldown_s=0)], T0 - 2 * HOUR, last=last)) == 1


def test_blocked_chats_get_nothing():
    queued = run([Alert(1, 10, event()), Alert(2, 20, event())], holds={2: Hold(blocked=True)})
    assert [row.alert.chat_id for row in queued] == [1]


def test_the_same_alert_twice_is_queued_once():
    alert = Alert(1, 10, event())
    assert [row.alert for row in run([alert, alert, Alert(1, 11, event())])] == [
        alert,
        Alert(1, 11, event()),
    ]


@pytest.mark.parametrize(
    ("now", "due"),
    [
        # 00:30 Moscow (UTC+3): inside 23:00-08:00 -> 08:00 Moscow the same morning.
        (datetime(2026, 11, 29, 21, 30, tzinfo=UTC), datetime(2026, 11, 30, 5, 0, tzinfo=UTC)),
        # 23:30 Moscow, before midnight -> 08:00 Moscow the next day.
        (datetime(2026, 11, 29, 20, 30, tzinfo=UTC), datetime(2026, 11, 30, 5, 0, tzinfo=UTC)),
        # 22:59 Moscow: not yet quiet.
        (datetime(2026, 11, 29, 19, 59, tzinfo=UTC), datetime(2026, 11, 29, 19, 59, tzinfo=UTC)),
        # 08:00 Moscow sharp: the window has ended.
        (datetime(2026, 11, 30, 5, 0, tzinfo=UTC), datetime(2026, 11, 30, 5, 0, tzinfo=UTC)),
    ],
)
def test_quiet_hours_over_midnight_push_due_to_their_end(now: datetime, due: datetime):
    hold = Hold("Europe/Moscow", MOSCOW_NIGHT)
    (row,) = run([Alert(1, 10, event())], now, holds={1: hold})
    assert (row.due_at, row.held) == (due, due != now)
    assert row.cooling_until == now + 6 * HOUR  # the cooldown runs from the alert, not its due


def test_quiet_hours_are_in_the_users_time_zone():
    # 13:00-15:00 in Vladivostok (UTC+10) is 03:00-05:00 UTC.
    window = QuietHours(13 * 60, 15 * 60)
    holds = {1: Hold("Asia/Vladivostok", window), 2: Hold("Europe/Moscow", window)}
    now = datetime(2026, 11, 29, 3, 30, tzinfo=UTC)  # 13:30 Vladivostok, 06:30 Moscow
    queued = run([Alert(1, 10, event()), Alert(2, 20, event())], now, holds=holds)
    assert {row.alert.chat_id: row.due_at for row in queued} == {
        1: datetime(2026, 11, 29, 5, 0, tzinfo=UTC),
        2: now,
    }


def test_a_snooze_holds_alerts_until_it_ends_and_then_quiet_hours_still_count():
    morning = T0 + 10 * HOUR
    (snoozed,) = run([Alert(1, 10, event())], holds={1: Hold(snoozed_until=morning)})
    assert (snoozed.due_at, snoozed.held) == (morning, True)
    # A snooze that ends at 02:00 Moscow, inside the night: due at 08:00 Moscow.
    late = datetime(2026, 11, 29, 23, 0, tzinfo=UTC)
    night = Hold("Europe/Moscow", MOSCOW_NIGHT, snoozed_until=late)
    (row,) = run([Alert(1, 10, event())], holds={1: night})
    assert row.due_at == datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    # A snooze already over holds nothing.
    assert run([Alert(1, 10, event())], morning, holds={1: Hold(snoozed_until=T0)})[0].held is False


def test_a_snooze_lasts_until_the_next_0800_on_the_users_clock():
    # T0 is 15:00 in Moscow: tomorrow's 08:00 there, 05:00 UTC.
    assert snooze_ends(T0, "Europe/Moscow") == datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    # 03:00 in Moscow is still night: this morning's 08:00.
    night = datetime(2026, 11, 30, 0, 0, tzinfo=UTC)
    assert snooze_ends(night, "Europe/Moscow") == datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    assert snooze_ends(T0, "Asia/Vladivostok") == datetime(2026, 11, 29, 22, 0, tzinfo=UTC)


def test_a_mute_lasts_a_day():
    assert mute_ends(T0) == T0 + 24 * HOUR
