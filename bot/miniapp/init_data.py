"""Who is asking, from a Mini App's `initData`: checked, never trusted as sent.

Telegram signs the launch parameters it hands a Mini App (Telegram.WebApp.initData) with a
key derived from the bot token: HMAC-SHA256 of the sorted `key=value` lines under
HMAC-SHA256("WebAppData", token) (core.telegram.org/bots/webapps, "Validating data received
via the Mini App"; aiogram.utils.web_app implements exactly that check, and is used here).
The signature proves Telegram issued the data, not when: a copied initData stays valid
forever, so its `auth_date` must also be recent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import parse_qsl

from aiogram.utils.web_app import check_webapp_signature, parse_webapp_init_data
from pydantic import ValidationError

# How old an initData may be. A Mini App gets its initData once, when it opens, and people
# keep one open for hours; a day is what @telegram-apps/init-data-node's validate() allows by
# default (expiresIn: 86400 s), long enough for an open app and short enough that a leaked
# copy soon stops working.
MAX_AGE = timedelta(days=1)
# Clocks differ: an auth_date this far in the future still counts as now.
CLOCK_SKEW = timedelta(minutes=5)
# A query string longer than this is not Telegram's (a full initData is well under 2 KB).
MAX_LENGTH = 8192


class InitDataError(ValueError):
    """The initData proves nothing: missing, forged, malformed or stale. The message says
    which, for the log; the caller answers 401 and touches nothing."""


@dataclass(frozen=True)
class AppUser:
    """The Telegram user a checked initData speaks for."""

    user_id: int
    language_code: str | None
    authorized_at: datetime


def verify_init_data(
    token: str, init_data: str, *, now: datetime, max_age: timedelta = MAX_AGE
) -> AppUser:
    """The user behind `init_data`, or InitDataError."""
    if not init_data:
        raise InitDataError("no initData")
    if len(init_data) > MAX_LENGTH:
        raise InitDataError("initData too long")
    try:
        parse_qsl(init_data, strict_parsing=True)
    except ValueError:
        raise InitDataError("initData is not a query string") from None
    if not check_webapp_signature(token, init_data):
        raise InitDataError("initData signature does not match")
    try:
        parsed = parse_webapp_init_data(init_data)
    except (ValidationError, ValueError, TypeError):
        raise InitDataError("initData fields malformed") from None
    if parsed.user is None:
        raise InitDataError("initData names no user")
    age = now - parsed.auth_date
    if age > max_age:
        raise InitDataError(f"initData is {age} old, over {max_age}")
    if age < -CLOCK_SKEW:
        raise InitDataError("initData is dated in the future")
    return AppUser(parsed.user.id, parsed.user.language_code, parsed.auth_date)
