"""Who receives alerts, and when they must not be disturbed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# The languages are the text system's; storage, which may not import the estimator, reads
# them from here.
from estimator.i18n import LANGUAGES as LANGUAGES
from estimator.i18n import Language as Language

MINUTES_PER_DAY = 24 * 60
DEFAULT_TIMEZONE = "Europe/Moscow"  # the market's time, as docs/design.md says


@dataclass(frozen=True)
class QuietHours:
    """A daily window in the user's local time, in minutes after midnight.

    `start > end` wraps over midnight (22:00-08:00 is the usual case); `start == end` is
    rejected because it is ambiguous between "never" and "always".
    """

    start: int
    end: int

    def __post_init__(self) -> None:
        for value in (self.start, self.end):
            if not 0 <= value < MINUTES_PER_DAY:
                raise ValueError(f"quiet hours minute {value} is outside 0..1439")
        if self.start == self.end:
            raise ValueError("quiet hours must start and end at different times")

    def contains(self, moment: time) -> bool:
        minute = moment.hour * 60 + moment.minute
        if self.start < self.end:
            return self.start <= minute < self.end
        return minute >= self.start or minute < self.end

    def label(self) -> str:
        return f"{_hhmm(self.start)}–{_hhmm(self.end)}"


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


@dataclass(frozen=True)
class User:
    chat_id: int
    language: Language
    timezone: str
    quiet_hours: QuietHours | None
    blocked: bool
    created_at: datetime
    last_seen_at: datetime


_OFF_WORDS = frozenset({"off", "no", "none", "выкл", "выключить", "нет", "0"})
_CLOCK = r"(\d{1,2})(?:[:.](\d{2}))?"
_WINDOW = re.compile(rf"^{_CLOCK}\s*[-–—]\s*{_CLOCK}$")


def parse_quiet_hours(text: str) -> QuietHours | None:
    """Read "23:00-08:00", "23-8", "22.30–07.00" or "off"; None means quiet hours off.

    Raises ValueError for anything else, with the reason.
    """
    cleaned = text.strip().lower()
    if cleaned in _OFF_WORDS:
        return None
    match = _WINDOW.match(cleaned)
    if match is None:
        raise ValueError(f"not a time window: {text!r}")
    start_h, start_m, end_h, end_m = match.groups()
    return QuietHours(_minute(start_h, start_m), _minute(end_h, end_m))


def _minute(hours: str, minutes: str | None) -> int:
    hour, minute = int(hours), int(minutes or 0)
    if hour == 24 and minute == 0:
        hour = 0
    if not (0 <= hour < 24 and 0 <= minute < 60):
        raise ValueError(f"not a time of day: {hours}:{minutes or '00'}")
    return hour * 60 + minute


def is_known_timezone(name: str) -> bool:
    """True for an IANA zone name that this machine's tz database (or tzdata) knows."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def zone(name: str) -> ZoneInfo:
    """The user's zone; a name this machine does not know falls back to Moscow time."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo(DEFAULT_TIMEZONE)


def next_local_time(now: datetime, timezone: str, minute: int) -> datetime:
    """The first moment after `now` when the clock in `timezone` shows `minute` after midnight.

    Built from the local date (wall-clock arithmetic), so it stays "08:00 local" across a
    DST change where a zone has one. Returned in UTC.
    """
    local = now.astimezone(zone(timezone))
    candidate = local.replace(hour=minute // 60, minute=minute % 60, second=0, microsecond=0)
    if candidate <= local:
        # Aware + timedelta is wall-clock arithmetic in Python: still `minute` local tomorrow.
        candidate += timedelta(days=1)
    return candidate.astimezone(UTC)


def quiet_until(quiet_hours: QuietHours | None, timezone: str, now: datetime) -> datetime:
    """`now`, or the end of these quiet hours when `now` falls inside them."""
    if quiet_hours is None:
        return now
    if not quiet_hours.contains(now.astimezone(zone(timezone)).time()):
        return now
    return next_local_time(now, timezone, quiet_hours.end)


def due_time(user: User | None, now: datetime) -> datetime:
    """`now`, or the end of the user's quiet hours when `now` falls inside them."""
    if user is None:
        return now
    return quiet_until(user.quiet_hours, user.timezone, now)
