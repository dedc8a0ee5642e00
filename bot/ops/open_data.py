"""The market as open data: read-only JSON (and CSV) under /api/v1 on the ops server.

    GET /api/v1/offers      every offer listed now, in /prices' order, with its filters
    GET /api/v1/offers.csv  the same as CSV
    GET /api/v1/history     a GPU's change points over some days, and the low
    GET /api/v1/providers   each provider's health, last good scrape and failing parts
    GET /api/v1/openapi.json  the description of the three

Every answer is read from the database, so a follower serves the same as the leader. Each row
says when it was observed (the last scrape in which its part succeeded), whether its
provider's latest scrape confirmed it (`stale`, with why) and whether it still counts as
rentable (monitor.freshness), and where it came from; `stock_count` null means the provider
does not publish a count, which is not the same as 0. Answers carry a strong ETag (a hash of the
body): a client that sends it back in If-None-Match gets 304 and no body. Each client (by
address) has a token bucket; past it, 429 with Retry-After.
"""

from __future__ import annotations

import csv
import hashlib
import io
import ipaddress
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeAlias

from aiohttp import web

from bot.fields import FieldError, read_card_filter, read_memory, read_price
from bot.ops.openapi import OPENAPI
from bot.views.prices import ranked
from monitor.cards import CardFilter
from monitor.freshness import ObservedOffer
from monitor.health import ProviderHealth, is_fresh
from monitor.history import HistoryPoint
from monitor.offers import Billing, billing_of
from monitor.price_query import PriceQuery
from monitor.providers import PROVIDERS
from monitor.subscriptions import WatchFilter

# A client may burst this many requests, then one per REFILL_S: enough for a dashboard that
# polls every few seconds, not for a crawler hammering a bot that runs on one small server.
BURST = 30
REFILL_S = 1.0
# Clients remembered at most; the least recently seen is forgotten first.
MAX_CLIENTS = 10_000
# Prices change at most once a scrape (10–15 min); a minute of caching costs nothing.
CACHE_CONTROL = "public, max-age=60"
MAX_DAYS = 90  # history kept for charts is 30 days and more; a cap keeps a query bounded
# Answers kept, by URL, while the data and the minute are the ones they were made from: a
# revalidation (If-None-Match) then costs one small read, not the query, the JSON and the
# hash again. Bounded in count; no older than the Cache-Control max-age, for anything the
# version does not see (the daily history purge).
MAX_ANSWERS = 256
ANSWER_TTL_S = 60.0

# Query parameters of /api/v1/offers (besides in_stock and format).
_OFFER_PARAMS = ("gpu", "min_vram", "max", "provider", "location", "billing")
_FIELD_REASONS = {
    "gpu": "gpu: a GPU or family, e.g. h100, a100 80gb, rtx 4090",
    "min_vram": "min_vram: GB per GPU, e.g. 24 or 80",
    "max": "max: ₽ per GPU-hour above 0, e.g. 300 or 300,5",
}
_BILLINGS = tuple(billing.value for billing in Billing)
# The first characters that make a spreadsheet read a cell as a formula.
FORMULA_STARTS = ("=", "+", "-", "@")
_TRUE, _FALSE = ("1", "true", "yes"), ("0", "false", "no", "")

OFFER_FIELDS = (
    "provider",
    "provider_name",
    "sku",
    "location",
    "gpu",
    "gpu_raw",
    "gpu_count",
    "vram_gb",
    "billing",
    "price_hour_rub",
    "price_gpu_hour_rub",
    "price_month_rub",
    "price_source",
    "converted",
    "vat",
    "stock",
    "stock_count",
    "url",
    "source_url",
    "observed_at",
    "stale",
    "stale_reason",
    "error_class",
    "rentable",
)


# An address or network the rate limit trusts to name the client (Settings.trusted_proxies).
Network: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network


