"""Plain data the fake Bot API records and hands to tests: requests, calls, errors, messages."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ApiCall",
    "ApiError",
    "ApiRequest",
    "InlineButton",
    "PushedCallback",
    "SentMessage",
    "UploadedFile",
    "UserMessage",
]


@dataclass(frozen=True)
class UploadedFile:
    """One multipart file part (aiogram sends ``photo=attach://<key>`` plus a part named key)."""

    name: str  # the form field name of the part
    filename: str | None
    content_type: str
    data: bytes


@dataclass(frozen=True)
class ApiRequest:
    """What the client asked for, before the server decided the answer."""

    method: str  # canonical camelCase name ("sendMessage") for known methods, else as sent
    params: dict[str, str]  # every value as a string, exactly like aiogram's form encoding
    files: dict[str, UploadedFile]
    token: str
    time: float  # time.time() when the request arrived

    def json_param(self, name: str) -> Any:
        """Decode a JSON-encoded parameter (reply_markup, commands, ...); None when absent."""
        raw = self.params.get(name)
        return None if raw is None else json.loads(raw)


@dataclass(frozen=True)
class ApiCall:
    """One recorded request and the envelope the server answered with."""

    index: int  # position in FakeBotApi.calls; pass it as ``after=`` to wait for newer calls
    method: str
    params: dict[str, str]
    files: dict[str, UploadedFile]
    time: float
    status: int
    response: dict[str, Any]  # the full envelope: {"ok": ..., "result"|"description": ...}

    @property
    def ok(self) -> bool:
        return bool(self.response.get("ok"))

    @property
    def result(self) -> Any:
        return self.response.get("result")

    @property
    def description(self) -> str | None:
        description = self.response.get("description")
        return description if isinstance(description, str) else None

    def json_param(self, name: str) -> Any:
        """Decode a JSON-encoded parameter (reply_markup, commands, ...); None when absent."""
        raw = self.params.get(name)
        return None if raw is None else json.loads(raw)

    def summary(self) -> str:
        """One line for timeout messages: ``#3 sendMessage chat_id=42 -> 400 Bad Request: ...``."""
        shown = ", ".join(f"{k}={v[:40]!r}" for k, v in self.params.items())
        outcome = "ok" if self.ok else f"{self.status} {self.description}"
        return f"#{self.index} {self.method}({shown}) -> {outcome}"


@dataclass
class ApiError(Exception):
    """A Bot API failure; raise it from a handler or return it from ``intercept``.

    ``retry_after`` becomes ``parameters.retry_after``.  Keep it >= 1: aiogram tests it for
    truthiness, so 0 turns a flood wait into a plain ``TelegramAPIError``.
    """

    status: int
    description: str
    retry_after: int | None = None
    migrate_to_chat_id: int | None = None

    def __post_init__(self) -> None:
        super().__init__(f"{self.status} {self.description}")

    def envelope(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.status,
            "description": self.description,
        }
        parameters: dict[str, int] = {}
        if self.retry_after is not None:
            parameters["retry_after"] = self.retry_after
        if self.migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = self.migrate_to_chat_id
        if parameters:
            body["parameters"] = parameters
        return body

    @classmethod
    def bad_request(cls, detail: str) -> ApiError:
        return cls(400, f"Bad Request: {detail}")


@dataclass(frozen=True)
class InlineButton:
    """One inline keyboard button, flattened with its position."""

    text: str
    row: int
    column: int
    raw: dict[str, Any]

    @property
    def callback_data(self) -> str | None:
        value = self.raw.get("callback_data")
        return value if isinstance(value, str) else None

    @property
    def url(self) -> str | None:
        value = self.raw.get("url")
        return value if isinstance(value, str) else None


@dataclass
class SentMessage:
    """A message the bot sent, kept up to date by edits and deletes."""

    chat_id: int
    message_id: int
    date: int
    sender: dict[str, Any]  # the bot's User object, echoed as "from"
    kind: str  # "text", "photo" or "document"
    text: str  # as sent: the raw HTML for text messages, the caption for media
    plain_text: str  # what the user sees after entity parsing
    parse_mode: str | None
    entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None
    media: dict[str, Any] = field(default_factory=dict)  # {"photo": [...]} / {"document": {...}}
    edited: bool = False
    edit_date: int | None = None
    deleted: bool = False

    def buttons(self) -> list[InlineButton]:
        """The inline keyboard flattened row by row (empty when there is none)."""
        rows = (self.reply_markup or {}).get("inline_keyboard") or []
        return [
            InlineButton(str(button.get("text", "")), r, c, button)
            for r, row in enumerate(rows)
            for c, button in enumerate(row)
        ]

    def to_api(self, chat: dict[str, Any]) -> dict[str, Any]:
        """The Bot API ``Message`` object, as sendMessage returns it and callbacks embed it."""
        message: dict[str, Any] = {
            "message_id": self.message_id,
            "from": self.sender,
            "chat": chat,
            "date": self.date,
        }
        if self.kind == "text":
            message["text"] = self.plain_text
            if self.entities:
                message["entities"] = self.entities
        else:
            message.update(self.media)
            if self.plain_text:
                message["caption"] = self.plain_text
            if self.entities:
                message["caption_entities"] = self.entities
        if self.reply_markup and self.reply_markup.get("inline_keyboard"):
            # Telegram only echoes inline keyboards; reply keyboards live in the client.
            message["reply_markup"] = self.reply_markup
        if self.edit_date is not None:
            message["edit_date"] = self.edit_date
        return message


@dataclass
class UserMessage:
    """A message a test (or the console) pushed as if a user had written it."""

    update_id: int
    chat_id: int
    message_id: int
    user_id: int
    text: str
    date: int
    deleted: bool = False


@dataclass
class PushedInlineQuery:
    """An inline query pushed to the bot (a user typed "@bot …"), and the bot's
    answerInlineQuery once it came: its results as sent, and the other parameters."""

    inline_query_id: str
    update_id: int
    user_id: int
    query: str
    results: list[dict[str, Any]] | None = None
    answer: dict[str, str] | None = None


@dataclass
class PushedCallback:
    """A callback_query pushed to the bot, and the bot's answerCallbackQuery once it came."""

    callback_query_id: str
    update_id: int
    chat_id: int
    message_id: int
    user_id: int
    data: str
    answer: dict[str, str] | None = None  # the answerCallbackQuery params

    @property
    def answered(self) -> bool:
        return self.answer is not None
