"""Share links: what goes in comes out, within Telegram's 64 characters, or a clear refusal."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.deep_links import (
    MAX_AGE,
    PAYLOAD_LIMIT,
    WORDS_VERSION,
    DeepLinkError,
    LinkKind,
    SharedLink,
    decode_link,
    encode_link,
)
from estimator.fit_words import understand
from estimator.stated_codec import stated_text

TODAY = date(2026, 12, 3)
ALLOWED = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # Telegram's /start payload alphabet


@given(
    st.sampled_from(LinkKind),
    st.text(
        st.characters(blacklist_categories=["Cs"], blacklist_characters="\n\r\x00"),
        min_size=1,
        max_size=80,
    ).filter(str.strip),
)
def test_a_link_opens_the_words_it_was_made_from(kind: LinkKind, words: str):
    payload = encode_link(kind, words, today=TODAY)
    if payload is None:
        return  # too long even packed: no link is offered
    assert ALLOWED.match(payload)
    assert decode_link(payload, today=TODAY) == SharedLink(kind, words)


def test_a_link_made_before_the_typed_texts_opens_as_words():
    payload = "f1p000_" + "MTNiIHFsb3JhIGN0eD00MDk2"  # "13b qlora ctx=4096", version 1
    assert decode_link(payload, today=date(2026, 1, 2)) == SharedLink(
        LinkKind.SIZING, "13b qlora ctx=4096", words=True
    )
    made = encode_link(LinkKind.SIZING, "13b", today=TODAY, version=WORDS_VERSION)
    assert made is not None
    assert decode_link(made, today=TODAY).words


def test_typical_watches_and_sizings_fit_in_a_link():
    sizings = ["13b qlora ctx=4096", "70b qlora ctx=8192 bs=2 gpu=h100"]
    texts = [stated_text(parsed) for parsed in map(understand, sizings) if parsed is not None]
    for kind, text in [
        (LinkKind.WATCH, "h100 max=650"),
        (LinkKind.WATCH, "a100 vram=80 provider=selectel max=250"),
        *((LinkKind.SIZING, text) for text in texts),
    ]:
        payload = encode_link(kind, text, today=TODAY)
        assert payload is not None, text
        assert len(payload) <= PAYLOAD_LIMIT


def test_words_too_long_for_any_link_get_none():
    assert encode_link(LinkKind.SIZING, "".join(map(chr, range(0x410, 0x450))), today=TODAY) is None


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ("", "malformed"),
        ("hello", "malformed"),
        ("x1p000_aGk", "malformed"),  # unknown kind
        ("w1q000_aGk", "malformed"),  # unknown packing
        ("w1z000_aGk", "malformed"),  # not deflate
        ("w1p000_", "malformed"),
        ("w1p000_gA", "malformed"),  # not UTF-8
        ("w1p000_" + "a" * 60, "too_long"),
        ("w3p000_aGk", "stale"),  # another version
    ],
)
def test_payloads_that_open_nothing_say_why(payload: str, code: str):
    with pytest.raises(DeepLinkError) as caught:
        decode_link(payload, today=TODAY)
    assert caught.value.code == code


def test_a_link_older_than_its_age_is_stale():
    made = TODAY - MAX_AGE
    payload = encode_link(LinkKind.WATCH, "h100 max=650", today=made)
    assert payload is not None
    assert decode_link(payload, today=TODAY).text == "h100 max=650"
    with pytest.raises(DeepLinkError, match="stale"):
        decode_link(payload, today=TODAY + timedelta(days=1))
    future = encode_link(LinkKind.WATCH, "h100", today=TODAY + timedelta(days=5))
    assert future is not None
    with pytest.raises(DeepLinkError, match="stale"):
        decode_link(future, today=TODAY)


@given(st.text(max_size=80))
def test_any_payload_is_a_link_or_a_deep_link_error(payload: str):
    try:
        decode_link(payload, today=TODAY)
    except DeepLinkError:
        return