class OpenDataStore(Protocol):
    @property
    def stale_after(self) -> timedelta: ...

    async def data_version(self) -> str: ...

    async def observed_offers(self, now: datetime | None = None) -> list[ObservedOffer]: ...

    async def provider_health(self) -> list[ProviderHealth]: ...

    async def price_series(self, cards: CardFilter, since: datetime) -> list[HistoryPoint]: ...

    async def lowest_price(self, cards: CardFilter, since: datetime) -> HistoryPoint | None: ...


class BadParameterError(ValueError):
    """A query parameter the API cannot use; the message says which and why, `param` names
    it (the Mini App words its own error for it, in the user's language)."""

    def __init__(self, reason: str, param: str | None = None) -> None:
        super().__init__(reason)
        self.param = param


class ClientBuckets:
    """A token bucket per client address, on an injectable monotonic clock."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, at)

    def take(self, client: str) -> float:
        """0 when the request may go ahead; else the seconds until it may."""
        now = self._clock()
        tokens, at = self._buckets.pop(client, (float(BURST), now))
        tokens = min(float(BURST), tokens + (now - at) / REFILL_S)
        wait = 0.0 if tokens >= 1 else (1 - tokens) * REFILL_S
        self._buckets[client] = (tokens - 1 if wait == 0 else tokens, now)  # newest last
        if len(self._buckets) > MAX_CLIENTS:
            del self._buckets[next(iter(self._buckets))]
        return wait


class OpenData:
    """The /api/v1 routes over a store; `intervals` are the providers' refresh intervals."""

    def __init__(
        self,
        store: OpenDataStore,
        intervals: Callable[[], Mapping[str, float]],
        *,
        started_at: Callable[[], datetime],
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        buckets: ClientBuckets | None = None,
        clock: Callable[[], float] = time.monotonic,
        trusted_proxies: Sequence[Network] = (),
    ) -> None:
        self._store = store
        self._intervals = intervals
        self._started_at = started_at
        self._now = now
        self._buckets = buckets or ClientBuckets()
        self._clock = clock
        self._trusted_proxies = tuple(trusted_proxies)
        self._answers: dict[str, _Answer] = {}

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/api/v1/offers", self._guarded(self._offers))
        app.router.add_get("/api/v1/offers.csv", self._guarded(self._offers_csv))
        app.router.add_get("/api/v1/history", self._guarded(self._history))
        app.router.add_get("/api/v1/providers", self._guarded(self._providers))
        app.router.add_get("/api/v1/openapi.json", self._guarded(self._openapi))

    def refusal(self, request: web.Request) -> web.Response | None:
        """429 when the request's client has spent its bucket, else None (and a token taken):
        the API's routes and the MCP endpoint (bot.ops.mcp_server) draw on one bucket."""
        client = client_address(
            request.remote, request.headers.get("X-Forwarded-For"), self._trusted_proxies
        )
        wait = self._buckets.take(client)
        return too_many_requests(wait) if wait > 0 else None

    def _guarded(self, read: Callable[[web.Request], Any]) -> Callable[[web.Request], Any]:
        async def handle(request: web.Request) -> web.Response:
            refused = self.refusal(request)
            if refused is not None:
                return refused
            try:
                answer = await self._answer(request, read)
            except BadParameterError as error:
                body = {"error": str(error)}
                if error.param is not None:
                    body["param"] = error.param
                return web.json_response(body, status=400)
            return _cached(request, answer)

        return handle

    async def _answer(self, request: web.Request, read: Callable[[web.Request], Any]) -> _Answer:
        # The minute too: answers say how fresh things are relative to now.
        minute = self._now().replace(second=0, microsecond=0)
        version = f"{await self._store.data_version()}@{minute.isoformat()}"
        key = f"{request.path_qs} csv={_wants_csv(request)}"
        answer = self._answers.get(key)
        if answer is None or answer.version != version or self._expired(answer):
            body, content_type = await read(request)
            answer = _Answer(version, self._clock(), body, content_type, _etag(body))
            self._remember(key, answer)
        return answer

    def _expired(self, answer: _Answer) -> bool:
        return self._clock() - answer.made_at > ANSWER_TTL_S

    def _remember(self, key: str, answer: _Answer) -> None:
        self._answers.pop(key, None)
        self._answers[key] = answer  # newest last
        if len(self._answers) > MAX_ANSWERS:
            del self._answers[next(iter(self._answers))]

    async def _offers(self, request: web.Request) -> tuple[bytes, str]:
        if _wants_csv(request):
            return await self._offers_csv(request)
        return _json(await self.offers(request.query)), "application/json"

    async def _offers_csv(self, request: web.Request) -> tuple[bytes, str]:
        rows, _ = await self._offer_table(request.query)
        return _csv(rows), "text/csv; charset=utf-8"

    async def offers(self, params: Mapping[str, str]) -> dict[str, Any]:
        """/api/v1/offers's JSON body for these query parameters (BadParameterError)."""
        rows, newest = await self._offer_table(params)
        return {
            "offers": rows,
            "count": len(rows),
            "generated_at": _iso(newest),
            "stale_after_s": round(self._store.stale_after.total_seconds()),
        }

    async def _offer_table(
        self, params: Mapping[str, str]
    ) -> tuple[list[dict[str, Any]], datetime | None]:
        """The rows the parameters select, and the newest observation: not the clock, so the
        body (and its ETag) stays the same between scrapes, and it says how old the freshest
        row is."""
        query, in_stock = _offer_query(params)
        observed = await self._store.observed_offers(self._now())
        rows = [
            _offer_row(item)
            # The order /prices shows (training-grade cards first, cheapest inside a card):
            # the Mini App's table keeps it as its default.
            for item in ranked(observed)
            # In stock while its data counts: a stale offer past stale_after is not.
            if query.accepts(item.offer) and (not in_stock or item.in_stock)
        ]
        return rows, max((item.observed_at for item in observed), default=None)

    async def _history(self, request: web.Request) -> tuple[bytes, str]:
        return _json(await self.history(request.query)), "application/json"

    async def history(self, params: Mapping[str, str]) -> dict[str, Any]:
        """/api/v1/history's body for these query parameters (BadParameterError)."""
        _only(params, ("gpu", "days"))
        gpu = params.get("gpu", "").strip()
        try:
            cards = read_card_filter(gpu) if gpu else None
        except FieldError:
            cards = None
        if cards is None:
            raise BadParameterError("gpu: name a GPU or a family, e.g. gpu=h100")
        days = _integer(params.get("days", "30"), "days", 1, MAX_DAYS)
        # To the minute: the same question within a minute has the same answer (and ETag).
        since = self._now().replace(second=0, microsecond=0) - timedelta(days=days)
        points = await self._store.price_series(cards, since)
        low = await self._store.lowest_price(cards, since)
        return {
            "gpu": cards.label,
            "gpu_ids": sorted(cards.catalogue_ids()),
            "since": since.isoformat(),
            "points": [_point_row(point) for point in points],
            "low": None if low is None else _point_row(low),
        }

    async def _providers(self, request: web.Request) -> tuple[bytes, str]:
        _only(request.query, ())
        return _json(await self.providers()), "application/json"

    async def providers(self) -> dict[str, Any]:
        """/api/v1/providers's body: each provider's health."""
        health = {row.provider: row for row in await self._store.provider_health()}
        intervals = self._intervals()
        now = self._now()
        rows = []
        for provider in PROVIDERS:
            row = health.get(provider.id)
            interval = intervals.get(provider.id, float(provider.interval_s))
            success = row.last_success_at if row is not None else None
            rows.append(
                {
                    "id": provider.id,
                    "name": provider.name,
                    "site": provider.public_url,
                    "source_url": provider.base_url,
                    "refresh_interval_s": interval,
                    "last_attempt_at": _iso(row.last_attempt_at if row else None),
                    "last_good_scrape_at": _iso(success),
                    "fresh": is_fresh(success, interval, now, started_at=self._started_at()),
                    "failing": bool(row and row.failing),
                    "consecutive_failures": row.consecutive_failures if row else 0,
                    "last_error_class": row.last_error_class if row else None,
                    "failing_parts": [
                        {
                            "part": part.part,
                            "state": part.state.value,
                            "error_class": part.error_class,
                        }
                        for part in (row.troubled_parts if row else ())
                    ],
                    "offers": row.offer_count if row else 0,
                }
            )
        return {"providers": rows}

    async def _openapi(self, request: web.Request) -> tuple[bytes, str]:
        return _OPENAPI_BODY, "application/json"


