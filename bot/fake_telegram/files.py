"""Files users send: a document in an update, getFile, and the file download path.

Telegram gives the bot a ``Document`` (file_id, file_unique_id, file_name, mime_type,
file_size) in ``message.document``; ``getFile`` answers a ``File`` with a ``file_path``, and
the bytes are at ``/file/bot<token>/<file_path>``. As Telegram does, getFile refuses an
unknown file_id ("Bad Request: invalid file_id") and a file over 20 MB ("Bad Request: file is
too big": the Bot API's download limit, core.telegram.org/bots/api#getfile), and the download
path answers 404 for a path no getFile gave out or for another bot's token.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from .models import ApiRequest
from .validation import bad
from .wire import valid_token

__all__ = ["DOWNLOAD_LIMIT", "StoredFile", "UserFiles"]

DOWNLOAD_LIMIT = 20 * 1024 * 1024  # getFile: "bots can download files of up to 20MB in size"


@dataclass(frozen=True)
class StoredFile:
    file_id: str
    file_unique_id: str
    file_name: str
    mime_type: str
    data: bytes

    def document(self) -> dict[str, Any]:
        return {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_name": self.file_name,
            "mime_type": self.mime_type,
            "file_size": len(self.data),
        }


class UserFiles:
    """What users uploaded, by file_id, and the paths getFile handed out."""

    def __init__(self) -> None:
        self._files: dict[str, StoredFile] = {}
        self._paths: dict[str, StoredFile] = {}
        self._ids = itertools.count(1)
        self.downloads: list[str] = []  # file paths fetched, oldest first (for tests)

    def add(self, data: bytes, file_name: str, mime_type: str) -> StoredFile:
        n = next(self._ids)
        stored = StoredFile(f"BQACAgIAAx-user-{n}", f"AgADu{n}", file_name, mime_type, data)
        self._files[stored.file_id] = stored
        return stored

    async def get_file(self, req: ApiRequest) -> dict[str, Any]:
        file_id = req.params.get("file_id", "")
        if not file_id:
            raise bad("file_id is empty")
        stored = self._files.get(file_id)
        if stored is None:
            raise bad("invalid file_id")
        if len(stored.data) > DOWNLOAD_LIMIT:
            raise bad("file is too big")
        path = f"documents/file_{stored.file_unique_id}_{stored.file_name}"
        self._paths[path] = stored
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(stored.data),
            "file_path": path,
        }

    async def download(self, http: web.Request, token: str | None) -> web.Response:
        sent_token, path = http.match_info["token"], http.match_info["path"]
        stored = self._paths.get(path)
        if stored is None or not valid_token(sent_token) or token not in (None, sent_token):
            return web.json_response(
                {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
            )
        self.downloads.append(path)
        return web.Response(body=stored.data, content_type="application/octet-stream")
