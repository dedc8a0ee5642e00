"""Telegram's HTML parse mode, so the fake server accepts and rejects exactly what Telegram does.

The algorithm mirrors tdlib's ``parse_html`` (``td/telegram/MessageEntity.cpp``), which is what the
Bot API runs for ``parse_mode=HTML``: same tag set, same attribute grammar, same error texts and
byte offsets (UTF-8 bytes, as Telegram reports them); the tests replay cases from tdlib's own
``test/message_entities.cpp``.  The stdlib ``html.parser`` is not used on purpose: it accepts
unknown tags, bad nesting and stray ``<`` that Telegram rejects.  A bare ``>`` is fine, as in
Telegram.

One deliberate difference: with ``strict=True`` (the default) an ``&`` that does not start a
supported entity is an error.  Telegram itself keeps such an ``&`` as a literal, but its docs
require escaping it, and an unescaped ``&`` almost always means user or provider text was not
escaped -- the same text with a ``<`` in it would fail in production.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .entities import EntityBuilder, HtmlSemanticError

__all__ = [
    "ParsedHtml",
    "TelegramHtmlError",
    "parse_telegram_html",
    "parse_telegram_html_entities",
    "utf16_len",
]

# tdlib's is_space(): the NUL terminator counts as a space, which is how its loops stop at the end.
_SPACES = frozenset(" \t\r\n\0\v")
_END = "\0"
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ALLOWED_TAGS = frozenset(
    {
        "a", "b", "strong", "i", "em", "s", "strike", "del", "u", "ins",
        "tg-spoiler", "tg-emoji", "tg-time", "span", "pre", "code", "blockquote",
    }
)  # fmt: skip
_MAX_CODE_POINT = 0x10FFFF


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units: how Telegram counts message length and entity offsets."""
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


