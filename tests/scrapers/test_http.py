"""The shared HTTP layer against a scripted local server: retries, politeness, limits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
from aiohttp import web

from monitor.scrape import AntiBotError, HttpStatusError, LayoutError, NetworkError
from scrapers.http import USER_AGENT, Http, HttpSettings
from tests.polling import eventually

Script = Callable[[web.Request], web.StreamResponse | None]


class Scripted:
    """A local server whose answers a test scripts per request number."""

    def __init__(self) -> None:
        self.script: list[Callable[[web.Request], web.StreamResponse]] = []
        self.seen: list[web.Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.gate: asyncio.Event | None = None
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.gate is not None:
                await self.gate.wait()
            step = self.script[min(len(self.seen), len(self.script)) - 1]
            return step(request)
        finally:
            self.in_flight -= 1

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self.runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self.runner.addresses[0][1]}"


@pytest.fixture
async def server() -> AsyncIterator[Scripted]:
    scripted = Scripted()
    await scripted.start()
    yield scripted
    assert scripted.runner is not None
    await scripted.runner.cleanup()


@pytest.fixture
async def sleeps() -> list[float]:
    return []


@pytest.fixture
async def http(sleeps: list[float]) -> AsyncIterator[Http]:
    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    settings = HttpSettings(total_timeout_s=0.5, attempts=3, max_bytes=1000, per_host=2)
    async with Http(settings, sleep=record) as client:
        yield client


def status(code: int, **headers: str) -> Callable[[web.Request], web.StreamResponse]:
    return lambda request: web.Response(status=code, text="x", headers=headers)


def ok(body: str = '{"ok": true}', **headers: str) -> Callable[[web.Request], web.StreamResponse]:
    return lambda request: web.Response(text=body, content_type="application/json", headers=headers)


async def test_5xx_is_retried_with_backoff_then_succeeds(server, http, sleeps):
    server.script = [status(503), status(500), ok()]
    response = await http.get("p", server.url + "/a")
    assert response.json("p") == {"ok": True}
    assert len(server.seen) == 3
    assert len(sleeps) == 2
    assert all(0 < pause <= 8 for pause in sleeps)
    assert server.seen[0].headers["User-Agent"] == USER_AGENT


async def test_retry_after_is_honoured(server, http, sleeps):
    server.script = [status(429, **{"Retry-After": "7"}), ok()]
    await http.get("p", server.url + "/a")
    assert sleeps == [7.0]


async def test_persistent_5xx_becomes_http_status_error(server, http):
    server.script = [status(502)]
    with pytest.raises(HttpStatusError) as raised:
        await http.get("selectel", server.url + "/a")
    assert raised.value.status == 502
    assert raised.value.provider == "selectel"
    assert len(server.seen) == 3


async def test_4xx_is_not_retried(server, http):
    server.script = [status(404)]
    with pytest.raises(HttpStatusError):
        await http.get("p", server.url + "/missing")
    assert len(server.seen) == 1


async def test_unreachable_host_is_a_network_error(http):
    with pytest.raises(NetworkError, match=r"127\.0\.0\.1:1"):
        await http.get("p", "http://127.0.0.1:1/nothing")


async def test_timeout_is_a_network_error(server, http):
    server.gate = asyncio.Event()  # never opened: every request hangs until the client gives up
    server.script = [ok()]
    with pytest.raises(NetworkError, match="Timeout"):
        await http.get("p", server.url + "/slow")
    server.gate.set()


async def test_conditional_get_reuses_the_cached_body(server, http):
    server.script = [
        ok('{"v": 1}', ETag='"abc"'),
        lambda request: (
            web.Response(status=304)
            if request.headers.get("If-None-Match") == '"abc"'
            else web.Response(text="wrong")
        ),
    ]
    first = await http.get("p", server.url + "/c")
    second = await http.get("p", server.url + "/c")
    assert not first.from_cache
    assert second.from_cache
    assert second.json("p") == {"v": 1}


async def test_oversized_body_is_refused(server, http):
    server.script = [ok("x" * 5000)]
    with pytest.raises(LayoutError, match="over 1000"):
        await http.get("p", server.url + "/big")


async def test_captcha_page_is_recognised(server, http):
    page = "<html><body><div class='g-recaptcha'>captcha</div></body></html>"
    server.script = [lambda request: web.Response(text=page, content_type="text/html")]
    with pytest.raises(AntiBotError):
        await http.get("p", server.url + "/gpu/")


async def test_at_most_per_host_requests_in_flight(server, http):
    server.gate = asyncio.Event()
    server.script = [ok()]
    requests = [asyncio.create_task(http.get("p", server.url + f"/{i}")) for i in range(6)]
    await eventually(lambda: len(server.seen) >= 2)
    for _ in range(20):  # give any excess request the chance to arrive (it must not)
        await asyncio.sleep(0)
    assert server.in_flight == 2
    server.gate.set()
    await asyncio.gather(*requests)
    assert server.max_in_flight == 2


async def test_form_post_sends_fields(server, http):
    captured: dict[str, str] = {}

    def handler(request: web.Request) -> web.StreamResponse:
        captured["type"] = request.headers["Content-Type"]
        return web.Response(text='{"result": "OK"}', content_type="application/json")

    server.script = [handler]
    await http.post_form("hostkey", server.url + "/presets.php", {"action": "list"})
    assert captured["type"].startswith("application/x-www-form-urlencoded")
