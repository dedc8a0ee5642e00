from datetime import UTC, datetime, time, timedelta

import pytest

from monitor.users import QuietHours, is_known_timezone, next_local_time, parse_quiet_hours


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("23:00-08:00", QuietHours(23 * 60, 8 * 60)),
        ("23-8", QuietHours(23 * 60, 8 * 60)),
        ("22.30–07.00", QuietHours(22 * 60 + 30, 7 * 60)),
        ("0:00 - 9:15", QuietHours(0, 9 * 60 + 15)),
        ("13-24", QuietHours(13 * 60, 0)),
        ("off", None),
        ("ВЫКЛ", None),
    ],
)
def test_parse_quiet_hours(text: str, expected: QuietHours | None):
    assert parse_quiet_hours(text) == expected


@pytest.mark.parametrize("text", ["", "tonight", "25-07", "23:61-08:00", "8-8", "23:00"])
def test_parse_quiet_hours_rejects(text: str):
    with pytest.raises(ValueError, match=r"\S"):
        parse_quiet_hours(text)


def test_window_wrapping_over_midnight():
    quiet = QuietHours(23 * 60, 8 * 60)
    assert quiet.contains(time(23, 0))
    assert quiet.contains(time(2, 30))
    assert not quiet.contains(time(8, 0))
    assert not quiet.contains(time(22, 59))
    assert quiet.label() == "23:00–08:00"


def test_window_within_a_day():
    quiet = QuietHours(1 * 60, 10 * 60)
    assert quiet.contains(time(1, 0))
    assert not quiet.contains(time(0, 59))
    assert not quiet.contains(time(10, 0))


def test_known_timezones():
    assert is_known_timezone("Europe/Moscow")
    assert is_known_timezone("UTC")
    assert not is_known_timezone("Mars/Olympus")
    assert not is_known_timezone("../etc/passwd")


def test_next_local_time():
    noon = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    # 12:00 UTC is 15:00 in Moscow: the next 08:00 Moscow is tomorrow 05:00 UTC.
    assert next_local_time(noon, "Europe/Moscow", 8 * 60) == datetime(2026, 11, 30, 5, tzinfo=UTC)
    # 02:00 UTC is 05:00 Moscow: 08:00 Moscow is the same day.
    early = datetime(2026, 11, 29, 2, 0, tzinfo=UTC)
    assert next_local_time(early, "Europe/Moscow", 8 * 60) == datetime(2026, 11, 29, 5, tzinfo=UTC)
    # Exactly at the time: the next day's.
    assert next_local_time(noon, "UTC", 12 * 60) == noon + timedelta(days=1)
    # An unknown zone reads as Moscow time.
    assert next_local_time(noon, "Mars/Olympus", 8 * 60) == datetime(2026, 11, 30, 5, tzinfo=UTC)
    # DST: 08:00 in Berlin is 07:00 UTC in winter and 06:00 UTC in summer.
    before_change = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)
    assert next_local_time(before_change, "Europe/Berlin", 8 * 60) == datetime(
        2026, 3, 29, 6, 0, tzinfo=UTC
    )
