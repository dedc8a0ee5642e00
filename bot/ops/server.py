"""The operations server: /healthz, /metrics and, in webhook mode, Telegram's webhook.

One small aiohttp app on GPURADAR_OPS_HOST:GPURADAR_OPS_PORT (port 0: any free port, which
tests use). It starts and stops with the dispatcher (see bot.app.attach_ops), so it runs in
polling, webhook and console mode alike.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from aiohttp import web

from bot.ops.metrics import CONTENT_TYPE_LATEST, Metrics
from monitor.health import PartHealth, ProviderHealth

logger = logging.getLogger(__name__)

# A provider is stale when its last good scrape is older than this many of its intervals.
STALE_AFTER_INTERVALS = 3.0
# /healthz answers within a container health probe's timeout even if the database hangs.
DATABASE_TIMEOUT_S = 2.0
# In-flight requests (a webhook update being handled) get this long to finish on stop.
SHUTDOWN_TIMEOUT_S = 10.0

SchedulerState = Literal["running", "stopped", "disabled"]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class HealthStore(Protocol):
    async def ping(self) -> bool: ...

    async def provider_health(self) -> list[ProviderHealth]: ...

    async def pending_count(self) -> int: ...


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
    """Database reachable, scheduler running, providers fresh: the verdict of /healthz.

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
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._scheduler_state = scheduler_state
        self._intervals = intervals
        self._now = now
        self.started_at = now()

    def mark_started(self) -> None:
        """Start the never-succeeded providers' grace period now."""
        self.started_at = self._now()

    async def report(self) -> tuple[bool, dict[str, Any]]:
        database_ok, rows = await self._read_database()
        scheduler = self._scheduler_state()
        providers = self._freshness(rows)
        problems = []
        if not database_ok:
            problems.append("database unreachable")
        if scheduler == "stopped":
            problems.append("scheduler not running")
        if providers and not any(state.fresh for state in providers.values()):
            problems.append("every provider is stale")
        body = {
            "status": "unhealthy" if problems else "ok",
            "problems": problems,
            "database": "ok" if database_ok else "error",
            "scheduler": scheduler,
            "providers": {name: state.as_json() for name, state in providers.items()},
        }
        return not problems, body

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
            since = now - (success or self.started_at)
            result[name] = Freshness(
                last_success=success,
                age_s=None if success is None else (now - success).total_seconds(),
                fresh=since.total_seconds() <= STALE_AFTER_INTERVALS * interval,
                consecutive_failures=row.consecutive_failures if row is not None else 0,
                troubled_parts=row.troubled_parts if row is not None else (),
            )
        return result


class OpsServer:
    def __init__(
        self,
        health: HealthCheck,
        metrics: Metrics,
        store: HealthStore,
        *,
        host: str,
        port: int,
    ) -> None:
        self._health = health
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
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/metrics", self._metrics_page)
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
        logger.info("ops server on %s:%s (/healthz, /metrics)", self.host, self.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def _healthz(self, request: web.Request) -> web.Response:
        healthy, body = await self._health.report()
        return web.json_response(body, status=200 if healthy else 503)

    async def _metrics_page(self, request: web.Request) -> web.Response:
        try:
            async with asyncio.timeout(DATABASE_TIMEOUT_S):
                self._metrics.set_outbox_pending(await self._store.pending_count())
        except Exception as error:  # the rest of the page is still worth serving
            logger.warning("metrics: cannot read the outbox depth: %s", error)
        return web.Response(
            body=self._metrics.render(), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )
