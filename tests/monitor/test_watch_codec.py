"""monitor.watch_codec: a watch travels as a short versioned text and reads back as itself;
a watch on a run has no text (its carrier keeps the /watch words); a forged text is an error."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.watch_codec import WatchCodecError, decode, encode, is_typed
from monitor.watch_words import parse_watch

WATCHES = [
    "h100 max=650",
    "8x h100 max=600",
    "a100 vram=80 provider=selectel max=250",
    "4090 provider=immers kinds=in_stock,price_drop,below_target max=90 cooldown=1h",
    "rtx 6000 ada total_vram=96",
    "h100 location=moscow",
    "max=199.5",
]


@pytest.mark.parametrize("words", WATCHES)
def test_a_watch_reads_back_as_itself(words: str):
    watch = parse_watch(words)
    text = encode(watch)
    assert text is not None
    assert text.isascii()
    assert is_typed(text)
    assert decode(text) == watch


def test_the_text_is_short():
    assert encode(parse_watch("8x h100 max=600")) == "~1fH100,n8,m600"


def test_a_watch_on_a_run_keeps_its_words():
    assert encode(parse_watch("70b qlora ctx=8192 max=400")) is None
    assert encode(parse_watch("h100 location=москва")) is None


@pytest.mark.parametrize(
    "text",
    ["", "h100", "~1", "~2fH100", "~1fNoFamily", "~1gH100", "~1fH100,fH100", "~1fH100,n0",
     "~1fH100,n1.5", "~1fH100,m-1", "~1fH100,pnosuch", "~1fH100,knever", "~1fH100,Z1", "~1n8"],
)  # fmt: skip
def test_a_forged_text_is_a_codec_error(text: str):
    with pytest.raises(WatchCodecError):
        decode(text)


@given(st.one_of(st.text(max_size=64), st.text(max_size=60).map(lambda text: "~1" + text)))
def test_any_text_is_a_watch_or_a_codec_error(text: str):
    try:
        watch = decode(text)
    except WatchCodecError:
        return
    assert decode(encode(watch) or "") == watch
