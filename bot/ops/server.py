"""The operations server: /healthz, /metrics, the open data (/api/v1), the Mini App (/app/,
when GPURADAR_PUBLIC_URL is set), the MCP tools (/mcp, when GPURADAR_MCP is true) and, in
webhook mode, Telegram's webhook.

One small aiohttp app on GPURADAR_OPS_HOST:GPURADAR_OPS_PORT (port 0: any free port, which
tests use). It starts and stops with the dispatcher (see bot.app.attach_ops), so it runs in
polling, webhook and console mode alike.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

from aiohttp import web

from bot.miniapp.app_api import MiniApp
from bot.ops.metrics import CONTENT_TYPE_LATEST, Metrics
from bot.ops.open_data import OpenData
from monitor.health import PartHealth, ProviderHealth, is_fresh

if TYPE_CHECKING:  # the MCP SDK is imported only where MCP is on (a second of start-up)
    from bot.ops.mcp_server import McpEndpoint

logger = logging.getLogger(__name__)

# /healthz answers within a container health probe's timeout even if the database hangs.
DATABASE_TIMEOUT_S = 2.0
# In-flight requests (a webhook update being handled) get this long to finish on stop.
SHUTDOWN_TIMEOUT_S = 10.0
# The outbox is stuck when a due alert has waited this long and no alert went out for as
# long: 10 minutes is a 17 000-message fan-out at Telegram's 28/s, and far past any pause the
# sender takes by itself (a flood pause is capped at 30 s).
STUCK_AFTER_S = 600.0

# /healthz problems, by the label the gpuradar_health_problem metric gives each
# (bot.ops.metrics.HEALTH_PROBLEMS).
PROBLEMS = {
    "database_unreachable": "database unreachable",
    "database_unwritable": "database unwritable",
    "outbox_stuck": "outbox stuck",
    "scheduler_stopped": "scheduler not running",
    "providers_stale": "every provider is stale",
}

# standby: a follower's scheduler, started but paused until this replica leads.
SchedulerState = Literal["running", "standby", "stopped", "disabled"]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class HealthStore(Protocol):
    async def ping(self) -> bool: ...

    async def provider_health(self) -> list[ProviderHealth]: ...

    async def pending_count(self) -> int: ...

    async def probe_write(self) -> None: ...

    @property
    def write_error(self) -> str | None: ...

    async def oldest_due(self, now: datetime) -> datetime | None: ...


class DeliveryState(Protocol):
    """What the sender tells /healthz (bot.delivery.sender.Sender has these)."""

    @property
    def store_error(self) -> str | None: ...

    @property
    def last_sent_at(self) -> float | None: ...


@dataclass(frozen=True)
class Freshness:
    last_success: datetime | None
    age_s: float | None
    fresh: bool
    consecutive_failures: int
    # The parts of the provider's poll that did not update (failed, empty or held as suspect):
    # the provider still answers, but these show the last good data.
    troubled_parts: tuple[PartHealth, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "last_success": None if self.last_success is None else self.last_success.isoformat(),
            "age_s": None if self.age_s is None else round(self.age_s, 1),
            "fresh": self.fresh,
            "consecutive_failures": self.consecutive_failures,
            "failing_parts": {
                part.part: {
                    "state": part.state.value,
                    "error_class": part.error_class,
                    "consecutive_failures": part.consecutive_failures,
                    "suspect_runs": part.suspect_runs,
                    "kept_offers": part.kept,
                }
                for part in self.troubled_parts
            },
        }


class HealthCheck:
    """Database reachable, scheduler running, providers fresh (monitor.health.is_fresh): the
    verdict of /healthz.

    `scheduler_state` and `intervals` are read at each check, so the check can be built
    before the monitor is attached. A provider that has never succeeded counts as fresh for
    its first STALE_AFTER_INTERVALS intervals after `started_at` (the first scrapes may fail).
    """

    def __init__(
        self,
        store: HealthStore,
        scheduler_state: Callable[[], SchedulerState],
        intervals: Callable[[], Mapping[str, float]],
        *,
        delivery: Callable[[], DeliveryState | None] = lambda: None,
        replica: Callable[[], Mapping[str, str]] = lambda: {},
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._scheduler_state = scheduler_state
        self._intervals = intervals
        self._delivery = delivery
        self._replica = replica
        self._now = now
        self._monotonic = monotonic
        self.started_at = now()
        self._started_monotonic = monotonic()

    def mark_started(self) -> None:
        """Start the never-succeeded providers' grace period now."""
        self.started_at = self._now()
        self._started_monotonic = self._monotonic()

    async def report(self) -> tuple[bool, dict[str, Any]]:
        """(healthy, body); `body["codes"]` are the PROBLEMS keys, for the metric."""
        database_ok, rows = await self._read_database()
        writable = database_ok and await self._writable()
        stuck = database_ok and await self._outbox_stuck()
        scheduler = self._scheduler_state()
        providers = self._freshness(rows)
        codes = [
            code
            for code, found in (
                ("database_unreachable", not database_ok),
                ("database_unwritable", database_ok and not writable),
                ("outbox_stuck", stuck),
                ("scheduler_stopped", scheduler == "stopped"),
                ("providers_stale", providers and not any(s.fresh for s in providers.values())),
            )
            if found
        ]
        database = "ok" if writable else ("unwritable" if database_ok else "error")
        body = {
            "status": "unhealthy" if codes else "ok",
            "problems": [PROBLEMS[code] for code in codes],
            "database": database,
            "outbox": "stuck" if stuck else "ok",
            "scheduler": scheduler,
            "replica": dict(self._replica()),
            "providers": {name: state.as_json() for name, state in providers.items()},
        }
        return not codes, {**body, "codes": codes}

    async def _writable(self) -> bool:
        """A write lock can be taken, and neither the store nor the sender saw writes fail."""
        delivery = self._delivery()
        error = self._store.write_error or (delivery.store_error if delivery else None)
        if error is None:
            try:
                async with asyncio.timeout(DATABASE_TIMEOUT_S):
                    await self._store.probe_write()
            except Exception as failure:  # read-only, locked, gone: all mean "cannot write"
                error = str(failure)
        if error is not None:
            logger.warning("health check: database unwritable: %s", error)
        return error is None

    async def _outbox_stuck(self) -> bool:
        """A due alert waited STUCK_AFTER_S while no alert went out for as long."""
        delivery = self._delivery()
        if delivery is None:
            return False
        now = self._now()
        try:
            async with asyncio.timeout(DATABASE_TIMEOUT_S):
                oldest = await self._store.oldest_due(now)
        except Exception:  # reported as unreachable by the ping already
            return False
        if oldest is None or (now - oldest).total_seconds() < STUCK_AFTER_S:
            return False
        last = delivery.last_sent_at
        idle = self._monotonic() - (last if last is not None else self._started_monotonic)
        return idle >= STUCK_AFTER_S

    async def _read_database(self) -> tuple[bool, list[ProviderHealth]]:
        try:
            async with asyncio.timeout(DATABASE_TIMEOUT_S):
                if not await self._store.ping():
                    return False, []
                return True, await self._store.provider_health()
        except Exception as error:  # closed, locked, corrupt, slow: all mean "not reachable"
            logger.warning("health check: database unreachable: %s", error)
            return False, []

    def _freshness(self, rows: list[ProviderHealth]) -> dict[str, Freshness]:
        now = self._now()
        by_name = {row.provider: row for row in rows}
        result = {}
        for name, interval in sorted(self._intervals().items()):
            row = by_name.get(name)
            success = row.last_success_at if row is not None else None
            result[name] = Freshness(
                last_success=success,
                age_s=None if success is None else (now - success).total_seconds(),
                fresh=is_fresh(success, interval, now, started_at=self.started_at),
                consecutive_failures=row.consecutive_failures if row is not None else 0,
                troubled_parts=row.troubled_parts if row is not None else (),
            )
        return result


