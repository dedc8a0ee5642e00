"""The one HTTP client every scraper uses: timeouts, retries, politeness and size limits.

* one aiohttp ClientSession, with connect and total timeouts, gzip, an honest User-Agent;
* retries with exponential backoff and jitter on timeouts, connection errors, 5xx and 429,
  honouring Retry-After (tenacity does the retrying);
* at most `per_host` requests in flight to one host;
* conditional GET: ETag / Last-Modified are remembered and a 304 returns the cached body;
* redirects followed by hand: never to another host (an answer from elsewhere is not the
  provider's data, however well formed), and at most MAX_REDIRECTS within the host;
* a cap on the body size, and captcha / bot-check pages recognised as such: challenge markers
  *and* the markup the caller expects missing (a normal page that merely loads a reCAPTCHA
  script is still the page);
* an observer that sees every final answer: what `python -m scrapers --record` writes down.

Failures become typed ScrapeErrors naming the provider; nothing here returns "no data".
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

import aiohttp
from multidict import CIMultiDict
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential_jitter,
)

from monitor.scrape import (
    AntiBotError,
    HttpStatusError,
    LayoutError,
    NetworkError,
    RedirectError,
)

USER_AGENT = "gpuradar/0.1 (GPU price monitor for a Telegram bot; +https://t.me/gpuradar_bot)"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Within the provider's host: enough for http -> https -> a trailing slash -> a locale.
MAX_REDIRECTS = 3
# Markers of bot-protection pages (Cloudflare, DDoS-Guard, Qrator, generic captchas). Alone
# they prove nothing: a normal page may load a captcha script for its feedback form.
_ANTI_BOT = re.compile(
    r"captcha|cf-chl|challenge-platform|ddos-guard|qrator|checking your browser"
    r"|проверка браузера|подтвердите, что вы не робот",
    re.IGNORECASE,
)
# Challenge pages put their markers up front; the rest of a long page is not searched.
_MARKER_WINDOW = 64 * 1024
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Exchange:
    """One request and the final answer to it (after redirects), as the observer sees it."""

    provider: str
    method: str
    url: str  # as requested, without the query
    params: Mapping[str, str]
    form: Mapping[str, str]
    status: int
    headers: Mapping[str, str]
    body: bytes
    final_url: str
    at: datetime


Observer = Callable[[Exchange], None]


@dataclass(frozen=True)
class HttpSettings:
    connect_timeout_s: float = 5.0
    total_timeout_s: float = 20.0
    attempts: int = 3
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 8.0
    retry_after_max_s: float = 60.0
    max_bytes: int = 5_000_000
    per_host: int = 2
    user_agent: str = USER_AGENT


@dataclass(frozen=True)
class Response:
    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    from_cache: bool = False

    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self, provider: str) -> Any:
        try:
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError) as error:
            raise LayoutError(provider, f"{self.url}: not JSON ({error})") from None


class HttpClosedError(RuntimeError):
    """A request after `Http.close()`."""


class _RetryableError(Exception):
    """Internal: a failure worth another attempt; `retry_after` from the server if it said."""

    def __init__(self, final: Exception, retry_after: float | None = None) -> None:
        super().__init__(str(final))
        self.final = final
        self.retry_after = retry_after


@dataclass
class _Cached:
    etag: str | None
    last_modified: str | None
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)


class Http:
    def __init__(
        self,
        settings: HttpSettings | None = None,
        sleep: Sleep = asyncio.sleep,
        observe: Observer | None = None,
    ):
        self.settings = settings or HttpSettings()
        self._sleep = sleep
        self._observe = observe
        self._session: aiohttp.ClientSession | None = None
        self._closed = False
        self._hosts: dict[str, asyncio.Semaphore] = {}
        self._cache: dict[str, _Cached] = {}

    async def __aenter__(self) -> Http:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _client(self) -> aiohttp.ClientSession:
        if self._closed:
            # A refresh still running as the bot stops: a new session now would never be
            # closed (aiohttp warns of it when it is collected, in whatever runs then).
            raise HttpClosedError("the HTTP client is closed: the bot is stopping")
        if self._session is None or self._session.closed:
            timeout = aiohttp.ClientTimeout(
                total=self.settings.total_timeout_s, sock_connect=self.settings.connect_timeout_s
            )
            self._session = aiohttp.ClientSession(
                timeout=timeout,
                headers={"User-Agent": self.settings.user_agent, "Accept-Encoding": "gzip"},
            )
        return self._session

    async def close(self) -> None:
        self._closed = True
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def get(
        self,
        provider: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        expect: re.Pattern[bytes] | None = None,
    ) -> Response:
        """GET `url`. `expect` matches the markup a real answer has (an HTML page's table):
        a page with challenge markers is a bot check only when it does not match."""
        return await self._request(provider, "GET", url, params=params, expect=expect)

    async def post_form(self, provider: str, url: str, data: Mapping[str, str]) -> Response:
        return await self._request(provider, "POST", url, data=data)

    async def _request(
        self,
        provider: str,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        data: Mapping[str, str] | None = None,
        expect: re.Pattern[bytes] | None = None,
    ) -> Response:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.attempts),
            wait=self._wait,
            retry=retry_if_exception_type(_RetryableError),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._once(provider, method, url, params, data, expect)
        except _RetryableError as exhausted:
            raise exhausted.final from None
        raise AssertionError("unreachable: tenacity either returns or raises")  # pragma: no cover

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, _RetryableError) and error.retry_after is not None:
            return min(error.retry_after, self.settings.retry_after_max_s)
        backoff = wait_exponential_jitter(
            multiplier=self.settings.backoff_initial_s, max=self.settings.backoff_max_s
        )
        return float(backoff(state))

    async def _once(
        self,
        provider: str,
        method: str,
        url: str,
        params: Mapping[str, str] | None,
        data: Mapping[str, str] | None,
        expect: re.Pattern[bytes] | None,
    ) -> Response:
        cache_key = f"{method} {url} {sorted((params or {}).items())}"
        headers = self._conditional_headers(cache_key) if method == "GET" else {}
        hop_method, hop_url, hop_params, hop_data = method, url, params, data
        for hop in range(MAX_REDIRECTS + 1):
            status, response_headers, body, final_url = await self._send(
                provider, hop_method, hop_url, hop_params, hop_data, headers
            )
            if status not in REDIRECT_STATUSES:
                break
            target = _redirect_target(provider, url, final_url, response_headers, hop)
            if status == 303 or (status in (301, 302) and hop_method != "GET"):
                hop_method, hop_data = "GET", None  # what browsers and aiohttp do
            hop_url, hop_params, headers = target, None, {}
        if self._observe is not None and status != 304:
            self._observe(
                Exchange(
                    provider,
                    method,
                    url,
                    dict(params or {}),
                    dict(data or {}),
                    status,
                    response_headers,
                    body,
                    final_url,
                    datetime.now(UTC),
                )
            )
        if status == 304 and cache_key in self._cache:
            cached = self._cache[cache_key]
            return Response(url, 200, cached.headers, cached.body, from_cache=True)
        if status in RETRY_STATUSES:
            failure = HttpStatusError(provider, f"{method} {url}: HTTP {status}", status)
            raise _RetryableError(failure, _retry_after(response_headers.get("Retry-After")))
        if not 200 <= status < 300:
            raise HttpStatusError(provider, f"{method} {url}: HTTP {status}", status)
        if _looks_like_bot_check(response_headers, body, expect):
            raise AntiBotError(provider, f"{method} {url}: a bot-check page came back")
        if method == "GET":
            self._remember(cache_key, response_headers, body)
        return Response(final_url, status, response_headers, body)

    async def _send(
        self,
        provider: str,
        method: str,
        url: str,
        params: Mapping[str, str] | None,
        data: Mapping[str, str] | None,
        headers: Mapping[str, str],
    ) -> tuple[int, CIMultiDict[str], bytes, str]:
        """One HTTP exchange, redirects not followed: (status, headers, body, URL asked)."""
        host = urlsplit(url).netloc
        semaphore = self._hosts.setdefault(host, asyncio.Semaphore(self.settings.per_host))
        try:
            async with (
                semaphore,
                self._client().request(
                    method,
                    url,
                    params=params,
                    data=data,
                    headers=headers,
                    allow_redirects=False,
                ) as response,
            ):
                if response.status in REDIRECT_STATUSES:
                    body = b""  # a redirect's body is never data
                else:
                    body = await self._read_capped(provider, url, response)
                return response.status, CIMultiDict(response.headers), body, str(response.url)
        except (TimeoutError, aiohttp.ClientError) as error:
            detail = f"{method} {url}: {type(error).__name__} {error}".strip()
            raise _RetryableError(NetworkError(provider, detail)) from None

    async def _read_capped(
        self, provider: str, url: str, response: aiohttp.ClientResponse
    ) -> bytes:
        limit = self.settings.max_bytes
        declared = response.content_length
        if declared is not None and declared > limit:
            raise LayoutError(provider, f"{url}: body of {declared} bytes is over {limit}")
        chunks, size = [], 0
        async for chunk in response.content.iter_chunked(64 * 1024):
            size += len(chunk)
            if size > limit:
                raise LayoutError(provider, f"{url}: body is over {limit} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def _conditional_headers(self, cache_key: str) -> dict[str, str]:
        cached = self._cache.get(cache_key)
        if cached is None:
            return {}
        headers = {}
        if cached.etag:
            headers["If-None-Match"] = cached.etag
        if cached.last_modified:
            headers["If-Modified-Since"] = cached.last_modified
        return headers

    def _remember(self, cache_key: str, headers: Mapping[str, str], body: bytes) -> None:
        etag, modified = headers.get("ETag"), headers.get("Last-Modified")
        if etag or modified:
            self._cache[cache_key] = _Cached(etag, modified, body, headers)


def _retry_after(value: str | None) -> float | None:
    """Retry-After is either seconds or an HTTP date."""
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (moment - datetime.now(UTC)).total_seconds())


def _redirect_target(
    provider: str, origin: str, current: str, headers: Mapping[str, str], hop: int
) -> str:
    """Where a redirect points, if we may go there: the provider's own host only, and at most
    MAX_REDIRECTS times."""
    location = headers.get("Location")
    if not location:
        raise RedirectError(provider, f"{origin}: a redirect without a Location")
    target = urljoin(current, location)
    if not same_host(origin, target):
        raise RedirectError(provider, f"{origin}: redirected to another host ({target}), refused")
    if hop >= MAX_REDIRECTS:
        raise RedirectError(provider, f"{origin}: more than {MAX_REDIRECTS} redirects")
    return target


def same_host(origin: str, target: str) -> bool:
    """Same host name and port; the one change allowed is http -> https on default ports."""
    a, b = urlsplit(origin), urlsplit(target)
    if a.hostname is None or a.hostname != b.hostname:
        return False
    if a.scheme == b.scheme:
        return a.port == b.port
    return (
        a.scheme == "http"
        and b.scheme == "https"
        and a.port in (None, 80)
        and b.port
        in (
            None,
            443,
        )
    )


def _looks_like_bot_check(
    headers: Mapping[str, str], body: bytes, expect: re.Pattern[bytes] | None
) -> bool:
    """A bot check is an HTML page with challenge markers that lacks the expected markup.

    JSON APIs never expect HTML, so for them (no `expect`) the markers decide; the markers are
    searched near the top only, where challenge pages have them.
    """
    if "html" not in headers.get("Content-Type", "").lower():
        return False
    head = body[:_MARKER_WINDOW].decode("utf-8", errors="replace")
    if not _ANTI_BOT.search(head):
        return False
    return expect is None or expect.search(body) is None
