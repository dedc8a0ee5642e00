"""The MCP tools at /mcp, through the SDK's own streamable-HTTP client, against the running
bot's ops server after its scrape of the fake provider sites: every tool answers what the open
data's API and /fit answer for the same question."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer
from mcp import Client

from bot.ops.mcp_server import PATH, McpEndpoint
from bot.ops.open_data import BURST, ClientBuckets, OpenData
from bot.runtime import Application
from bot.usecases.sizing import build
from estimator.answer import to_json
from estimator.fit_words import understand
from storage import Store
from tests.bot.conftest import running_app, scraped_every_site
from tests.fakes.helpers import FakeClock
from tests.fakes.providers import FakeProviders, all_sites
from tests.fakes.telegram import FakeTelegram

TOOLS = {"offers", "history", "providers", "fit", "plan"}
# One run, as the tools' typed fields and as /fit's words.
RUN = {"model": "13b", "method": "qlora", "ctx": 4096, "batch": 2, "dataset_examples": 20000}
FIT_WORDS = "13b qlora ctx=4096 bs=2 dataset=20000"


@asynccontextmanager
async def scraped_bot(telegram: FakeTelegram, db_path: Path) -> AsyncIterator[Application]:
    """The bot with MCP on, after its first scrape of every fake site."""
    since = datetime.now(UTC)
    async with (
        FakeProviders(all_sites()) as sites,
        running_app(telegram, db_path, monitor=True, mcp=True, **sites.urls()) as application,
    ):
        await scraped_every_site(application, since)
        yield application


def origin(application: Application) -> str:
    assert application.ops is not None
    return f"http://127.0.0.1:{application.ops.port}"


async def api(application: Application, path: str) -> Any:
    async with (
        aiohttp.ClientSession() as session,
        session.get(origin(application) + path) as response,
    ):
        assert response.status == 200, await response.text()
        return json.loads(await response.read())


async def either_side(read: Callable[[], Awaitable[Any]], tool: Any, path: str, app: Any) -> None:
    """The tool's answer is the API's, read just before or just after it: a scrape or a new
    minute between the two may change what the API says."""
    before = await api(app, path)
    answer = await read()
    after = await api(app, path)
    assert tool(answer) in (before, after)


async def test_the_tools_answer_what_the_api_and_fit_answer(
    telegram: FakeTelegram, db_path: Path
) -> None:
    async with (
        scraped_bot(telegram, db_path) as application,
        Client(origin(application) + PATH) as client,
    ):
        listed = await client.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        assert all(tool.annotations and tool.annotations.read_only_hint for tool in listed.tools)

        async def call(name: str, arguments: dict[str, Any]) -> Any:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, result.content
            return result.structured_content

        offers = await call("offers", {})
        assert offers["count"] > 0
        for arguments, query in (
            ({}, ""),
            ({"gpu": "a100 80gb", "in_stock": True}, "?gpu=a100+80gb&in_stock=true"),
            ({"max_rub_per_gpu_hour": 300.5, "billing": "hourly"}, "?max=300.5&billing=hourly"),
        ):
            await either_side(
                lambda a=arguments: call("offers", a),  # type: ignore[misc]
                lambda body: body,
                f"/api/v1/offers{query}",
                application,
            )
        await either_side(
            lambda: call("history", {"gpu": "h100", "days": 7}),
            lambda body: body,
            "/api/v1/history?gpu=h100&days=7",
            application,
        )
        await either_side(
            lambda: call("providers", {}), lambda body: body, "/api/v1/providers", application
        )

        fit = await call("fit", {"run": RUN})
        plan = await call("plan", {"run": RUN})
        parsed = understand(FIT_WORDS)
        assert parsed is not None
        sized = to_json(await build(parsed, application.store))
    assert fit == {key: value for key, value in sized.items() if key != "plans"}
    assert fit["peak_range_gb"][0] <= fit["peak_gb"] <= fit["peak_range_gb"][1]
    assert any(row["verdict"] == "fits" for row in fit["fits"])
    assert plan == {"query": sized["query"], "plans": sized["plans"]}
    assert plan["plans"]
    assert all(row["hours"] and row["cost_rub"] for row in plan["plans"])


async def test_a_question_the_tools_cannot_read_is_an_error_result_saying_why(
    telegram: FakeTelegram, db_path: Path
) -> None:
    async with (
        running_app(telegram, db_path, mcp=True) as application,
        # The handshake of the protocol versions before server/discover, GET stream refused.
        Client(origin(application) + PATH, mode="legacy") as client,
    ):
        provider = await client.call_tool("offers", {"provider": "nowhere"})
        model = await client.call_tool("fit", {"run": {"model": "no such model"}})
        ctx = await client.call_tool("fit", {"run": {"model": "8b", "ctx": 3}})
    assert provider.is_error
    assert "provider: one of" in str(provider.content)
    assert model.is_error
    assert "model" in str(model.content)
    assert ctx.is_error
    assert "ctx" in str(ctx.content)


async def test_without_the_setting_there_is_no_mcp_endpoint(
    telegram: FakeTelegram, db_path: Path
) -> None:
    async with (
        running_app(telegram, db_path) as application,
        aiohttp.ClientSession() as session,
        session.post(origin(application) + PATH, json={}) as response,
    ):
        assert response.status == 404


async def test_mcp_requests_draw_on_the_open_datas_bucket(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "mcp.sqlite3")
    open_data = OpenData(
        store, lambda: {}, started_at=lambda: datetime.now(UTC), buckets=ClientBuckets(FakeClock(0))
    )
    app = web.Application()
    open_data.add_routes(app)
    McpEndpoint(open_data, store, host="127.0.0.1").add_routes(app)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession() as session:
            for _ in range(BURST):
                async with session.get(server.make_url("/api/v1/providers")) as response:
                    assert response.status == 200
            async with session.post(server.make_url(PATH), json={}) as response:
                assert response.status == 429
                assert int(response.headers["Retry-After"]) >= 1
            async with session.get(server.make_url(PATH)) as response:
                assert response.status == 405  # no event stream: every answer is JSON
    finally:
        await server.close()
        await store.close()
