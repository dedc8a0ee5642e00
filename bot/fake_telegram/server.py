"""FakeBotApi: an in-process Telegram Bot API server on 127.0.0.1 for tests and console mode.

Point aiogram at it with ``AiohttpSession(api=TelegramAPIServer.from_base(api.base_url))``.
It speaks the real wire format (form, multipart and JSON bodies; ``{"ok": ...}`` envelopes),
validates what Telegram validates, keeps the chat state that edits and callbacks need, and lets
the caller push user updates and wait -- without sleeping -- for the bot's reactions.
"""

from __future__ import annotations

import itertools
import logging
import time
from types import TracebackType
from typing import Any, Self

from aiohttp import web

from .files import UserFiles
from .methods import BotMethods, Handler
from .models import (
    ApiError,
    ApiRequest,
    PushedCallback,
    PushedInlineQuery,
    SentMessage,
    UserMessage,
)
from .recorder import WAIT_S, CallRecorder
from .store import BOT_USERNAME, ChatStore, now
from .updates import UpdateQueue
from .validation import parse_bool, parse_int, parse_json
from .wire import command_entities, read_body, user_object, valid_token

__all__ = ["FakeBotApi"]

logger = logging.getLogger(__name__)

_MAX_UPLOAD = 50 * 1024 * 1024  # Telegram's upload limit; aiohttp's default is only 1 MiB


