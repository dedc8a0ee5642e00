"""Bot API methods that read or change chat state: sending, editing, callbacks, commands.

Each handler takes the parsed request and returns the ``result`` of the envelope, or raises
:class:`ApiError` with the description Telegram would give.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from .html import ParsedHtml, utf16_len
from .models import ApiRequest, SentMessage, UploadedFile
from .store import ChatStore, bot_user, now
from .validation import (
    CALLBACK_ANSWER_LIMIT,
    CAPTION_LIMIT,
    TEXT_LIMIT,
    bad,
    parse_chat_id,
    parse_int,
    parse_json,
    parse_reply_markup,
    render_text,
    same_markup,
)

__all__ = ["BotMethods", "Handler"]

Handler = Callable[[ApiRequest], Awaitable[Any]]

NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
CHAT_ACTIONS = frozenset(
    {
        "typing", "upload_photo", "record_video", "upload_video", "record_voice",
        "upload_voice", "upload_document", "choose_sticker", "find_location",
        "record_video_note", "upload_video_note",
    }
)  # fmt: skip
COMMAND_SCOPES = frozenset(
    {
        "default", "all_private_chats", "all_group_chats", "all_chat_administrators",
        "chat", "chat_administrators", "chat_member",
    }
)  # fmt: skip
INLINE_RESULTS_LIMIT = 50  # answerInlineQuery: "No more than 50 results per query are allowed"
_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")
_LANGUAGE_RE = re.compile(r"[a-z]{2}")
# Setters the bot may call at startup; the fake accepts them and has nothing to show for them.
ACCEPTED_SETTERS = ("setMyDescription", "setMyShortDescription", "setMyName", "setChatMenuButton")


class BotMethods:
    def __init__(self, store: ChatStore, *, username: str, strict_html: bool) -> None:
        self.store = store
        self.username = username
        self.strict_html = strict_html

    def table(self) -> dict[str, Handler]:
        """Canonical method name -> handler (the server matches names case-insensitively)."""
        table: dict[str, Handler] = {
            "getMe": self.get_me,
            "sendMessage": self.send_message,
            "sendPhoto": self.send_photo,
            "sendDocument": self.send_document,
            "sendChatAction": self.send_chat_action,
            "editMessageText": self.edit_message_text,
            "editMessageCaption": self.edit_message_caption,
            "editMessageReplyMarkup": self.edit_message_reply_markup,
            "deleteMessage": self.delete_message,
            "answerCallbackQuery": self.answer_callback_query,
            "answerInlineQuery": self.answer_inline_query,
            "setMyCommands": self.set_my_commands,
            "getMyCommands": self.get_my_commands,
            "deleteMyCommands": self.delete_my_commands,
        }
        for name in ACCEPTED_SETTERS:
            table[name] = self.accept
        return table

    async def accept(self, req: ApiRequest) -> bool:
        return True

    async def get_me(self, req: ApiRequest) -> dict[str, Any]:
        return {
            **bot_user(req.token, username=self.username),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    # --- sending -------------------------------------------------------------------------

    def _text(self, req: ApiRequest, field: str) -> ParsedHtml:
        if field == "text":
            return render_text(
                req.params, "text", limit=TEXT_LIMIT, required=True, strict_html=self.strict_html
            )
        return render_text(
            req.params, field, limit=CAPTION_LIMIT, required=False, strict_html=self.strict_html
        )

    def _private(self, chat_id: int) -> bool:
        return bool(self.store.chat(chat_id)["type"] == "private")

    def _store_sent(self, req: ApiRequest, chat_id: int, kind: str, field: str) -> SentMessage:
        """Validate text/caption and markup first, so a rejected send takes no message_id."""
        parsed = self._text(req, field)
        markup = parse_reply_markup(req.params, inline_only=False, private=self._private(chat_id))
        return self.store.add_sent(
            SentMessage(
                chat_id=chat_id,
                message_id=self.store.next_message_id(chat_id),
                date=now(),
                sender=bot_user(req.token, username=self.username),
                kind=kind,
                text=req.params.get(field, ""),
                plain_text=parsed.text,
                parse_mode=req.params.get("parse_mode"),
                entities=parsed.entities,
                reply_markup=markup,
            )
        )

    async def send_message(self, req: ApiRequest) -> dict[str, Any]:
        chat_id = parse_chat_id(req.params)
        message = self._store_sent(req, chat_id, "text", "text")
        return message.to_api(self.store.chat(chat_id))

    async def send_photo(self, req: ApiRequest) -> dict[str, Any]:
        return self._send_media(req, "photo")

    async def send_document(self, req: ApiRequest) -> dict[str, Any]:
        return self._send_media(req, "document")

    def _send_media(self, req: ApiRequest, kind: str) -> dict[str, Any]:
        chat_id = parse_chat_id(req.params)
        source = _media_input(req, kind)
        message = self._store_sent(req, chat_id, kind, "caption")
        message.media = _media_object(kind, source, f"{chat_id}_{message.message_id}")
        return message.to_api(self.store.chat(chat_id))

    async def send_chat_action(self, req: ApiRequest) -> bool:
        parse_chat_id(req.params)
        if req.params.get("action") not in CHAT_ACTIONS:
            raise bad("wrong parameter action in request")
        return True

    # --- editing -------------------------------------------------------------------------

    def _editable(self, req: ApiRequest) -> SentMessage:
        if "inline_message_id" in req.params:
            raise bad("message to edit not found")  # the fake sends no inline messages
        chat_id = parse_chat_id(req.params)
        message_id = _message_id(req)
        message = self.store.find_sent(chat_id, message_id)
        if message is None:
            if self.store.find_received(chat_id, message_id) is not None:
                raise bad("message can't be edited")
            raise bad("message to edit not found")
        return message

    def _apply_edit(
        self, message: SentMessage, req: ApiRequest, field: str | None
    ) -> dict[str, Any]:
        """Edit ``field`` ("text", "caption" or None for markup only) and the keyboard."""
        parsed = self._text(req, field) if field else None
        # Like Telegram: an edit without reply_markup removes the inline keyboard.
        markup = parse_reply_markup(
            req.params, inline_only=True, private=self._private(message.chat_id)
        )
        same_content = parsed is None or (
            parsed.text == message.plain_text and parsed.entities == message.entities
        )
        if same_content and same_markup(markup, message.reply_markup):
            raise bad(NOT_MODIFIED)
        if field and parsed is not None:
            message.text = req.params.get(field, "")
            message.plain_text = parsed.text
            message.entities = parsed.entities
            message.parse_mode = req.params.get("parse_mode")
        message.reply_markup = markup
        message.edited = True
        message.edit_date = now()
        return message.to_api(self.store.chat(message.chat_id))

    async def edit_message_text(self, req: ApiRequest) -> dict[str, Any]:
        message = self._editable(req)
        if message.kind != "text":
            raise bad("there is no text in the message to edit")
        return self._apply_edit(message, req, "text")

    async def edit_message_caption(self, req: ApiRequest) -> dict[str, Any]:
        message = self._editable(req)
        if message.kind == "text":
            raise bad("there is no caption in the message to edit")
        return self._apply_edit(message, req, "caption")

    async def edit_message_reply_markup(self, req: ApiRequest) -> dict[str, Any]:
        return self._apply_edit(self._editable(req), req, None)

    async def delete_message(self, req: ApiRequest) -> bool:
        chat_id = parse_chat_id(req.params)
        message_id = _message_id(req)
        target = self.store.find_sent(chat_id, message_id) or self.store.find_received(
            chat_id, message_id
        )
        if target is None:
            raise bad("message to delete not found")
        target.deleted = True
        return True

    # --- callbacks and commands ----------------------------------------------------------

    async def answer_callback_query(self, req: ApiRequest) -> bool:
        callback = self.store.callbacks.get(req.params.get("callback_query_id", ""))
        if callback is None or callback.answered:
            raise bad("query is too old and response timeout expired or query ID is invalid")
        if utf16_len(req.params.get("text", "")) > CALLBACK_ANSWER_LIMIT:
            raise bad("MESSAGE_TOO_LONG")
        callback.answer = dict(req.params)
        return True

    async def answer_inline_query(self, req: ApiRequest) -> bool:
        query = self.store.inline_queries.get(req.params.get("inline_query_id", ""))
        if query is None or query.results is not None:
            raise bad("query is too old and response timeout expired or query ID is invalid")
        results = parse_json(req.params, "results")
        if not isinstance(results, list):
            raise bad("can't parse inline query results JSON object")
        if len(results) > INLINE_RESULTS_LIMIT:
            raise bad("RESULTS_TOO_MUCH")
        if "cache_time" in req.params and (parse_int(req.params, "cache_time") or 0) < 0:
            raise bad("cache_time must be non-negative")
        seen: set[str] = set()
        for result in results:
            if not isinstance(result, dict):
                raise bad("can't parse inline query result")
            result_id = str(result.get("id", ""))
            if not 1 <= len(result_id.encode()) <= 64:
                raise bad("RESULT_ID_INVALID")
            if result_id in seen:
                raise bad("RESULT_ID_DUPLICATE")
            seen.add(result_id)
            self._check_article(result)
        query.results = results
        query.answer = {k: v for k, v in req.params.items() if k != "results"}
        return True

    def _check_article(self, result: dict[str, Any]) -> None:
        """Articles only (what the bot sends): a title, and a message the user can send."""
        if result.get("type") != "article":
            raise bad("RESULT_TYPE_INVALID")
        if not str(result.get("title", "")).strip():
            raise bad("ARTICLE_TITLE_EMPTY")
        content = result.get("input_message_content")
        if not isinstance(content, dict) or "message_text" not in content:
            raise bad("MESSAGE_EMPTY")
        params = {"text": str(content["message_text"])}
        if content.get("parse_mode"):
            params["parse_mode"] = str(content["parse_mode"])
        render_text(params, "text", limit=TEXT_LIMIT, required=True, strict_html=self.strict_html)
        if "reply_markup" in result:
            # An inline result may be sent to any chat: never a private one for certain.
            parse_reply_markup(
                {"reply_markup": json.dumps(result["reply_markup"])},
                inline_only=True,
                private=False,
            )

    def _commands_key(self, req: ApiRequest) -> tuple[str, str]:
        scope = parse_json(req.params, "scope") or {"type": "default"}
        if not isinstance(scope, dict) or scope.get("type") not in COMMAND_SCOPES:
            raise bad("can't parse BotCommandScope")
        language = req.params.get("language_code", "")
        if language and not _LANGUAGE_RE.fullmatch(language):
            raise bad("invalid language code specified")
        return json.dumps(scope, sort_keys=True), language

    async def set_my_commands(self, req: ApiRequest) -> bool:
        commands = parse_json(req.params, "commands")
        if not isinstance(commands, list):
            raise bad("can't parse commands JSON object")
        if len(commands) > 100:
            raise bad("BOT_COMMANDS_TOO_MUCH")
        for command in commands:
            if not isinstance(command, dict) or not _COMMAND_RE.fullmatch(
                str(command.get("command", ""))
            ):
                raise bad("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", "")).strip()) <= 256:
                raise bad("BOT_COMMAND_DESCRIPTION_INVALID")
        key = self._commands_key(req)
        self.store.commands[key] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    async def get_my_commands(self, req: ApiRequest) -> list[dict[str, Any]]:
        return list(self.store.commands.get(self._commands_key(req), []))

    async def delete_my_commands(self, req: ApiRequest) -> bool:
        self.store.commands.pop(self._commands_key(req), None)
        return True


def _message_id(req: ApiRequest) -> int:
    message_id = parse_int(req.params, "message_id")
    if message_id is None:
        raise bad("message identifier is not specified")
    return message_id


def _media_input(req: ApiRequest, field: str) -> UploadedFile | str:
    """The uploaded part (direct, or via ``attach://key`` as aiogram sends it) or a file_id/URL."""
    raw = req.params.get(field)
    upload = req.files.get(field)
    if raw is not None and raw.startswith("attach://"):
        upload = req.files.get(raw.removeprefix("attach://"))
        if upload is None:
            raise bad(f"there is no {field} in the request")
    if upload is not None:
        if not upload.data:
            raise bad("file must be non-empty")
        return upload
    if raw:
        return raw  # an existing file_id or an HTTP URL; the fake does not fetch it
    raise bad(f"there is no {field} in the request")


def _media_object(kind: str, source: UploadedFile | str, unique: str) -> dict[str, Any]:
    size = {"file_size": len(source.data)} if isinstance(source, UploadedFile) else {}
    if kind == "photo":
        return {
            "photo": [
                {
                    "file_id": f"AgAC-{unique}-{suffix}",
                    "file_unique_id": f"AQAD-{unique}-{suffix}",
                    "width": width,
                    "height": height,
                    **(size if suffix == "x" else {}),
                }
                for suffix, width, height in (("s", 90, 51), ("m", 320, 180), ("x", 1280, 720))
            ]
        }
    document: dict[str, Any] = {"file_id": f"BQAC-{unique}", "file_unique_id": f"AgAD-{unique}"}
    if isinstance(source, UploadedFile):
        document.update(size, file_name=source.filename, mime_type=source.content_type)
    return {"document": document}
