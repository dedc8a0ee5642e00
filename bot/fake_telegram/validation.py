"""Parameter checks with the error descriptions Telegram answers (400 Bad Request).

Where the real description is known it is copied verbatim ("message is too long",
"BUTTON_DATA_INVALID", ...); the few invented ones keep Telegram's style.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from .html import ParsedHtml, TelegramHtmlError, parse_telegram_html_entities, utf16_len
from .models import ApiError

__all__ = [
    "CALLBACK_ANSWER_LIMIT",
    "CALLBACK_DATA_LIMIT",
    "CAPTION_LIMIT",
    "TEXT_LIMIT",
    "parse_bool",
    "parse_chat_id",
    "parse_int",
    "parse_json",
    "parse_reply_markup",
    "render_text",
    "same_markup",
]

TEXT_LIMIT = 4096  # UTF-16 code units after entity parsing
CAPTION_LIMIT = 1024
CALLBACK_ANSWER_LIMIT = 200
CALLBACK_DATA_LIMIT = 64  # bytes of UTF-8
KEYBOARD_BUTTON_LIMIT = 100

# Fields of InlineKeyboardButton that make it do something; exactly one must be present.
INLINE_BUTTON_ACTIONS = (
    "callback_data",
    "url",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
_BUTTON_URL_SCHEMES = frozenset({"http", "https", "tg"})


def bad(detail: str) -> ApiError:
    return ApiError.bad_request(detail)


def parse_chat_id(params: dict[str, str]) -> int:
    raw = params.get("chat_id", "")
    if not raw:
        raise bad("chat_id is empty")
    try:
        chat_id = int(raw)
    except ValueError:
        # "@channelusername" is valid Bot API syntax, but the fake knows no public chats.
        raise bad("chat not found") from None
    if chat_id == 0:
        raise bad("chat not found")
    return chat_id


def parse_int(params: dict[str, str], name: str) -> int | None:
    """An optional integer parameter."""
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise bad(f'invalid value of parameter "{name}"') from None


def parse_bool(params: dict[str, str], name: str) -> bool:
    return params.get(name, "").lower() in ("true", "1")


def parse_json(params: dict[str, str], name: str) -> Any:
    raw = params.get(name)
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        raise bad(f"can't parse {name} JSON object") from None


def render_text(
    params: dict[str, str], field: str, *, limit: int, required: bool, strict_html: bool
) -> ParsedHtml:
    """Parse ``text``/``caption`` with its parse mode and check its length like Telegram.

    Only HTML is really parsed; Markdown text is taken as is (the bot uses HTML).
    """
    text = params.get(field, "")
    mode = params.get("parse_mode", "").lower()
    prefix = "" if field == "text" else "caption_"
    if mode == "html":
        try:
            parsed = parse_telegram_html_entities(text, strict=strict_html)
        except TelegramHtmlError as error:
            raise ApiError(400, error.description) from None
    elif mode in ("", "markdown", "markdownv2"):
        entities = parse_json(params, f"{prefix}entities") if not mode else None
        if entities is not None and not isinstance(entities, list):
            raise bad("can't parse entities JSON object")
        parsed = ParsedHtml(text, entities or [])
    else:
        raise bad("unsupported parse_mode")
    if required and not parsed.text.strip():
        raise bad("message text is empty")
    if utf16_len(parsed.text) > limit:
        raise bad("message is too long" if field == "text" else "message caption is too long")
    return parsed


def parse_reply_markup(
    params: dict[str, str], *, inline_only: bool, private: bool
) -> dict[str, Any] | None:
    """Validate ``reply_markup``; None when absent. Edits accept inline keyboards only;
    web_app buttons only in `private` chats (Bot API, InlineKeyboardButton.web_app)."""
    raw = params.get("reply_markup")
    if raw is None:
        return None
    try:
        markup = json.loads(raw)
    except ValueError:
        raise bad("can't parse reply keyboard markup JSON object") from None
    if not isinstance(markup, dict):
        raise bad("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        _check_inline_keyboard(markup["inline_keyboard"], private=private)
        return markup
    if inline_only:
        raise bad("inline keyboard expected")
    if "keyboard" in markup:
        _check_reply_keyboard(markup["keyboard"])
    elif markup.get("remove_keyboard") is not True and markup.get("force_reply") is not True:
        raise bad("can't parse reply keyboard markup JSON object")
    return markup


def same_markup(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Markup equality for "message is not modified": no keyboard == an empty keyboard."""

    def norm(markup: dict[str, Any] | None) -> dict[str, Any] | None:
        return markup if markup and markup.get("inline_keyboard") else None

    return norm(a) == norm(b)


def _rows(keyboard: Any, name: str) -> list[list[Any]]:
    if not isinstance(keyboard, list) or not all(isinstance(row, list) for row in keyboard):
        raise bad(f'field "{name}" of the {_markup_type(name)} must be an Array of Arrays')
    if sum(len(row) for row in keyboard) > KEYBOARD_BUTTON_LIMIT:
        raise bad("reply markup is too long")
    return keyboard


def _markup_type(name: str) -> str:
    return "InlineKeyboardMarkup" if name == "inline_keyboard" else "ReplyKeyboardMarkup"


def _check_inline_keyboard(keyboard: Any, *, private: bool) -> None:
    for row in _rows(keyboard, "inline_keyboard"):
        for button in row:
            _check_inline_button(button, private=private)


def _check_inline_button(button: Any, *, private: bool) -> None:
    def invalid(detail: str) -> ApiError:
        return bad(f"can't parse inline keyboard button: {detail}")

    if not isinstance(button, dict):
        raise invalid("InlineKeyboardButton must be an Object")
    text = button.get("text")
    if not isinstance(text, str):
        raise invalid('Field "text" must be of type String')
    if not text.strip():
        raise invalid("button text must be non-empty")
    actions = [name for name in INLINE_BUTTON_ACTIONS if button.get(name) is not None]
    if not actions:
        raise invalid("Text buttons are unallowed in the inline keyboard")
    if len(actions) > 1:
        raise invalid(f"exactly one of the optional fields must be used, got {actions}")
    data = button.get("callback_data")
    if data is not None and (
        not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= CALLBACK_DATA_LIMIT
    ):
        raise bad("BUTTON_DATA_INVALID")
    url = button.get("url")
    if url is not None and not _valid_button_url(url):
        raise bad("BUTTON_URL_INVALID")
    web_app = button.get("web_app")
    if web_app is not None:
        if not private:
            raise bad("BUTTON_TYPE_INVALID")
        # A Mini App opens over https only (Bot API, WebAppInfo.url).
        address = web_app.get("url") if isinstance(web_app, dict) else None
        if not isinstance(address, str) or not address.lower().startswith("https://"):
            raise bad("BUTTON_URL_INVALID")


def _valid_button_url(url: Any) -> bool:
    if not isinstance(url, str):
        return False
    parts = urlsplit(url)
    if parts.scheme.lower() not in _BUTTON_URL_SCHEMES:
        return False
    return parts.scheme.lower() == "tg" or bool(parts.hostname)


def _check_reply_keyboard(keyboard: Any) -> None:
    for row in _rows(keyboard, "keyboard"):
        for button in row:
            text = button.get("text") if isinstance(button, dict) else button
            if not isinstance(text, str) or not text.strip():
                raise bad("can't parse keyboard button: button text must be non-empty")
