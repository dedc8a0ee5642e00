"""The shared HTTP layer against a scripted local server: retries, politeness, limits."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from aiohttp import web

from monitor.scrape import AntiBotError, HttpStatusError, LayoutError, NetworkError, RedirectError
from scrapers.http import USER_AGENT, Exchange, Http, HttpSettings, same_host
from tests.polling import eventually

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

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


async def test_timeout_is_a_network_error(server, sleeps):
    server.gate = asyncio.Event()  # never opened: every request hangs until the client gives up
    server.script = [ok()]

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    # Each of the three attempts waits out the whole timeout: a short one, as that is all
    # this proves.
    settings = HttpSettings(total_timeout_s=0.1, attempts=3, max_bytes=1000, per_host=2)
    async with Http(settings, sleep=record) as impatient:
        with pytest.raises(NetworkError, match="Timeout"):
            await impatient.get("p", server.url + "/slow")
    assert len(sleeps) == 2  # tried three times
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


def redirect(to: str, code: int = 302) -> Callable[[web.Request], web.StreamResponse]:
    return lambda request: web.Response(status=code, headers={"Location": to})


async def test_redirects_within_the_host_are_followed_up_to_three(server, http):
    server.script = [redirect("/b"), redirect("/c", 301), redirect(server.url + "/d", 308), ok()]
    response = await http.get("p", server.url + "/a")
    assert response.json("p") == {"ok": True}
    assert [r.path for r in server.seen] == ["/a", "/b", "/c", "/d"]
    assert response.url == server.url + "/d"


async def test_a_fourth_redirect_is_refused(server, http):
    server.script = [redirect("/b"), redirect("/c"), redirect("/d"), redirect("/e"), ok()]
    with pytest.raises(RedirectError, match="more than 3 redirects"):
        await http.get("selectel", server.url + "/a")
    assert len(server.seen) == 4  # not retried: a redirect loop does not heal in a second


async def test_a_redirect_to_another_host_is_refused_without_asking_it():
    elsewhere, home = Scripted(), Scripted()
    await elsewhere.start()
    await home.start()
    try:
        elsewhere.script = [ok('{"result": []}')]
        home.script = [redirect(elsewhere.url + "/servers")]
        async with Http(HttpSettings(total_timeout_s=1.0)) as client:
            with pytest.raises(RedirectError, match="another host") as raised:
                await client.get("selectel", home.url + "/servers")
    finally:
        for runner in (elsewhere.runner, home.runner):
            assert runner is not None
            await runner.cleanup()
    assert raised.value.provider == "selectel"
    assert elsewhere.seen == []


def test_same_host_rules():
    assert same_host("https://api.selectel.ru/a", "https://api.selectel.ru/b?x=1")
    assert same_host("http://immers.cloud/gpu/", "https://immers.cloud/gpu/")
    assert not same_host("https://immers.cloud/gpu/", "http://immers.cloud/gpu/")
    assert not same_host("https://api.selectel.ru/a", "https://evil.example/a")
    assert not same_host("https://api.selectel.ru/a", "https://selectel.ru/a")
    assert not same_host("http://127.0.0.1:8000/a", "http://127.0.0.1:8001/a")


def _page_with_recaptcha(table: str) -> str:
    filler = "<p>" + "Серверы с GPU для обучения моделей. " * 40 + "</p>\n"
    page = (
        "<!DOCTYPE html><html><head><title>GPU</title>"
        '<script src="https://www.google.com/recaptcha/api.js" async defer></script>'
        "</head><body><form class='feedback'><div class='g-recaptcha'></div></form>"
        + table
        + filler * 60
        + "</body></html>"
    )
    assert len(page.encode()) > 90_000
    return page


TABLE = re.compile(rb"<table\b", re.IGNORECASE)


async def test_a_normal_page_that_loads_recaptcha_is_not_a_bot_check(server):
    page = _page_with_recaptcha("<table><tr><th>Конфигурация</th></tr></table>")
    server.script = [lambda request: web.Response(text=page, content_type="text/html")]
    async with Http(HttpSettings(total_timeout_s=1.0)) as client:
        response = await client.get("immers", server.url + "/gpu/4090/", expect=TABLE)
    assert b"<table>" in response.body


async def test_a_challenge_page_without_the_expected_markup_is_a_bot_check(server):
    challenge = (FIXTURES / "common" / "captcha.html").read_text(encoding="utf-8")
    server.script = [lambda request: web.Response(text=challenge, content_type="text/html")]
    async with Http(HttpSettings(total_timeout_s=1.0)) as client:
        with pytest.raises(AntiBotError):
            await client.get("immers", server.url + "/gpu/4090/", expect=TABLE)


async def test_a_page_without_markers_or_table_is_not_a_bot_check(server):
    server.script = [lambda request: web.Response(text="<html></html>", content_type="text/html")]
    async with Http(HttpSettings(total_timeout_s=1.0)) as client:
        response = await client.get("immers", server.url + "/gpu/", expect=TABLE)
    assert response.body == b"<html></html>"  # the parser reports the missing table


async def test_the_observer_sees_each_final_answer(server):
    seen: list[Exchange] = []
    server.script = [redirect("/b"), ok('{"v": 2}')]
    async with Http(HttpSettings(total_timeout_s=1.0), observe=seen.append) as client:
        await client.get("p", server.url + "/a", params={"currency": "rub"})
        server.script = [status(404)]
        with pytest.raises(HttpStatusError):
            await client.post_form("p", server.url + "/presets.php", {"action": "list"})
    first, second = seen
    assert (first.method, first.url, first.params, first.status) == (
        "GET",
        server.url + "/a",
        {"currency": "rub"},
        200,
    )
    assert first.body == b'{"v": 2}'
    assert first.final_url == server.url + "/b"
    assert (second.method, second.form, second.status) == ("POST", {"action": "list"}, 404)
