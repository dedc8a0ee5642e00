"""The Mini App on the ops server: its static files under /app/ and its API under /app/api.

    GET    /app/                     the app (index.html); its bundle under /app/assets/
    GET    /app/texts.json           the app's texts in every language (estimator/locales)
    GET    /app/api/me               who the initData speaks for, and their language
    GET    /app/api/watches          the user's watches
    PATCH  /app/api/watches/{id}     {"paused": bool} and/or {"max_rub_per_gpu_hour": cap}, the
                                     cap a number, the text typed («599,5», «600 ₽») or null
    DELETE /app/api/watches/{id}
    POST   /app/api/fit              the calculator: the same answer as /fit for the same run,
                                     short (`text`) and in full (`details`)

Every /app/api request carries `Authorization: tma <initData>` (the scheme @telegram-apps
clients use). A missing, forged or stale initData gets 401 and the store is not touched; a
user reaches only their own watches (a private chat's id is its user's id, so the user's
watches are the watches of the chat with that id). The price table and the chart read the
public /api/v1 (bot.ops.open_data), which needs no initData.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web
from pydantic import SecretStr

from bot.fields import FieldError, read_card, read_count, read_dataset, read_model, read_price
from bot.middlewares.user import initial_language
from bot.miniapp.init_data import AppUser, InitDataError, verify_init_data
from bot.miniapp.texts import app_texts
from bot.ops.open_data import ClientBuckets, too_many_requests
from bot.ports import BotStore
from bot.usecases.sizing import build
from bot.views.sizing_errors import error_text
from estimator.fit_words import command_for
from estimator.i18n import Translator
from estimator.parse import ParsedQuery, QueryError
from estimator.parsing.build import LIMITS, Given, finish
from estimator.query import Method
from estimator.sizing_text import render_details, render_short, to_plain
from monitor.subscriptions import Subscription, WatchEdit
from monitor.users import Language
from monitor.watch_describe import describe, short_label

logger = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).with_name("static")
SCHEME = "tma "
# The app's HTML is small and names the hashed bundle: always revalidated, so a new release
# shows at the next open. The bundle's names change with its content: cached for a year.
INDEX_CACHE = "no-cache"
ASSET_CACHE = "public, max-age=31536000, immutable"
# A calculator request body is a handful of short fields.
MAX_BODY = 4096
# An asset's name: one flat folder of hashed names.
_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
# The calculator's fields, each read as the chat reads those words (bot.fields).
CALCULATOR_FIELDS = ("model", "method", "ctx", "bs", "dataset", "gpu")
_METHODS = ("qlora", "lora", "full")
# A cap typed in the app, as in /subs (bot.routers.watch.MAX_TYPED_PRICE's range).
MAX_CAP = 1_000_000.0

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class MiniApp:
    """The /app routes over the bot's store; `token` checks the initData signatures."""

    def __init__(
        self,
        store: BotStore,
        token: SecretStr,
        translators: Mapping[Language, Translator],
        default_language: Language,
        *,
        static_dir: Path = STATIC_DIR,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        buckets: ClientBuckets | None = None,
    ) -> None:
        self._store = store
        self._token = token
        self._translators = translators
        self._default_language = default_language
        self._static_dir = static_dir
        self._now = now
        self._buckets = buckets or ClientBuckets()
        self._texts = json.dumps(app_texts(), ensure_ascii=False).encode()

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/app", self._to_index)
        app.router.add_get("/app/", self._index)
        app.router.add_get("/app/texts.json", self._texts_page)
        app.router.add_get("/app/assets/{name}", self._asset)
        app.router.add_get("/app/api/me", self._authorized(self._me))
        app.router.add_get("/app/api/watches", self._authorized(self._watches))
        app.router.add_patch("/app/api/watches/{id}", self._authorized(self._change_watch))
        app.router.add_delete("/app/api/watches/{id}", self._authorized(self._delete_watch))
        app.router.add_post("/app/api/fit", self._authorized(self._fit))

    # --- static files -------------------------------------------------------------------

    async def _to_index(self, request: web.Request) -> web.StreamResponse:
        query = f"?{request.query_string}" if request.query_string else ""
        raise web.HTTPPermanentRedirect("/app/" + query)

    async def _index(self, request: web.Request) -> web.StreamResponse:
        index = self._static_dir / "index.html"
        if not index.is_file():
            return web.json_response({"error": "the Mini App is not built"}, status=503)
        return web.FileResponse(index, headers={"Cache-Control": INDEX_CACHE})

    async def _texts_page(self, request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=self._texts,
            content_type="application/json",
            headers={"Cache-Control": INDEX_CACHE},
        )

    async def _asset(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        # One flat folder of hashed names: anything else (a "..", a hidden file) is not ours.
        if not _WORD.match(name):
            raise web.HTTPNotFound()
        path = self._static_dir / "assets" / name
        if not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": ASSET_CACHE})

    # --- the authenticated API ----------------------------------------------------------

    def _authorized(
        self, handle: Callable[[web.Request, AppUser], Awaitable[web.StreamResponse]]
    ) -> Handler:
        async def checked(request: web.Request) -> web.StreamResponse:
            header = request.headers.get("Authorization", "")
            init_data = header[len(SCHEME) :] if header.startswith(SCHEME) else ""
            try:
                user = verify_init_data(self._token.get_secret_value(), init_data, now=self._now())
            except InitDataError as error:
                # The reason, never the data: it holds the user's name and the signature.
                logger.info("mini app: refused %s %s: %s", request.method, request.path, error)
                return _error(401, "initData missing, forged or stale")
            wait = self._buckets.take(f"user:{user.user_id}")
            if wait > 0:
                return too_many_requests(wait)
            return await handle(request, user)

        return checked

    async def _language(self, user: AppUser) -> Language:
        known = await self._store.get_user(user.user_id)
        if known is not None:
            return known.language
        return initial_language(user.language_code, self._default_language)

    async def _me(self, request: web.Request, user: AppUser) -> web.StreamResponse:
        language = await self._language(user)
        return web.json_response({"user_id": user.user_id, "language": language})

    async def _watches(self, request: web.Request, user: AppUser) -> web.StreamResponse:
        language = await self._language(user)
        watches = await self._store.subscriptions_of(user.user_id)
        return web.json_response({"watches": [_watch_row(sub, language) for sub in watches]})

    async def _change_watch(self, request: web.Request, user: AppUser) -> web.StreamResponse:
        sub_id = _watch_id(request)
        body = await _json_body(request)
        if body is None or not body.keys() or body.keys() - {"paused", "max_rub_per_gpu_hour"}:
            return _error(400, "send paused (true or false) and/or max_rub_per_gpu_hour")
        paused = body.get("paused")
        if "paused" in body and not isinstance(paused, bool):
            return _error(400, "paused: true or false")
        has_cap = "max_rub_per_gpu_hour" in body
        raw_cap = body.get("max_rub_per_gpu_hour")
        try:
            # A number, or the text typed («599,5», «600 ₽»): read as the chat reads a price.
            cap = None if raw_cap in (None, "") else read_price(raw_cap, "cap", high=MAX_CAP)
        except FieldError as error:
            return _field_error(self._translators[await self._language(user)], error)
        chat_id = user.user_id
        if sub_id is None:
            return _error(404, "no such watch of yours")
        # One transaction; it names the chat as well as the watch: another user's id changes
        # nothing.
        edit = WatchEdit(paused if isinstance(paused, bool) else None, has_cap, cap)
        changed = await self._store.edit_watch(chat_id, sub_id, edit)
        if changed is None:
            return _error(404, "no such watch of yours")
        return web.json_response(_watch_row(changed, await self._language(user)))

    async def _delete_watch(self, request: web.Request, user: AppUser) -> web.StreamResponse:
        sub_id = _watch_id(request)
        if sub_id is None or not await self._store.delete_watch(user.user_id, sub_id):
            return _error(404, "no such watch of yours")
        return web.Response(status=204)

    async def _fit(self, request: web.Request, user: AppUser) -> web.StreamResponse:
        language = await self._language(user)
        i18n = self._translators[language]
        body = await _json_body(request)
        if body is None:
            return _error(400, "send the calculator's fields as a JSON object")
        try:
            parsed = calculator_run(body, language)
        except FieldError as error:
            return _field_error(i18n, error)
        except QueryError as error:
            return _error(400, to_plain(error_text(i18n, error)))
        answer = await build(parsed, self._store)
        # The short answer and its details («Подробнее» in the chat), which the app opens in
        # place; the command says the same run in the chat's words, for the person to copy.
        return web.json_response(
            {
                "command": command_for(parsed),
                "text": to_plain(render_short(answer, language)),
                "details": to_plain(render_details(answer, language)),
            }
        )


def calculator_run(fields: Mapping[str, Any], language: str) -> ParsedQuery:
    """The calculator's fields read into the run they state, each as the chat reads those
    words (bot.fields); FieldError names the field that cannot be read. The answer is the
    one /fit gives to the same run."""
    unknown = sorted(set(fields) - set(CALCULATOR_FIELDS))
    if unknown:
        raise FieldError(unknown[0], fields[unknown[0]])
    if "model" not in fields:
        raise FieldError("model")
    named = read_model(fields["model"])
    given = Given(model=named.model, size_b=named.size_b, text_language=language)
    method = fields.get("method")
    if method is not None:
        if method not in _METHODS:
            raise FieldError("method", method)
        given.method = Method(method)
    if fields.get("ctx") is not None:
        given.ctx = read_count(fields["ctx"], "ctx", *_limits("ctx"), thousand=1024)
    if fields.get("bs") is not None:
        given.micro_batch = read_count(fields["bs"], "bs", *_limits("bs"))
    if fields.get("dataset") is not None:
        dataset = read_dataset(fields["dataset"])
        given.dataset_examples = dataset.examples
        given.dataset_tokens = dataset.tokens
        given.dataset_bytes = dataset.text_bytes
    if fields.get("gpu") is not None:
        given.target_gpu, given.target_family = read_card(fields["gpu"])
    return finish(given)


def _limits(key: str) -> tuple[int, int]:
    low, high = LIMITS[key]
    return int(low), int(high)


def _field_error(i18n: Translator, error: FieldError) -> web.Response:
    """A field the person typed that cannot be read, in their language, with the near miss."""
    key = f"app-field-error-{error.field}"
    if error.near is not None and i18n.has(f"{key}-near"):
        key = f"{key}-near"
    if not i18n.has(key):
        key = "app-field-error"
    text = i18n(key, value=error.value, near=error.near or "", field=error.field)
    return web.json_response({"error": to_plain(text), "field": error.field}, status=400)


def _watch_row(sub: Subscription, language: str) -> dict[str, Any]:
    return {
        "id": sub.id,
        "label": short_label(sub.filter),
        "summary": to_plain(describe(sub.filter, language)),
        "paused": sub.paused,
        "max_rub_per_gpu_hour": sub.filter.max_rub_per_gpu_hour,
    }


def _watch_id(request: web.Request) -> int | None:
    raw = request.match_info["id"]
    # ASCII digits only: str.isdigit() also takes «³», which int() refuses.
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else None


async def _json_body(request: web.Request) -> dict[str, Any] | None:
    if request.content_length is not None and request.content_length > MAX_BODY:
        return None
    raw = await request.content.read(MAX_BODY + 1)
    if len(raw) > MAX_BODY:
        return None
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)
