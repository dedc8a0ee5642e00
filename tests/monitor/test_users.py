from datetime import time

import pytest

from monitor.users import QuietHours, is_known_timezone, parse_quiet_hours


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
