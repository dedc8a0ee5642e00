"""An in-process fake of the Telegram Bot API.

It lives in the production package because console mode (running the bot without a token) serves
the real app against it; the tests add fault injection and rate limits on top
(``tests/fakes/telegram.py``).
"""

from .html import (
    ParsedHtml,
    TelegramHtmlError,
    parse_telegram_html,
    parse_telegram_html_entities,
    utf16_len,
)
from .models import (
    ApiCall,
    ApiError,
    ApiRequest,
    InlineButton,
    PushedCallback,
    SentMessage,
    UploadedFile,
    UserMessage,
)
from .server import FakeBotApi

__all__ = [
    "ApiCall",
    "ApiError",
    "ApiRequest",
    "FakeBotApi",
    "InlineButton",
    "ParsedHtml",
    "PushedCallback",
    "SentMessage",
    "TelegramHtmlError",
    "UploadedFile",
    "UserMessage",
    "parse_telegram_html",
    "parse_telegram_html_entities",
    "utf16_len",
]