class FakeBotApi(CallRecorder):
    """The core fake Bot API. Subclasses inject faults by overriding :meth:`intercept`.

    Not thread-safe: use it from the event loop it serves on.
    """

    def __init__(
        self,
        *,
        token: str | None = None,
        username: str = BOT_USERNAME,
        max_poll_wait: float = 1.0,
        strict_html: bool = True,
        shutdown_timeout: float = 0.5,
    ) -> None:
        """``token``: accept only this token (others get 401); None accepts any valid-looking one.

        ``max_poll_wait`` caps how long getUpdates holds a request whatever ``timeout`` the
        client asks for, so tests and shutdown never wait long.  ``strict_html`` rejects a bare
        ``&`` (see :mod:`bot.fake_telegram.html`).
        """
        super().__init__()
        self.token = token
        self.max_poll_wait = max_poll_wait
        self.shutdown_timeout = shutdown_timeout
        self.store = ChatStore()
        self.updates = UpdateQueue(self._signal)
        self.files = UserFiles()
        self._callback_ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self._base_url: str | None = None
        self._stopped = False
        handlers: dict[str, Handler] = BotMethods(
            self.store, username=username, strict_html=strict_html
        ).table()
        handlers.update(
            getUpdates=self._get_updates,
            deleteWebhook=self._delete_webhook,
            getWebhookInfo=self._get_webhook_info,
            getFile=self.files.get_file,
        )
        self._handlers = {name.lower(): (name, handler) for name, handler in handlers.items()}

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        if self._runner is not None or self._stopped:
            raise RuntimeError("FakeBotApi can be started once; create a new one")
        app = web.Application(client_max_size=_MAX_UPLOAD)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        runner = web.AppRunner(app, shutdown_timeout=self.shutdown_timeout, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        host, port = runner.addresses[0][:2]
        self._runner = runner
        self._base_url = f"http://{host}:{port}"

    async def stop(self) -> None:
        """Shut down at once: pending long polls are woken and answer ``[]`` first.

        (aiohttp waits up to ``shutdown_timeout`` for in-flight handlers, 60 s by default, so a
        sleeping getUpdates would otherwise hold the teardown of every test.)
        """
        self._stopped = True
        self.updates.close()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` -- what ``TelegramAPIServer.from_base`` wants."""
        if self._base_url is None:
            raise RuntimeError("FakeBotApi is not started")
        return self._base_url

    async def intercept(self, request: ApiRequest) -> ApiError | None:
        """Checked before normal handling; return an error to answer it instead.

        The core never fails on purpose; the test fake overrides this for faults and limits.
        """
        return None

    # --- acting as users -------------------------------------------------------------------

    def push_update(self, raw: dict[str, Any]) -> int:
        """Queue a raw update for getUpdates; ``update_id`` is assigned unless present."""
        return self.updates.push(raw)

    def push_message(
        self,
        chat_id: int,
        text: str,
        *,
        user_id: int | None = None,
        language_code: str = "ru",
        first_name: str = "Test",
        username: str | None = None,
        date: int | None = None,
    ) -> int:
        """A user writes ``text`` in ``chat_id``; a leading /command gets its entity. ``date``
        (Unix seconds) is when they sent it: now unless a test says (a backlog, a flood)."""
        return self._push_user_message(
            chat_id,
            {"text": text},
            text,
            user_id=user_id,
            language_code=language_code,
            first_name=first_name,
            username=username,
            date=date,
        )

    def push_document(
        self,
        chat_id: int,
        data: bytes,
        file_name: str,
        *,
        mime_type: str = "application/json",
        caption: str | None = None,
        user_id: int | None = None,
        language_code: str = "ru",
        first_name: str = "Test",
    ) -> int:
        """A user sends a file as a document (with an optional caption); the bot can getFile
        it and download the bytes (:mod:`bot.fake_telegram.files`)."""
        stored = self.files.add(data, file_name, mime_type)
        content: dict[str, Any] = {"document": stored.document()}
        if caption:
            content["caption"] = caption
        return self._push_user_message(
            chat_id,
            content,
            caption or "",
            user_id=user_id,
            language_code=language_code,
            first_name=first_name,
        )

    def _push_user_message(
        self,
        chat_id: int,
        content: dict[str, Any],
        text: str,
        *,
        user_id: int | None,
        language_code: str,
        first_name: str,
        username: str | None = None,
        date: int | None = None,
    ) -> int:
        user = user_object(
            chat_id,
            user_id,
            language_code=language_code,
            first_name=first_name,
            username=username,
        )
        if chat_id > 0:
            self.store.remember_name(chat_id, first_name)
        message_id = self.store.next_message_id(chat_id)
        date = now() if date is None else date
        message: dict[str, Any] = {
            "message_id": message_id,
            "from": user,
            "chat": self.store.chat(chat_id),
            "date": date,
            **content,
        }
        if "text" in content and (entities := command_entities(text)):
            message["entities"] = entities
        update_id = self.push_update({"message": message})
        self.store.add_received(UserMessage(update_id, chat_id, message_id, user["id"], text, date))
        return update_id

    def push_callback(
        self,
        chat_id: int,
        message_id: int,
        data: str,
        *,
        user_id: int | None = None,
        language_code: str = "ru",
        first_name: str = "Test",
    ) -> int:
        """A user presses a callback button of the bot's message ``message_id``.

        The update embeds the message as it is now, keyboard included, as Telegram does.
        """
        message = self.store.find_sent(chat_id, message_id)
        if message is None:
            raise LookupError(f"the bot has no message {message_id} in chat {chat_id}")
        user = user_object(chat_id, user_id, language_code=language_code, first_name=first_name)
        callback_id = str(next(self._callback_ids))
        callback_query = {
            "id": callback_id,
            "from": user,
            "message": message.to_api(self.store.chat(chat_id)),
            "chat_instance": str(chat_id),
            "data": data,
        }
        update_id = self.push_update({"callback_query": callback_query})
        self.store.callbacks[callback_id] = PushedCallback(
            callback_id, update_id, chat_id, message_id, user["id"], data
        )
        return update_id

    def push_inline_query(
        self, user_id: int, query: str, *, language_code: str = "ru", first_name: str = "Test"
    ) -> str:
        """A user types "@bot `query`" in any chat; returns the inline query's id."""
        user = user_object(user_id, user_id, language_code=language_code, first_name=first_name)
        query_id = f"iq{next(self._callback_ids)}"
        update_id = self.push_update(
            {"inline_query": {"id": query_id, "from": user, "query": query, "offset": ""}}
        )
        self.store.inline_queries[query_id] = PushedInlineQuery(query_id, update_id, user_id, query)
        return query_id

    def inline_answer(self, query_id: str) -> PushedInlineQuery:
        return self.store.inline_queries[query_id]

    def press(
        self, chat_id: int, button: str | int, message: SentMessage | None = None, **user: Any
    ) -> int:
        """Press a callback button (exact text or flat index) of ``message`` (default: last).

        ``user`` goes to :meth:`push_callback` (``user_id``, ``language_code``, ``first_name``).
        """
        target = message or self.last_message(chat_id)
        buttons = target.buttons()
        if isinstance(button, int):
            found = buttons[button] if -len(buttons) <= button < len(buttons) else None
        else:
            found = next((b for b in buttons if b.text == button), None)
        if found is None:
            raise LookupError(f"no button {button!r} in {[b.text for b in buttons]}")
        if found.callback_data is None:
            raise ValueError(f"button {found.text!r} has no callback_data: {found.raw}")
        return self.push_callback(chat_id, target.message_id, found.callback_data, **user)

    # --- inspection and waiting ------------------------------------------------------------

    def messages(self, chat_id: int, *, include_deleted: bool = False) -> list[SentMessage]:
        """What the bot sent to ``chat_id``, oldest first, as currently edited."""
        return self.store.messages(chat_id, include_deleted=include_deleted)

    def last_message(self, chat_id: int) -> SentMessage:
        messages = self.messages(chat_id)
        if not messages:
            raise LookupError(f"the bot sent nothing to chat {chat_id}; {self.describe()}")
        return messages[-1]

    def user_messages(self, chat_id: int) -> list[UserMessage]:
        return list(self.store.received.get(chat_id, ()))

    @property
    def callbacks(self) -> list[PushedCallback]:
        """Every callback query pushed, with the bot's answer once it came."""
        return list(self.store.callbacks.values())

    async def wait_confirmed(
        self,
        update_id: int,
        timeout: float = WAIT_S,  # noqa: ASYNC109 - a per-wait deadline is this helper's point
    ) -> None:
        """Return once getUpdates confirmed ``update_id`` (an offset above it arrived).

        With aiogram's ``handle_as_tasks=False`` that means the update was fully handled.
        """
        await self.wait_until(
            lambda: True if self.updates.is_confirmed(update_id) else None,
            timeout=timeout,
            what=f"confirmation of update {update_id}",
        )

    def describe(self, count: int = 10) -> str:
        pending = [u["update_id"] for u in self.updates.pending]
        return (
            f"pending updates {pending}, confirmed offset {self.updates.confirmed_offset}; "
            + super().describe(count)
        )

    # --- HTTP ------------------------------------------------------------------------------

    async def _handle(self, http: web.Request) -> web.Response:
        sent_name = http.match_info["method"]
        name, handler = self._handlers.get(sent_name.lower(), (sent_name, None))
        token = http.match_info["token"]
        error: ApiError | None = None
        result: Any = None
        try:
            params, files = await read_body(http)
        except ApiError as exc:
            params, files, error = {}, {}, exc
        except ConnectionResetError:
            # The client died mid-request (a replica killed -9): nobody to answer, nothing
            # to record, and no reason for aiohttp's traceback in the fake's log.
            return web.Response(status=499)
        request = ApiRequest(name, params, files, token, time.time())
        if error is None and (not valid_token(token) or self.token not in (None, token)):
            error = ApiError(401, "Unauthorized")
        if error is None:
            error = await self.intercept(request)
        if error is None and handler is None:
            error = ApiError(404, "Not Found")
        if error is None and handler is not None:
            try:
                result = await handler(request)
            except ApiError as exc:
                error = exc
            except Exception as exc:
                # A bug in the fake: answer it like Telegram's 500 so the call is recorded and
                # visible in timeouts, instead of aiohttp's plain-text error page.
                logger.exception("FakeBotApi crashed on %s", name)
                error = ApiError(500, f"Internal Server Error: {type(exc).__name__}: {exc}")
        status = 200 if error is None else error.status
        envelope = {"ok": True, "result": result} if error is None else error.envelope()
        self._record(request, status, envelope)
        return web.json_response(envelope, status=status)

    async def _download(self, http: web.Request) -> web.Response:
        return await self.files.download(http, self.token)

    async def _get_updates(self, request: ApiRequest) -> list[dict[str, Any]]:
        offset = parse_int(request.params, "offset")
        if offset is not None:
            self.updates.confirm(offset)
        limit = min(max(parse_int(request.params, "limit") or 100, 1), 100)
        timeout = parse_int(request.params, "timeout") or 0
        allowed = parse_json(request.params, "allowed_updates")
        return await self.updates.poll(
            limit=limit,
            wait=min(float(timeout), self.max_poll_wait),
            allowed=allowed if isinstance(allowed, list) else None,
        )

    async def _delete_webhook(self, request: ApiRequest) -> bool:
        if parse_bool(request.params, "drop_pending_updates"):
            self.updates.drop_pending()
        return True

    async def _get_webhook_info(self, request: ApiRequest) -> dict[str, Any]:
        return {
            "url": "",
            "has_custom_certificate": False,
            "pending_update_count": len(self.updates.pending),
        }
