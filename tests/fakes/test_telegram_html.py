"""The fake Telegram: HTML parsing as Telegram (tdlib) does it."""

import html
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.fake_telegram import (
    TelegramHtmlError,
    parse_telegram_html,
    parse_telegram_html_entities,
    utf16_len,
)
from tests.fakes.helpers import ERR


@pytest.mark.parametrize(
    ("source", "plain"),
    [
        ("plain text", "plain text"),
        ("<b>bold</b> <strong>s</strong> <i>i</i><em>e</em>", "bold s ie"),
        ("<u>u</u><ins>i</ins><s>s</s><strike>k</strike><del>d</del>", "uiskd"),
        ('<span class="tg-spoiler">x</span><tg-spoiler>y</tg-spoiler>', "xy"),
        ('<a href="https://example.com/?a=1&amp;b=2">link</a>', "link"),
        ('<tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>', "👍"),
        ('<pre><code class="language-python">x = 1</code></pre>', "x = 1"),
        ("<blockquote>q</blockquote><blockquote expandable>e</blockquote>", "qe"),
        ('<tg-time unix="1647531900" format="wDT">22:45</tg-time>', "22:45"),
        ("&lt;tag&gt; &amp; &quot;quoted&quot;", '<tag> & "quoted"'),
        ("&#65;&#x42;&#128512;", "AB😀"),
        ("&lt no semicolon", "< no semicolon"),  # tdlib makes ';' optional
        ("a > b", "a > b"),  # a bare '>' is fine for Telegram
        ("<B>upper</b>", "upper"),
        ("<b class>bare attributes are ignored</b>", "bare attributes are ignored"),
        ("<b><i>nested</i></b>", "nested"),
        ("<b>closed by empty end tag</>", "closed by empty end tag"),
    ],
)
def test_html_parses_like_telegram(source: str, plain: str) -> None:
    assert parse_telegram_html(source) == plain


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("<div>x</div>", 'Unsupported start tag "div" at byte offset 0'),
        ("<br/>", 'Unsupported start tag "br/" at byte offset 0'),
        ("a < b", 'Unsupported start tag "" at byte offset 2'),
        ("привет <p>", 'Unsupported start tag "p" at byte offset 13'),  # UTF-8 bytes
        ("<b>bold", 'Can\'t find end tag corresponding to start tag "b"'),
        ("text</b>", "Unexpected end tag at byte offset 4"),
        (
            "<b><i>x</b></i>",
            'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"',
        ),
        ("x <b", "Unclosed start tag at byte offset 2"),
        ("<b>x</b", "Unclosed end tag at byte offset 4"),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ("<a href=https://x.y>l</a>", "Unexpected end of name token at byte offset 8"),
        ("<i   =x>", 'Empty attribute name in the tag "i" at byte offset 0'),
        ("<B>x</B>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</B>"'),
        (
            "&#xDFDF;",
            "Text contains invalid Unicode characters after decoding HTML entities, "
            "check for unmatched surrogate code units",
        ),
        ('<tg-time unix="1" format="rt">x</tg-time>', "Invalid date format used"),
        ('<tg-emoji emoji-id="abc">x</tg-emoji>', "Invalid custom emoji identifier specified"),
        ("Tom & Jerry", 'Unsupported HTML entity at byte offset 4 (escape a bare "&" as "&amp;")'),
        ("&nbsp;", 'Unsupported HTML entity at byte offset 0 (escape a bare "&" as "&amp;")'),
        ("&#0;", 'Unsupported HTML entity at byte offset 0 (escape a bare "&" as "&amp;")'),
    ],
)
def test_html_rejects_like_telegram(source: str, error: str) -> None:
    with pytest.raises(TelegramHtmlError) as caught:
        parse_telegram_html(source)
    assert caught.value.description == ERR + error


# Cases from tdlib's test/message_entities.cpp (check_parse_html), the parser behind the Bot API.
# tdlib keeps an unknown "&..." as text, so these run with strict=False.
def ent(kind: str, offset: int, length: int, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "offset": offset, "length": length, **extra}