@web.middleware
async def compressed(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every answer gzip- or deflate-compressed when the client asks (aiohttp negotiates it from
    Accept-Encoding; a file is read through the compressor instead of sent whole): the open
    data's JSON and CSV and the Mini App's bundle shrink about tenfold."""
    response = await handler(request)
    if response.prepared or response.status in (204, 304):
        return response
    if isinstance(response, web.Response) and response.body is None:
        return response  # headers only (a 503 with Retry-After): nothing to compress
    response.enable_compression()
    return response


class OpsServer:
    def __init__(
        self,
        health: HealthCheck,
        metrics: Metrics,
        store: HealthStore,
        *,
        host: str,
        port: int,
        open_data: OpenData | None = None,
        mini_app: MiniApp | None = None,
        mcp: McpEndpoint | None = None,
    ) -> None:
        self._health = health
        self._open_data = open_data
        self._mini_app = mini_app
        self._mcp = mcp
        self._metrics = metrics
        self._store = store
        self.host = host
        self._requested_port = port
        self._routes: list[tuple[str, Handler]] = []
        self._runner: web.AppRunner | None = None
        self.port: int | None = None  # the bound port once started (useful with port 0)

    def add_post(self, path: str, handler: Handler) -> None:
        """Serve another POST route (the Telegram webhook); only before `start()`."""
        if self._runner is not None:
            raise RuntimeError("routes must be added before the server starts")
        self._routes.append((path, handler))

    @property
    def running(self) -> bool:
        return self._runner is not None

    async def start(self) -> None:
        """Listen; OSError (the port is taken) leaves nothing running. Idempotent."""
        if self._runner is not None:
            return
        app = web.Application(middlewares=[compressed])
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        app.router.add_get("/metrics", self._metrics_page)
        if self._open_data is not None:
            self._open_data.add_routes(app)
        if self._mini_app is not None:
            self._mini_app.add_routes(app)
        if self._mcp is not None:
            self._mcp.add_routes(app)
        for path, handler in self._routes:
            app.router.add_post(path, handler)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_TIMEOUT_S)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self._requested_port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        self._health.mark_started()
        logger.info("ops server on %s:%s (/healthz, /readyz, /metrics)", self.host, self.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _healthz(self, request: web.Request) -> web.Response:
        healthy, body = await self._health.report()
        self._metrics.set_health_problems(body.pop("codes"))
        return web.json_response(body, status=200 if healthy else 503)

    async def _readyz(self, request: web.Request) -> web.Response:
        """Can this replica answer updates now: its database answers. For a proxy choosing
        where to send the webhook; /healthz judges the whole bot (stale providers, a stuck
        outbox), and every replica failing it must not leave users unanswered."""
        try:
            # Bounded like /healthz: a server cut off (not refusing) must not hang the probe.
            async with asyncio.timeout(DATABASE_TIMEOUT_S):
                ready = await self._store.ping()
        except Exception:  # any failure to reach the database is "not ready", said below
            ready = False
        body = {"status": "ready" if ready else "not ready"}
        return web.json_response(body, status=200 if ready else 503)

    async def _metrics_page(self, request: web.Request) -> web.Response:
        _, body = await self._health.report()
        self._metrics.set_health_problems(body["codes"])
        try:
            async with asyncio.timeout(DATABASE_TIMEOUT_S):
                self._metrics.set_outbox_pending(await self._store.pending_count())
        except Exception as error:  # the rest of the page is still worth serving
            logger.warning("metrics: cannot read the outbox depth: %s", error)
        return web.Response(
            body=self._metrics.render(), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )
