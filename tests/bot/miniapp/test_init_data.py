"""A Mini App's initData is believed only when Telegram signed it for this bot, recently."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qsl, urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.miniapp.init_data import MAX_AGE, InitDataError, verify_init_data
from tests.fakes.init_data import signed_init_data

TOKEN = "123456:TEST-token"
NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def test_a_fresh_signed_init_data_names_its_user():
    data = signed_init_data(TOKEN, user_id=42, auth_date=NOW - timedelta(minutes=3))
    user = verify_init_data(TOKEN, data, now=NOW)
    assert (user.user_id, user.language_code) == (42, "ru")
    assert user.authorized_at == NOW - timedelta(minutes=3)


def test_another_bots_signature_is_refused():
    data = signed_init_data("999:other-bot", user_id=42, auth_date=NOW)
    with pytest.raises(InitDataError, match="signature"):
        verify_init_data(TOKEN, data, now=NOW)


def test_a_changed_user_breaks_the_signature():
    fields = dict(parse_qsl(signed_init_data(TOKEN, user_id=42, auth_date=NOW)))
    fields["user"] = fields["user"].replace('"id":42', '"id":7')
    with pytest.raises(InitDataError, match="signature"):
        verify_init_data(TOKEN, urlencode(fields), now=NOW)


def test_without_a_hash_nothing_is_believed():
    fields = dict(parse_qsl(signed_init_data(TOKEN, user_id=42, auth_date=NOW)))
    del fields["hash"]
    with pytest.raises(InitDataError):
        verify_init_data(TOKEN, urlencode(fields), now=NOW)


def test_stale_and_future_init_data_are_refused():
    old = signed_init_data(TOKEN, user_id=42, auth_date=NOW - MAX_AGE - timedelta(seconds=1))
    with pytest.raises(InitDataError, match="old"):
        verify_init_data(TOKEN, old, now=NOW)
    # Just inside the age still works; an hour ahead of our clock does not.
    edge = signed_init_data(TOKEN, user_id=42, auth_date=NOW - MAX_AGE + timedelta(seconds=1))
    assert verify_init_data(TOKEN, edge, now=NOW).user_id == 42
    ahead = signed_init_data(TOKEN, user_id=42, auth_date=NOW + timedelta(hours=1))
    with pytest.raises(InitDataError, match="future"):
        verify_init_data(TOKEN, ahead, now=NOW)


@pytest.mark.parametrize("data", ["", "hash", "a=1&&b", "x" * 10_000, "user=%7B&hash=00"])
def test_garbage_is_an_init_data_error(data: str):
    with pytest.raises(InitDataError):
        verify_init_data(TOKEN, data, now=NOW)


def test_a_signed_init_data_without_a_user_is_refused():
    data = signed_init_data(TOKEN, user_id=None, auth_date=NOW)
    with pytest.raises(InitDataError, match="no user"):
        verify_init_data(TOKEN, data, now=NOW)


@given(st.text(max_size=300))
def test_any_string_is_a_user_or_an_init_data_error(data: str):
    # Whatever arrives, the answer is a user or a 401, never a crash of the handler.
    with contextlib.suppress(InitDataError):
        verify_init_data(TOKEN, data, now=NOW)


def test_signed_but_malformed_fields_are_refused():
    data = signed_init_data(TOKEN, user_id=None, auth_date=NOW, user='{"id": "not a number"}')
    with pytest.raises(InitDataError, match="malformed"):
        verify_init_data(TOKEN, data, now=NOW)
