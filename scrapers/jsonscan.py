"""`json.loads` for big provider answers, decoded row by row.

The C decoder holds the GIL for the whole document: 5 MB in one `json.loads` call, even in a
worker thread, stops the event loop for as long as the call takes. Provider answers are one
big array of small rows (`{"result": [...]}`, `{"prices": [...]}`, `[...]`), so `loads` walks
the top-level container and any container directly inside it, and hands each row to the C
decoder alone: the GIL can change hands between rows. The result is exactly `json.loads`'s,
and the cost stays linear in the input.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Containers at these depths are walked; deeper ones are decoded whole (they are one row).
_WALKED_DEPTHS = 2
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def loads(data: bytes | str) -> Any:
    """Decode JSON text; raises ValueError (json.JSONDecodeError or UnicodeDecodeError) as
    json.loads would."""
    text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    value, end = _value(text, _skip(text, 0), 0)
    end = _skip(text, end)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return pos if match is None else match.end()


def _value(text: str, pos: int, depth: int) -> tuple[Any, int]:
    if depth < _WALKED_DEPTHS:
        if text.startswith("[", pos):
            return _array(text, pos + 1, depth + 1)
        if text.startswith("{", pos):
            return _object(text, pos + 1, depth + 1)
    try:
        return _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # raw_decode says "StopIteration" at the end of the text
        raise json.JSONDecodeError("Expecting value", text, pos) from error


def _array(text: str, pos: int, depth: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    pos = _skip(text, pos)
    if text.startswith("]", pos):
        return items, pos + 1
    while True:
        item, pos = _value(text, pos, depth)
        items.append(item)
        closed, pos = _after_item(text, pos, "]")
        if closed:
            return items, pos


def _object(text: str, pos: int, depth: int) -> tuple[dict[str, Any], int]:
    found: dict[str, Any] = {}
    pos = _skip(text, pos)
    if text.startswith("}", pos):
        return found, pos + 1
    while True:
        if not text.startswith('"', pos):
            raise json.JSONDecodeError(
                "Expecting property name enclosed in double quotes", text, pos
            )
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, pos)
        if not text.startswith(":", pos):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
        found[key], pos = _value(text, _skip(text, pos + 1), depth)
        closed, pos = _after_item(text, pos, "}")
        if closed:
            return found, pos


def _after_item(text: str, pos: int, close: str) -> tuple[bool, int]:
    """After an array item or an object member: (closed, where the next thing starts)."""
    pos = _skip(text, pos)
    if text.startswith(",", pos):
        return False, _skip(text, pos + 1)
    if text.startswith(close, pos):
        return True, pos + 1
    raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