TDLIB_CASES: list[tuple[str, str, list[dict[str, Any]]]] = [
    ("🏟 🏟<i>🏟 &lt🏟</i>", "🏟 🏟🏟 <🏟", [ent("italic", 5, 6)]),
    (
        "🏟 🏟<i>🏟 &gt;<b aba   =   caba>&lt🏟</b></i>",
        "🏟 🏟🏟 ><🏟",
        [ent("italic", 5, 7), ent("bold", 9, 3)],
    ),
    ("🏟 🏟&lt;<i    aba  =  190azAz-.   >a</i>", "🏟 🏟<a", [ent("italic", 6, 1)]),
    ("🏟 🏟&lt;<i    aba  =  '&lt;&gt;&quot;'>a</>", "🏟 🏟<a", [ent("italic", 6, 1)]),
    ("🏟 🏟&lt;<i>a</    >", "🏟 🏟<a", [ent("italic", 6, 1)]),
    ("🏟 🏟&lt;<b></b>", "🏟 🏟<", []),
    ("&ge;&lt;&gt;&amp;&quot;&laquo;&raquo;&#12345678;", '&ge;<>&"&laquo;&raquo;&#12345678;', []),
    (
        '➡️ ➡️<span class = "tg-spoiler">➡️ ➡️</span><b>➡️ ➡️</b>',
        "➡️ ➡️➡️ ➡️➡️ ➡️",
        [ent("spoiler", 5, 5), ent("bold", 10, 5)],
    ),
    ("<a href=telegram.org>\t</a>", "\t", [ent("text_link", 0, 1, url="http://telegram.org/")]),
    (
        "<a   href=  'telegram.org?&lt;'   > </a>",
        " ",
        [ent("text_link", 0, 1, url="http://telegram.org/?<")],
    ),
    ("<a> </a>", " ", []),
    ("<a>telegram.org </a>", "telegram.org ", []),
    (
        "<a>https://telegram.org/asdsa?asdasdwe#12e3we</a>",
        "https://telegram.org/asdsa?asdasdwe#12e3we",
        [ent("text_link", 0, 42, url="https://telegram.org/asdsa?asdasdwe#12e3we")],
    ),
    (
        "<code><i><b> </b></i></code><i><b><code> </code></b></i>",
        "  ",
        [ent(kind, offset, 1) for offset in (0, 1) for kind in ("code", "bold", "italic")],
    ),
    (
        "🏟 🏟&lt;<pre><code>🏟 🏟&lt;</code></>",
        "🏟 🏟<🏟 🏟<",
        [ent("pre", 6, 6), ent("code", 6, 6)],
    ),
    (
        '🏟 🏟&lt;<pre><code class="language-fift">🏟 🏟&lt;</></>',
        "🏟 🏟<🏟 🏟<",
        [ent("pre", 6, 6, language="fift")],
    ),
    (
        '🏟 🏟&lt;<code class="language-fift"><pre>🏟 🏟&lt;</></>',
        "🏟 🏟<🏟 🏟<",
        [ent("pre", 6, 6, language="fift")],
    ),
    (
        '🏟 🏟&lt;<pre><code class="language-fift">🏟 🏟&lt;</> </>',
        "🏟 🏟<🏟 🏟< ",
        [ent("pre", 6, 7), ent("code", 6, 6)],
    ),
    (
        '🏟 🏟<b aba   =   caba><tg-emoji emoji-id="1">🏟</tg-emoji>1</b>',
        "🏟 🏟🏟1",
        [ent("bold", 5, 3), ent("custom_emoji", 5, 2, custom_emoji_id="1")],
    ),
    (
        '<blockquote   cite="" askdlbas nasjdbaj nj12b3>a&lt;<pre  >b;</></>',
        "a<b;",
        [ent("blockquote", 0, 4), ent("pre", 2, 2)],
    ),
    (
        "<blockquote   expandable=false>a&lt;<pre  >b;</></>",
        "a<b;",
        [ent("expandable_blockquote", 0, 4), ent("pre", 2, 2)],
    ),
]


@pytest.mark.parametrize(("source", "text", "entities"), TDLIB_CASES)
def test_html_matches_tdlib_cases(source: str, text: str, entities: list[dict[str, Any]]) -> None:
    parsed = parse_telegram_html_entities(source, strict=False)
    assert (parsed.text, parsed.entities) == (text, entities)


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("🏟 🏟&lt;<abacaba", "Unclosed start tag at byte offset 13"),
        ("🏟 🏟&lt;<abac aba>", 'Unsupported start tag "abac" at byte offset 13'),
        ("🏟 🏟&lt;<i    aba>", 'Can\'t find end tag corresponding to start tag "i"'),
        ("🏟 🏟&lt;<i    aba  =  ", 'Unclosed start tag "i" at byte offset 13'),
        ("🏟 🏟&lt;<i    aba  =  190azAz-.,", "Unexpected end of name token at byte offset 27"),
        ('🏟 🏟&lt;<i    aba  =  "&lt;&gt;&quot;>', "Unclosed start tag at byte offset 13"),
        ("🏟 🏟&lt;<b></b></", "Unexpected end tag at byte offset 20"),
        ("🏟 🏟&lt;<i>a</i   ", "Unclosed end tag at byte offset 17"),
        (
            "🏟 🏟&lt;<i>a</em   >",
            'Unmatched end tag at byte offset 17, expected "</i>", found "</em>"',
        ),
    ],
)
def test_html_errors_match_tdlib_cases(source: str, error: str) -> None:
    with pytest.raises(TelegramHtmlError) as caught:
        parse_telegram_html(source, strict=False)
    assert caught.value.reason == error


def test_html_bare_ampersand_is_literal_when_not_strict() -> None:
    assert parse_telegram_html("Tom & Jerry &nbsp;", strict=False) == "Tom & Jerry &nbsp;"


def test_html_entities_use_utf16_offsets() -> None:
    parsed = parse_telegram_html_entities('😀 <b>bold</b> <a href="https://x.y">l</a>')
    assert parsed.text == "😀 bold l"
    assert parsed.entities == [
        {"type": "bold", "offset": 3, "length": 4},
        {"type": "text_link", "offset": 8, "length": 1, "url": "https://x.y/"},
    ]


def test_html_pre_with_language_becomes_one_entity() -> None:
    parsed = parse_telegram_html_entities('<pre><code class="language-py">x</code></pre>')
    assert parsed.entities == [{"type": "pre", "offset": 0, "length": 1, "language": "py"}]


def test_utf16_len_counts_surrogate_pairs() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len("😀") == 2
    assert utf16_len("я") == 1


@given(st.text())
def test_escaped_text_round_trips(text: str) -> None:
    assert parse_telegram_html(html.escape(text, quote=False)) == text
