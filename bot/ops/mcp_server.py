"""The market and the estimator as tools for AI assistants: an MCP server at /mcp on the ops
server (streamable HTTP, the official `mcp` SDK), on when GPURADAR_MCP is true.

    offers     every offer listed now, with the filters of /prices  (= GET /api/v1/offers)
    history    a GPU's price change points and the low              (= GET /api/v1/history)
    providers  each provider's health                               (= GET /api/v1/providers)
    fit        a typed sizing request in: the peak with its range, which cards hold it
    plan       the cheapest live offers that hold the run, with hours and ₽

Each tool calls what the API and /fit call (bot.ops.open_data.OpenData,
bot.usecases.sizing.build), so its numbers are theirs. Read-only. Stateless and answered in
JSON: any replica answers any request, nothing is kept between them. Every HTTP request
draws on the open data's token bucket for its client (429 with Retry-After past it): an
assistant gets what a script gets.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import Annotated, Any, Protocol

from aiohttp import web
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from bot.fields import FieldError, read_card, read_model
from bot.ops.asgi_bridge import serve_asgi
from bot.ops.open_data import MAX_DAYS, BadParameterError, OpenData, OpenDataStore
from bot.usecases.sizing import SizingStore, build
from estimator.answer import FitAnswer, to_json
from estimator.parse import ParsedQuery, QueryError
from estimator.parsing.build import LIMITS, Given, finish
from estimator.query import Checkpointing, Method, Optimizer, Precision, Sharding
from monitor.offers import Billing

PATH = "/mcp"
NAME = "gpuradar"
INSTRUCTIONS = (
    "GPU rental offers in Russia (Selectel, immers.cloud, HOSTKEY) in roubles, scraped every "
    "10-15 minutes, and a fine-tuning memory/time/cost estimator. Stock is what a provider "
    "published at observed_at, not a reservation: check the provider's site before renting."
)
# The answer of `fit` is everything the sizing says but the plans, which are `plan`'s.
_PLAN_KEYS = ("plans",)
_READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True)


def _limit(key: str) -> dict[str, float]:
    """The bounds the chat's reader takes for this key (estimator.parsing.build.LIMITS)."""
    low, high = LIMITS[key]
    return {"ge": low, "le": high}


class Run(BaseModel):
    """A fine-tuning run, field by field; what is left out is assumed as /fit assumes it."""

    model_config = ConfigDict(extra="forbid")

    model: Annotated[
        str,
        Field(description="A model («Llama 3 8B», qwen2.5-7b) or a size in billions (13b)"),
    ]
    method: Annotated[Method | None, Field(description="qlora, lora or full")] = None
    ctx: Annotated[int | None, Field(description="Tokens per example", **_limit("ctx"))] = None
    batch: Annotated[int | None, Field(description="Micro-batch per GPU", **_limit("bs"))] = None
    lora_rank: Annotated[int | None, Field(description="LoRA rank", **_limit("rank"))] = None
    gpus: Annotated[int | None, Field(description="GPUs in the run", **_limit("gpus"))] = None
    gpu: Annotated[
        str | None, Field(description="A card or family to check: h100, a100 80gb, rtx 4090")
    ] = None
    dataset_examples: Annotated[
        int | None, Field(description="Examples in the dataset", **_limit("dataset"))
    ] = None
    dataset_tokens: Annotated[
        int | None, Field(description="Tokens in the dataset", **_limit("dataset_tokens"))
    ] = None
    epochs: Annotated[float | None, Field(gt=0, le=LIMITS["epochs"][1])] = None
    precision: Precision | None = None
    optimizer: Optimizer | None = None
    grad_checkpointing: Checkpointing | None = None
    shard: Sharding | None = None


class McpStore(OpenDataStore, SizingStore, Protocol):
    """What the tools read: the open data's store and the sizing's live prices."""


