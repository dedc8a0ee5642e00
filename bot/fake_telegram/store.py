"""Chat state of the fake: who said what, message ids, callback queries, bot commands."""

from __future__ import annotations

import time
from typing import Any

from .models import PushedCallback, PushedInlineQuery, SentMessage, UserMessage

__all__ = ["ChatStore", "bot_user"]

BOT_USERNAME = "gpuradar_test_bot"
BOT_FIRST_NAME = "GPU Radar (test)"


def bot_user(token: str, *, username: str = BOT_USERNAME) -> dict[str, Any]:
    """The bot's ``User`` object; its id is the number before the token's colon, as in Telegram."""
    return {
        "id": int(token.split(":", 1)[0]),
        "is_bot": True,
        "first_name": BOT_FIRST_NAME,
        "username": username,
    }


def now() -> int:
    return int(time.time())


class ChatStore:
    """Messages per chat in both directions, sharing one message_id sequence like a real chat."""

    def __init__(self) -> None:
        self.sent: dict[int, list[SentMessage]] = {}
        self.received: dict[int, list[UserMessage]] = {}
        self.callbacks: dict[str, PushedCallback] = {}
        self.inline_queries: dict[str, PushedInlineQuery] = {}
        # (scope as canonical JSON, language_code) -> commands, for set/get/deleteMyCommands
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._last_message_id: dict[int, int] = {}
        self._first_names: dict[int, str] = {}

    def next_message_id(self, chat_id: int) -> int:
        message_id = self._last_message_id.get(chat_id, 0) + 1
        self._last_message_id[chat_id] = message_id
        return message_id

    def remember_name(self, chat_id: int, first_name: str) -> None:
        self._first_names[chat_id] = first_name

    def chat(self, chat_id: int) -> dict[str, Any]:
        """The ``Chat`` object: positive ids are private chats, "-100..." supergroups."""
        if chat_id > 0:
            return {
                "id": chat_id,
                "type": "private",
                "first_name": self._first_names.get(chat_id, "Test"),
            }
        if str(chat_id).startswith("-100"):
            return {"id": chat_id, "type": "supergroup", "title": "Test supergroup"}
        return {"id": chat_id, "type": "group", "title": "Test group"}

    def add_sent(self, message: SentMessage) -> SentMessage:
        self.sent.setdefault(message.chat_id, []).append(message)
        return message

    def add_received(self, message: UserMessage) -> None:
        self.received.setdefault(message.chat_id, []).append(message)

    def find_sent(self, chat_id: int, message_id: int) -> SentMessage | None:
        for message in self.sent.get(chat_id, ()):
            if message.message_id == message_id and not message.deleted:
                return message
        return None

    def find_received(self, chat_id: int, message_id: int) -> UserMessage | None:
        for message in self.received.get(chat_id, ()):
            if message.message_id == message_id and not message.deleted:
                return message
        return None

    def messages(self, chat_id: int, *, include_deleted: bool = False) -> list[SentMessage]:
        return [m for m in self.sent.get(chat_id, ()) if include_deleted or not m.deleted]
