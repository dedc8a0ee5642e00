"""Turning closed HTML tags into Bot API ``MessageEntity`` dicts, as tdlib does.

Split from the tokenizer in :mod:`bot.fake_telegram.html`: this half decides what an element
means (links, custom emoji, pre/code languages, dates), that half decides whether it parses.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["EntityBuilder", "HtmlSemanticError"]

_SIMPLE_TYPES = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "u": "underline",
    "ins": "underline",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
}
# tdlib orders entities by offset, longer first, then by this priority (lower first).
_PRIORITY = {
    "blockquote": 0,
    "expandable_blockquote": 0,
    "pre": 11,
    "code": 20,
    "text_link": 49,
    "text_mention": 49,
    "date_time": 50,
    "bold": 90,
    "italic": 91,
    "underline": 92,
    "strikethrough": 93,
    "spoiler": 94,
    "custom_emoji": 99,
}
_TIME_FORMAT_RE = re.compile(r"r|[tTdDwW]*")
_USER_LINK_RE = re.compile(r"tg://user\?id=(\d+)")
_LINK_SCHEMES = frozenset({"http", "https", "tg", "ton"})


class HtmlSemanticError(ValueError):
    """A well-formed element Telegram still refuses (a bad custom emoji id, a bad time format)."""


def normalize_url(url: str) -> str | None:
    """What tdlib's link check makes of an href: ``telegram.org`` -> ``http://telegram.org/``.

    None means Telegram keeps the text but silently drops the link.
    """
    if not url or any(ch.isspace() for ch in url):
        return None
    if "://" not in url and not url.lower().startswith("tg:"):
        url = "http://" + url
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _LINK_SCHEMES:
        return None
    if scheme in ("http", "https"):
        host = parts.hostname or ""
        if "." not in host and host != "localhost":
            return None
        return urlunsplit((scheme, parts.netloc, parts.path or "/", parts.query, parts.fragment))
    return url


class EntityBuilder:
    """Collects entities as tags close; ``entities()`` returns them in tdlib's order."""

    def __init__(self) -> None:
        self._entities: list[dict[str, Any]] = []
        # The entity of the last <code class="language-..."> and its language: a <pre> with the
        # same span (around or inside it) merges with it into one "pre" with a language.
        self._code_language: tuple[dict[str, Any], str] | None = None

    def entities(self) -> list[dict[str, Any]]:
        return sorted(
            self._entities,
            key=lambda e: (e["offset"], -e["length"], _PRIORITY.get(e["type"], 50)),
        )

    def close(
        self,
        tag: str,
        attributes: dict[str, str],
        offset: int,
        length: int,
        inner_text: str,
    ) -> None:
        """Record the entity of a closed element (``attributes`` as tdlib keeps them)."""
        if tag == "tg-emoji":
            emoji_id = attributes.get("emoji-id", "")
            if not emoji_id.isdigit() or not 0 < int(emoji_id) < 2**63:
                raise HtmlSemanticError("Invalid custom emoji identifier specified")
        if tag == "tg-time":
            time_format = attributes.get("format", "")
            if not _TIME_FORMAT_RE.fullmatch(time_format):
                raise HtmlSemanticError("Invalid date format used")
        if length <= 0:
            return  # tdlib drops empty entities
        entity = self._entity(tag, attributes, offset, length, inner_text)
        if entity is not None:
            self._entities.append(entity)

    def _entity(
        self, tag: str, attributes: dict[str, str], offset: int, length: int, inner_text: str
    ) -> dict[str, Any] | None:
        span: dict[str, Any] = {"offset": offset, "length": length}
        if tag in _SIMPLE_TYPES:
            return {"type": _SIMPLE_TYPES[tag], **span}
        if tag == "a":
            url = normalize_url(attributes.get("href") or inner_text)
            if url is None:
                return None
            if user := _USER_LINK_RE.fullmatch(url):
                user_object = {"id": int(user[1]), "is_bot": False, "first_name": ""}
                return {"type": "text_mention", **span, "user": user_object}
            return {"type": "text_link", **span, "url": url}
        if tag == "tg-emoji":
            return {"type": "custom_emoji", **span, "custom_emoji_id": attributes["emoji-id"]}
        if tag == "tg-time":
            unix = attributes.get("unix", "")
            if not unix.isdigit() or int(unix) == 0:
                return None  # no usable time: the text stays, the entity goes
            entity = {"type": "date_time", **span, "unix_time": int(unix)}
            if attributes.get("format"):
                entity["date_time_format"] = attributes["format"]
            return entity
        if tag in ("code", "pre"):
            return self._code_or_pre(tag, attributes.get("language", ""), span)
        expandable = "expandable" in attributes
        return {"type": "expandable_blockquote" if expandable else "blockquote", **span}

    def _code_or_pre(self, tag: str, language: str, span: dict[str, Any]) -> dict[str, Any] | None:
        last = self._entities[-1] if self._entities else None
        same_span = last is not None and (last["offset"], last["length"]) == (
            span["offset"],
            span["length"],
        )
        if tag == "code":
            entity = {"type": "code", **span}
            if language and same_span and last is not None and last["type"] == "pre":
                last.setdefault("language", language)  # <code class=language-x><pre>..</></>
                return None
            self._code_language = (entity, language) if language else None
            return entity
        code = self._code_language
        if same_span and code is not None and last is code[0]:
            self._entities.pop()  # <pre><code class="language-x">..</code></pre>
            return {"type": "pre", **span, "language": code[1]}
        return {"type": "pre", **span}