def too_many_requests(wait_s: float) -> web.Response:
    """429, with the whole seconds until the bucket has a token again."""
    return web.json_response(
        {"error": "too many requests"},
        status=429,
        headers={"Retry-After": str(max(1, round(wait_s + 0.5)))},
    )


def client_address(peer: str | None, forwarded: str | None, trusted: Sequence[Network]) -> str:
    """Whom a request counts against. Behind a trusted proxy (`GPURADAR_TRUSTED_PROXIES`: the
    Caddy of deploy/compose.yaml) the client is the last X-Forwarded-For entry, which the
    proxy appended; from any other peer, a neighbour on the same private network included,
    the header is whatever the client wrote, so the peer itself counts."""
    if peer is None:
        return "?"
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return peer
    behind_proxy = any(address in network for network in trusted)
    last = forwarded.rsplit(",", 1)[-1].strip() if forwarded else ""
    return last if behind_proxy and last else peer


def _offer_query(params: Mapping[str, str]) -> tuple[PriceQuery, bool]:
    """The offer filter the parameters state, each read as the chat reads those words
    (bot.fields): «a100 80gb», «rtx 4090», «300,5». Typed values in, nothing glued into
    /prices words and parsed again."""
    _only(params, (*_OFFER_PARAMS, "in_stock", "format"))
    value = {name: params.get(name, "").strip() for name in _OFFER_PARAMS}
    try:
        card = read_card_filter(value["gpu"]) if value["gpu"] else None
        vram = read_memory(value["min_vram"], "min_vram") if value["min_vram"] else None
        cap = read_price(value["max"], "max", high=1_000_000) if value["max"] else None
    except FieldError as error:
        raise BadParameterError(_FIELD_REASONS[error.field], error.field) from None
    providers: set[str] = set()
    if value["provider"]:
        provider = PROVIDERS.find(value["provider"])
        if provider is None:
            raise BadParameterError(f"provider: one of {', '.join(PROVIDERS.ids)}", "provider")
        providers.add(provider)
    billing = None
    if value["billing"]:
        if value["billing"] not in _BILLINGS:
            raise BadParameterError(f"billing: one of {', '.join(_BILLINGS)}", "billing")
        billing = Billing(value["billing"])
    in_stock = params.get("in_stock", "").lower()
    if in_stock not in (*_TRUE, *_FALSE):
        raise BadParameterError("in_stock: true or false", "in_stock")
    floors = [v for v in (vram, card.min_vram_gb if card else None) if v is not None]
    watch = WatchFilter(
        gpu=card.gpu if card else None,
        family=card.family if card else None,
        min_vram_gb=max(floors) if floors else None,
        max_rub_per_gpu_hour=cap,
        providers=frozenset(providers),
        location=value["location"] or None,
    )
    filtered = watch != WatchFilter()
    return PriceQuery(watch if filtered else None, billing), in_stock in _TRUE


def _only(params: Mapping[str, str], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        known = ", ".join(allowed) or "none"
        raise BadParameterError(f"unknown parameter {unknown[0]!r} (known: {known})")


def _integer(raw: str, name: str, low: int, high: int) -> int:
    # ASCII digits only: str.isdigit() also takes «³» and «٣», which int() refuses.
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise BadParameterError(f"{name}: a whole number from {low} to {high}")
    return int(raw)


def _wants_csv(request: web.Request) -> bool:
    wanted = request.query.get("format", "").lower()
    if wanted not in ("", "json", "csv"):
        raise BadParameterError("format: json or csv")
    return wanted == "csv" or (not wanted and "text/csv" in request.headers.get("Accept", ""))


def _offer_row(item: ObservedOffer) -> dict[str, Any]:
    offer = item.offer
    price = offer.price
    return {
        "provider": offer.provider,
        "provider_name": PROVIDERS.name(offer.provider),
        "sku": offer.sku,
        "location": offer.location,
        "gpu": offer.gpu,
        "gpu_raw": offer.gpu_raw,
        "gpu_count": offer.gpu_count,
        "vram_gb": offer.vram_gb,
        "billing": billing_of(price).value,
        "price_hour_rub": round(price.rub_per_hour, 2),
        "price_gpu_hour_rub": round(offer.rub_per_gpu_hour, 2),
        # Only what a monthly rental costs; an hourly offer's 720 hours would be our sum.
        "price_month_rub": round(price.rub_per_month, 2) if not price.hourly else None,
        "price_source": price.source,
        "converted": price.converted,
        "vat": offer.vat.value,
        "stock": offer.stock.value,
        "stock_count": offer.stock_count,
        "url": offer.url,
        "source_url": PROVIDERS.get(offer.provider).base_url
        if offer.provider in PROVIDERS
        else None,
        "observed_at": item.observed_at.isoformat(),
        "stale": item.stale is not None,
        "stale_reason": None if item.stale is None else item.stale.state.value,
        "error_class": None if item.stale is None else item.stale.error_class,
        "rentable": item.rentable,
    }


def _point_row(point: HistoryPoint) -> dict[str, Any]:
    return {
        "provider": point.provider,
        "provider_name": PROVIDERS.name(point.provider),
        "sku": point.sku,
        "location": point.location,
        "gpu": point.gpu,
        "gpu_count": point.gpu_count,
        "at": point.at.isoformat(),
        "price_hour_rub": round(point.price_hour, 2),
        "price_gpu_hour_rub": round(point.price_per_gpu_hour, 2),
        "stock": point.stock.value,
        "stock_count": point.stock_count,
    }


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _json(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def _csv(rows: list[dict[str, Any]]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=OFFER_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue().encode()


def _cell(value: Any) -> Any:
    """A CSV cell: null is empty, a boolean is JSON's true/false, and text that a spreadsheet
    would run as a formula gets a leading ' (OWASP, "CSV Injection")."""
    if isinstance(value, str) and value[:1] in FORMULA_STARTS:
        return "'" + value
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else value


_OPENAPI_BODY = _json(OPENAPI)  # the same bytes, and so the same ETag, every time


@dataclass(frozen=True)
class _Answer:
    version: str
    made_at: float
    body: bytes
    content_type: str
    etag: str


def _etag(body: bytes) -> str:
    # Weak: the same answer goes out gzip-compressed or not (bot/ops/server.py `compressed`),
    # and a strong validator would have to differ between the two.
    return 'W/"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _cached(request: web.Request, answer: _Answer) -> web.Response:
    # JSON or CSV is chosen by Accept, and either may be compressed: a cache in between (the
    # browser's own) must keep them apart.
    headers = {
        "ETag": answer.etag,
        "Cache-Control": CACHE_CONTROL,
        "Vary": "Accept, Accept-Encoding",
    }
    if answer.etag in request.headers.get("If-None-Match", ""):
        return web.Response(status=304, headers=headers)
    return web.Response(body=answer.body, headers={**headers, "Content-Type": answer.content_type})