class McpEndpoint:
    """The MCP server's tools over the open data and the store, served at PATH."""

    def __init__(self, open_data: OpenData, store: McpStore, *, host: str) -> None:
        self._open_data = open_data
        self._store = store
        # The SDK guards against DNS rebinding when it listens on loopback (Host and Origin
        # checked); behind a proxy on 0.0.0.0 the proxy's host name is the one asked for.
        self._host = host
        self._server = MCPServer(NAME, instructions=INSTRUCTIONS, log_level="WARNING")
        for tool in (self.offers, self.history, self.providers, self.fit, self.plan):
            self._server.add_tool(tool, annotations=_READ_ONLY, structured_output=True)

    def add_routes(self, app: web.Application) -> None:
        # POST only: each request is answered in JSON and nothing is kept between them, so
        # there is no event stream to GET (405, which the spec allows) and no session to
        # DELETE; a GET stream would also hold its handler open until the client left.
        app.router.add_post(PATH, self._handle)
        app.cleanup_ctx.append(self._running)

    async def _running(self, app: web.Application) -> AsyncIterator[None]:
        """The SDK's session manager for as long as the app runs. It is entered and left in a
        task of its own: its task group must end in the task that began it, and aiohttp
        starts and cleans up the app from whichever task calls it."""
        # A new one each start: a manager runs once.
        self._server.streamable_http_app(json_response=True, stateless_http=True, host=self._host)
        manager = self._server.session_manager
        started, stopping = asyncio.Event(), asyncio.Event()

        async def run() -> None:
            async with manager.run():
                started.set()
                await stopping.wait()

        task = asyncio.create_task(run(), name="mcp-sessions")
        await _first(started, task)
        try:
            yield
        finally:
            stopping.set()
            await task

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        refused = self._open_data.refusal(request)
        if refused is not None:
            return refused
        return await serve_asgi(self._server.session_manager.handle_request, request)

    async def offers(
        self,
        gpu: Annotated[str | None, Field(description="h100, a100 80gb, rtx 4090, 4090")] = None,
        min_vram_gb: Annotated[float | None, Field(gt=0, description="GB per GPU")] = None,
        max_rub_per_gpu_hour: Annotated[float | None, Field(gt=0)] = None,
        provider: Annotated[str | None, Field(description="selectel, immers, hostkey")] = None,
        location: Annotated[str | None, Field(description="A city or region, e.g. msk")] = None,
        billing: Billing | None = None,
        in_stock: bool = False,
    ) -> dict[str, Any]:
        """Every GPU offer listed now, cheapest per GPU-hour first, with the /prices filters:
        the same as GET /api/v1/offers. Each row says when it was observed and whether its
        source still answers (stale); stock_count null means not published. Stock is what
        the provider showed then, not a reservation."""
        params = {
            "gpu": gpu,
            "min_vram": _number(min_vram_gb),
            "max": _number(max_rub_per_gpu_hour),
            "provider": provider,
            "location": location,
            "billing": billing.value if billing else None,
            "in_stock": "true" if in_stock else None,
        }
        return await _open(self._open_data.offers(_present(params)))

    async def history(
        self,
        gpu: Annotated[str, Field(description="A GPU or family: h100, a100 80gb")],
        days: Annotated[int, Field(ge=1, le=MAX_DAYS)] = 30,
    ) -> dict[str, Any]:
        """A GPU's price and stock change points over the last days, and the lowest price:
        the same as GET /api/v1/history."""
        return await _open(self._open_data.history({"gpu": gpu, "days": str(days)}))

    async def providers(self) -> dict[str, Any]:
        """Each provider's health: last good scrape, whether it is fresh, failing parts:
        the same as GET /api/v1/providers."""
        return await _open(self._open_data.providers())

    async def fit(self, run: Run) -> dict[str, Any]:
        """Size a fine-tune as /fit does: peak GPU memory (GiB) with the range the
        measurement's error gives, each card's verdict (fits, tight, no) and the GPUs it
        needs, training hours, assumptions, warnings and advice."""
        answer = await self._answer(run)
        return {key: value for key, value in to_json(answer).items() if key not in _PLAN_KEYS}

    async def plan(self, run: Run) -> dict[str, Any]:
        """The cheapest live offers that hold the run, best first, as /fit plans them: the
        card and count, provider and location, hourly or monthly, and with a dataset
        (dataset_examples or dataset_tokens) the hours and the cost in ₽. Stock is what the
        provider showed, not a reservation."""
        answer = await self._answer(run)
        whole = to_json(answer)
        return {"query": whole["query"], "plans": whole["plans"]}

    async def _answer(self, run: Run) -> FitAnswer:
        try:
            parsed = sizing_run(run)
        except (FieldError, QueryError) as error:
            raise ToolError(str(error)) from None
        return await build(parsed, self._store)


def sizing_run(run: Run) -> ParsedQuery:
    """The run the fields state, read as /fit reads the same words; FieldError or QueryError
    for a model or card it does not know."""
    named = read_model(run.model)
    given = Given(
        model=named.model,
        size_b=named.size_b,
        method=run.method,
        ctx=run.ctx,
        micro_batch=run.batch,
        lora_rank=run.lora_rank,
        gpus=run.gpus,
        dataset_examples=run.dataset_examples,
        dataset_tokens=run.dataset_tokens,
        epochs=run.epochs,
        precision=run.precision,
        optimizer=run.optimizer,
        grad_checkpointing=run.grad_checkpointing,
        shard=run.shard,
    )
    if run.gpu is not None:
        given.target_gpu, given.target_family = read_card(run.gpu)
    return finish(given)


async def _open(body: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    try:
        return await body
    except BadParameterError as error:
        raise ToolError(str(error)) from None


def _number(value: float | None) -> str | None:
    # Python's shortest exact form («300.5»), which the API's number fields read as typed.
    return None if value is None else str(value)


def _present(params: Mapping[str, str | None]) -> dict[str, str]:
    return {name: value for name, value in params.items() if value is not None}


async def _first(started: asyncio.Event, task: asyncio.Task[None]) -> None:
    """Wait until the manager runs; if it fails to start instead, raise its error."""
    waiting = asyncio.ensure_future(started.wait())
    await asyncio.wait((waiting, task), return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    if task.done():
        task.result()