class TelegramHtmlError(ValueError):
    """The text does not parse; ``description`` is the Bot API error description."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.description = f"Bad Request: can't parse entities: {reason}"
        super().__init__(self.description)


@dataclass(frozen=True)
class ParsedHtml:
    """Plain text plus Bot API ``MessageEntity`` dicts (offsets in UTF-16 code units)."""

    text: str
    entities: list[dict[str, Any]] = field(default_factory=list)


def parse_telegram_html(text: str, *, strict: bool = True) -> str:
    """Return the message text Telegram would show, or raise :class:`TelegramHtmlError`."""
    return parse_telegram_html_entities(text, strict=strict).text


def parse_telegram_html_entities(text: str, *, strict: bool = True) -> ParsedHtml:
    """Parse like Telegram and also return the entities it would attach to the message."""
    return _Parser(text, strict).run()


def _is_space(ch: str) -> bool:
    return ch in _SPACES


def _ascii_lower(text: str) -> str:
    # tdlib's to_lower() only touches ASCII letters; str.lower() would fold non-ASCII too.
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def _is_ascii_alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


@dataclass
class _OpenTag:
    name: str
    utf16_offset: int
    text_index: int  # index into the output characters, to recover the inner text of <a>
    # Only the attributes that mean something to Telegram, under tdlib's names
    # ("href", "emoji-id", "language", "class", "expandable", "unix", "format").
    attributes: dict[str, str] = field(default_factory=dict)


class _Parser:
    def __init__(self, source: str, strict: bool) -> None:
        self.src = source
        self.strict = strict
        self.out: list[str] = []
        self.utf16 = 0
        self.stack: list[_OpenTag] = []
        self.builder = EntityBuilder()
        self.decoded_surrogate = False

    def at(self, i: int) -> str:
        return self.src[i] if i < len(self.src) else _END

    def byte_offset(self, i: int) -> int:
        return len(self.src[:i].encode("utf-8", "surrogatepass"))

    def emit(self, ch: str) -> None:
        self.out.append(ch)
        self.utf16 += 2 if ord(ch) > 0xFFFF else 1

    def run(self) -> ParsedHtml:
        i = 0
        while i < len(self.src):
            ch = self.src[i]
            if ch == "&":
                decoded = self.decode_entity(i)
                if decoded is not None:
                    self.emit(decoded[0])
                    i = decoded[1]
                    continue
                self.check_bare_ampersand(i)
            if ch != "<":
                self.emit(ch)
                i += 1
                continue
            i = self.end_tag(i) if self.at(i + 1) == "/" else self.start_tag(i)
        if self.stack:
            raise TelegramHtmlError(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1].name}"'
            )
        if self.decoded_surrogate:
            raise TelegramHtmlError(
                "Text contains invalid Unicode characters after decoding HTML entities, "
                "check for unmatched surrogate code units"
            )
        return ParsedHtml("".join(self.out), self.builder.entities())

    def check_bare_ampersand(self, i: int) -> None:
        if self.strict:
            raise TelegramHtmlError(
                f"Unsupported HTML entity at byte offset {self.byte_offset(i)} "
                '(escape a bare "&" as "&amp;")'
            )

    def decode_entity(self, pos: int) -> tuple[str, int] | None:
        """Decode ``&...;`` at ``pos`` like tdlib (``;`` optional); None if it is no entity."""
        end = pos + 1
        if self.at(end) == "#":
            end += 1
            code = 0
            hexadecimal = self.at(end) == "x"
            if hexadecimal:
                end += 1
            digits = "0123456789abcdefABCDEF" if hexadecimal else "0123456789"
            while self.at(end) in digits and self.at(end) != _END:
                code = code * (16 if hexadecimal else 10) + int(self.at(end), 16)
                end += 1
                if code >= _MAX_CODE_POINT:
                    return None
            if code == 0 or end - pos >= 10:
                return None
            if 0xD800 <= code <= 0xDFFF:
                self.decoded_surrogate = True  # tdlib decodes it, then rejects the text
            ch = chr(code)
        else:
            while self.at(end).isascii() and self.at(end).isalpha():
                end += 1
            named = _NAMED_ENTITIES.get(self.src[pos + 1 : end])
            if named is None:
                return None
            ch = named
        if self.at(end) == ";":
            end += 1
        return ch, end

    def skip_spaces(self, i: int) -> int:
        while self.at(i) != _END and _is_space(self.at(i)):
            i += 1
        return i

    def start_tag(self, begin: int) -> int:
        at = self.at
        b = self.byte_offset(begin)
        i = begin + 1
        while not _is_space(at(i)) and at(i) != ">":
            i += 1
        if at(i) == _END:
            raise TelegramHtmlError(f"Unclosed start tag at byte offset {b}")
        tag = _ascii_lower(self.src[begin + 1 : i])
        if tag not in _ALLOWED_TAGS:
            raise TelegramHtmlError(f'Unsupported start tag "{tag}" at byte offset {b}')
        opened = _OpenTag(tag, self.utf16, len(self.out))
        while at(i) != ">":
            i = self.skip_spaces(i)
            if at(i) == ">":
                break
            name_begin = i
            while not _is_space(at(i)) and at(i) not in "=>":
                i += 1
            name = self.src[name_begin:i]
            if not name:
                raise TelegramHtmlError(
                    f'Empty attribute name in the tag "{tag}" at byte offset {b}'
                )
            i = self.skip_spaces(i)
            if at(i) != "=":
                # A bare attribute: only <blockquote expandable> means anything.
                _keep_attribute(opened, name, "")
                continue
            i = self.skip_spaces(i + 1)
            if at(i) == _END:
                raise TelegramHtmlError(f'Unclosed start tag "{tag}" at byte offset {b}')
            value, i = self.attribute_value(i)
            if at(i) == _END:
                raise TelegramHtmlError(f"Unclosed start tag at byte offset {b}")
            _keep_attribute(opened, name, value)
        if tag == "span" and opened.attributes.get("class") != "tg-spoiler":
            raise TelegramHtmlError(f'Tag "span" must have class "tg-spoiler" at byte offset {b}')
        self.stack.append(opened)
        return i + 1

    def attribute_value(self, i: int) -> tuple[str, int]:
        at = self.at
        if at(i) not in "'\"":
            # An unquoted name token: letters, digits, '.' and '-', case-insensitive.
            token_begin = i
            while _is_ascii_alnum(at(i)) or at(i) in ".-":
                i += 1
            if not _is_space(at(i)) and at(i) != ">":
                raise TelegramHtmlError(
                    f"Unexpected end of name token at byte offset {self.byte_offset(token_begin)}"
                )
            return _ascii_lower(self.src[token_begin:i]), i
        quote = at(i)
        i += 1
        chunks: list[str] = []
        while at(i) != quote and at(i) != _END:
            if at(i) == "&":
                decoded = self.decode_entity(i)
                if decoded is not None:
                    chunks.append(decoded[0])
                    i = decoded[1]
                    continue
                self.check_bare_ampersand(i)
            chunks.append(at(i))
            i += 1
        if at(i) == quote:
            i += 1
        return "".join(chunks), i

    def end_tag(self, begin: int) -> int:
        at = self.at
        b = self.byte_offset(begin)
        if not self.stack:
            raise TelegramHtmlError(f"Unexpected end tag at byte offset {b}")
        i = begin + 2
        while not _is_space(at(i)) and at(i) != ">":
            i += 1
        end_name = self.src[begin + 2 : i]
        while _is_space(at(i)) and at(i) != _END:
            i += 1
        if at(i) != ">":
            raise TelegramHtmlError(f"Unclosed end tag at byte offset {b}")
        opened = self.stack[-1]
        # tdlib compares the end tag as written: "</B>" does not close "<b>".
        if end_name and end_name != opened.name:
            raise TelegramHtmlError(
                f'Unmatched end tag at byte offset {b}, expected "</{opened.name}>", '
                f'found "</{end_name}>"'
            )
        self.stack.pop()
        try:
            self.builder.close(
                opened.name,
                opened.attributes,
                opened.utf16_offset,
                self.utf16 - opened.utf16_offset,
                "".join(self.out[opened.text_index :]),
            )
        except HtmlSemanticError as error:
            raise TelegramHtmlError(str(error)) from None
        return i + 1


# (tag, attribute) pairs Telegram reads; attribute names are case-sensitive in tdlib.
_MEANINGFUL = frozenset(
    {
        ("a", "href"),
        ("code", "class"),
        ("span", "class"),
        ("tg-emoji", "emoji-id"),
        ("blockquote", "expandable"),
        ("tg-time", "unix"),
        ("tg-time", "format"),
    }
)


def _keep_attribute(opened: _OpenTag, name: str, value: str) -> None:
    if (opened.name, name) not in _MEANINGFUL:
        return
    if name == "class" and opened.name == "code":
        if value.startswith("language-"):
            opened.attributes["language"] = value.removeprefix("language-")
        return
    opened.attributes[name] = value
