"""Links people can share: t.me/<bot>?start=<payload> opens a prepared watch or sizing.

Telegram allows a /start payload of at most 64 characters of [A-Za-z0-9_-]
(core.telegram.org/api/links#bot-links). A payload is

    <kind><version><packing><day>_<body>

- kind: "w" a watch, "f" a sizing;
- version: "2", the typed value's own versioned text (a sizing: estimator.stated_codec, a
  watch: monitor.watch_codec);
  "1", the command words (canonical /watch words, a /fit command): links from before, and
  a watch on a run, which no text carries; opened through the grammar. A payload of another
  version is answered as stale, never misread;
- packing: "p" the text as UTF-8, "z" raw-deflated (whichever is shorter);
- day: the day it was made, days since 2026-01-01 in base 36 (3 characters): a link older
  than MAX_AGE is stale, since the prices it was made to ask about have moved on;
- body: base64url without padding.

Nothing is stored: the link carries its value, and opening it decodes the value with its
codec, which checks every field, so a forged payload gets an answer, not a crash.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from dataclasses import dataclass
from datetime import date, timedelta
from enum import StrEnum
from typing import Literal
from urllib.parse import quote

PAYLOAD_LIMIT = 64
VERSION = "2"
WORDS_VERSION = "1"  # links made before the typed texts: command words
EPOCH = date(2026, 1, 1)
# A quarter: watches and sizings stay meaningful that long, while the prices and stock they
# were shared about rarely do for longer.
MAX_AGE = timedelta(days=90)
_DAY_CHARS = 3  # base 36: 46 655 days from the epoch
_PAYLOAD = re.compile(
    r"^(?P<kind>[a-z])(?P<version>[0-9])(?P<packing>[a-z])(?P<day>[0-9a-z]{3})_(?P<body>[A-Za-z0-9_-]+)$"
)


class LinkKind(StrEnum):
    WATCH = "w"
    SIZING = "f"


@dataclass(frozen=True)
class SharedLink:
    kind: LinkKind
    text: str
    words: bool = False  # a WORDS_VERSION link: `text` is command words, read by the grammar


class DeepLinkError(ValueError):
    """A payload that opens nothing. `code`: malformed, too_long or stale."""

    def __init__(self, code: Literal["malformed", "too_long", "stale"]) -> None:
        super().__init__(code)
        self.code = code


def encode_link(kind: LinkKind, text: str, *, today: date, version: str = VERSION) -> str | None:
    """The payload for `text`, or None when even packed it exceeds Telegram's 64."""
    raw = text.encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(raw) + packer.flush()
    packing, body = ("z", packed) if len(packed) < len(raw) else ("p", raw)
    day = _base36((today - EPOCH).days).rjust(_DAY_CHARS, "0")
    encoded = base64.urlsafe_b64encode(body).decode().rstrip("=")
    payload = f"{kind.value}{version}{packing}{day}_{encoded}"
    return payload if len(payload) <= PAYLOAD_LIMIT else None


def decode_link(payload: str, *, today: date) -> SharedLink:
    """The link's kind and text; DeepLinkError for anything else."""
    if len(payload) > PAYLOAD_LIMIT:
        raise DeepLinkError("too_long")
    match = _PAYLOAD.match(payload)
    if match is None or match["kind"] not in {kind.value for kind in LinkKind}:
        raise DeepLinkError("malformed")
    if match["version"] not in (VERSION, WORDS_VERSION):
        raise DeepLinkError("stale")
    body = match["body"]
    try:
        data = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        if match["packing"] == "z":
            unpacker = zlib.decompressobj(-15)
            data = unpacker.decompress(data, 4 * PAYLOAD_LIMIT)
            if unpacker.unconsumed_tail or not unpacker.eof:
                raise DeepLinkError("malformed")
        elif match["packing"] != "p":
            raise DeepLinkError("malformed")
        text = data.decode()
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError):
        raise DeepLinkError("malformed") from None
    if not text.strip() or any(ch in text for ch in "\n\r\x00"):
        raise DeepLinkError("malformed")
    made = EPOCH + timedelta(days=int(match["day"], 36))
    if today - made > MAX_AGE or made > today + timedelta(days=1):
        raise DeepLinkError("stale")
    return SharedLink(LinkKind(match["kind"]), text, words=match["version"] == WORDS_VERSION)


def share_sheet(
    bot_username: str, kind: LinkKind, value: str, text: str, *, today: date, version: str = VERSION
) -> str | None:
    """Telegram's share sheet (core.telegram.org/widgets/share) with a line of `text` and the
    /start link that opens `value`; None when it does not fit in a link."""
    payload = encode_link(kind, value, today=today, version=version)
    if payload is None:
        return None
    link = f"https://t.me/{bot_username}?start={payload}"
    return f"https://t.me/share/url?url={quote(link, safe='')}&text={quote(text, safe='')}"


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if number == 0:
            return out
