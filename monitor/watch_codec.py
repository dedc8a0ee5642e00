"""A watch (`WatchFilter`) as a short versioned ASCII text, and back: what a notify-me
question's «Следить» button and a shared watch link carry, so that pressing or opening it
makes the watch directly and never reads /watch words again.

    encode(parse_watch("8x h100 max=600"))  -> "~1fH100,n8,m600"

The text is VERSION, then `<key><value>` items joined by ",", for the fields that are set
(kinds only when not the default for the filter). A GPU is its catalogue id or family (spaces
as "_"), a provider its id, a kind its value. A watch on a run (`fit_query`) or with a location
outside [A-Za-z0-9 ._-] has no text (None): its carrier keeps the /watch words
(monitor.watch_words.canonical), read by the legacy path. Decoding checks every field
(anyone can send any callback data) and raises WatchCodecError only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from estimator.stated_codec import StatedCodecError, read_family, read_gpu
from monitor.providers import PROVIDERS
from monitor.subscriptions import AlertKind, WatchFilter, default_kinds
from monitor.watch_words import WATCH_LIMITS, has_filter

VERSION = "~1"
TYPED_MARK = "~"  # what every version starts with, and no /watch words do
_NUMBER = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,6})?")
_LOCATION = re.compile(r"[A-Za-z0-9 ._-]{1,40}")


class WatchCodecError(ValueError):
    """A text that is not a watch of a version this code reads."""


def _number(limit: str, integer: bool = False) -> Callable[[str], float]:
    def read(raw: str) -> float:
        low, high = WATCH_LIMITS[limit]
        if not _NUMBER.fullmatch(raw) or not low <= float(raw) <= high:
            raise WatchCodecError(f"{limit}: not a number in {low:g}..{high:g}: {raw!r}")
        if integer and "." in raw:
            raise WatchCodecError(f"{limit}: not a whole number: {raw!r}")
        return int(raw) if integer else float(raw)

    return read


def _catalogue(read: Callable[[str], str]) -> Callable[[str], str]:
    """A GPU or family reader of estimator.stated_codec, its error made this codec's."""

    def checked(raw: str) -> str:
        try:
            return read(raw)
        except StatedCodecError as error:
            raise WatchCodecError(str(error)) from None

    return checked


def _providers(raw: str) -> frozenset[str]:
    names = raw.split("+")
    if any(name not in PROVIDERS.ids for name in names) or len(set(names)) != len(names):
        raise WatchCodecError(f"unknown or repeated providers: {raw!r}")
    return frozenset(names)


def _kinds(raw: str) -> frozenset[AlertKind]:
    try:
        return frozenset(AlertKind(word) for word in raw.split("+"))
    except ValueError:
        raise WatchCodecError(f"unknown alert kinds: {raw!r}") from None


def _location(raw: str) -> str:
    location = raw.replace("_", " ")
    if not _LOCATION.fullmatch(location) or not location.strip():
        raise WatchCodecError(f"not a location: {raw!r}")
    return location


# Key -> (WatchFilter field, reader). A key keeps its meaning within a version.
_FIELDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "g": ("gpu", _catalogue(read_gpu)),
    "f": ("family", _catalogue(read_family)),
    "n": ("min_count", _number("count", integer=True)),
    "v": ("min_vram_gb", _number("vram")),
    "t": ("min_total_vram_gb", _number("total_vram")),
    "m": ("max_rub_per_gpu_hour", _number("max")),
    "p": ("providers", _providers),
    "l": ("location", _location),
    "k": ("kinds", _kinds),
    "c": ("cooldown_s", _number("cooldown", integer=True)),
}


def _write(value: object) -> str:
    if isinstance(value, frozenset):
        return "+".join(sorted(str(item) for item in value))
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.6f}".rstrip("0")
    return str(value).replace(" ", "_")


def encode(watch: WatchFilter) -> str | None:
    """The text of `watch`, or None for one no text carries (a run, an unusual location)."""
    if watch.fit_query is not None or watch.job_hours is not None:
        return None
    if watch.location is not None and not _LOCATION.fullmatch(watch.location):
        return None
    items = []
    for key, (name, _) in _FIELDS.items():
        value = getattr(watch, name)
        if name == "kinds" and value == default_kinds(watch.max_rub_per_gpu_hour):
            continue
        if value is not None and value != frozenset():
            items.append(key + _write(value))
    text = VERSION + ",".join(items)
    try:
        return text if decode(text) == watch else None  # a value the text would round: words
    except WatchCodecError:
        return None  # a filter the grammar would refuse (nothing to match on)


def is_typed(text: str) -> bool:
    """Whether `text` is this format (of any version) rather than /watch words."""
    return text.startswith(TYPED_MARK)


def decode(text: str) -> WatchFilter:
    """The watch `text` carries; WatchCodecError for anything but a valid text of VERSION."""
    if not text.startswith(VERSION) or len(text) == len(VERSION):
        raise WatchCodecError(f"not a watch of version {VERSION}: {text[:8]!r}")
    fields: dict[str, Any] = {}
    for item in text[len(VERSION) :].split(","):
        key, raw = item[:1], item[1:]
        if key not in _FIELDS or _FIELDS[key][0] in fields:
            raise WatchCodecError(f"an unknown or repeated key in {item!r}")
        name, read = _FIELDS[key]
        fields[name] = read(raw)
    try:
        watch = WatchFilter(**fields)
    except ValueError as error:  # the filter's own checks (a price below zero, ...)
        raise WatchCodecError(str(error)) from None
    if not has_filter(watch):  # a count or a provider alone: as /watch refuses it
        raise WatchCodecError(f"a watch with nothing to match on: {text!r}")
    return watch
