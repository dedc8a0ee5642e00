"""Request decoding and the objects the fake puts on the wire for users."""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import web

from .html import utf16_len
from .models import ApiError, UploadedFile

__all__ = ["command_entities", "read_body", "user_object", "valid_token"]

_TOKEN_RE = re.compile(r"\d+:\S+")
_GROUP_USER_ID = 1000  # who speaks in a group chat when the caller names no user


def valid_token(token: str) -> bool:
    """The shape aiogram's ``validate_token`` also insists on: ``<digits>:<secret>``."""
    return _TOKEN_RE.fullmatch(token) is not None


async def read_body(http: web.Request) -> tuple[dict[str, str], dict[str, UploadedFile]]:
    """Query string plus form, multipart or JSON body, every value as a string.

    aiogram always sends a form (multipart once a file is attached).  JSON values that are not
    strings are re-encoded with ``json.dumps``, so ``params`` look the same either way.
    """
    params: dict[str, str] = dict(http.query)
    files: dict[str, UploadedFile] = {}
    if http.content_type == "application/json":
        try:
            body = await http.json()
        except ValueError:
            raise ApiError.bad_request("can't parse JSON object") from None
        if not isinstance(body, dict):
            raise ApiError.bad_request("can't parse JSON object")
        for key, value in body.items():
            if value is not None:
                params[key] = value if isinstance(value, str) else json.dumps(value)
        return params, files
    if http.body_exists:
        for key, value in (await http.post()).items():
            if isinstance(value, web.FileField):
                data = value.file.read()
                files[key] = UploadedFile(key, value.filename, value.content_type, data)
            elif isinstance(value, str):
                params[key] = value
            else:  # a non-text part without a filename arrives as raw bytes
                params[key] = bytes(value).decode("utf-8", "replace")
    return params, files


def user_object(
    chat_id: int,
    user_id: int | None,
    *,
    language_code: str,
    first_name: str,
    username: str | None = None,
) -> dict[str, Any]:
    """A human ``User``; in a private chat the user id equals the chat id, as in Telegram."""
    uid = user_id if user_id is not None else (chat_id if chat_id > 0 else _GROUP_USER_ID)
    user: dict[str, Any] = {
        "id": uid,
        "is_bot": False,
        "first_name": first_name,
        "language_code": language_code,
    }
    if username:
        user["username"] = username
    return user


def command_entities(text: str) -> list[dict[str, Any]]:
    """The ``bot_command`` entity Telegram attaches to a message starting with ``/``."""
    if not text.startswith("/"):
        return []
    command = text.split(maxsplit=1)[0]
    return [{"type": "bot_command", "offset": 0, "length": utf16_len(command)}]
