"""The composition root: the one place that builds and wires every part of the bot.

Nothing is built at import time; each factory takes what it needs as arguments, so tests
build the same application against a fake Bot API and a temporary database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sqlite3
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.exceptions import TelegramNetworkError, TelegramServerError
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.schedulers.base import STATE_PAUSED

from bot.admin_notify import alarm_hook
from bot.chart_pool import ChartPool
from bot.commands import set_bot_commands
from bot.config import ConfigError, Settings
from bot.conversation import Conversations, utc_now
from bot.delivery.limiter import Limiter
from bot.delivery.sender import Sender
from bot.delivery.session import SharedLimitMiddleware
from bot.i18n import Translator, load_translators
from bot.logging_setup import one_line
from bot.middlewares.throttling import FlowStore, LocalFlows, ThrottlingMiddleware
from bot.middlewares.user import UserMiddleware
from bot.ops.latency import LatencyMiddleware
from bot.ops.metrics import Metrics
from bot.ops.server import HealthCheck, OpsServer, SchedulerState
from bot.replica import Duty, ElectionFactory, Replica, Role
from bot.routers import create_routers
from bot.scheduler import create_scheduler, outcome_hooks
from bot.topology import SOLE_CLAIMS, Alone, ClaimPolicy, Topology, topology_of
from monitor.pipeline import PipelineOutcome
from monitor.users import Language
from monitor.watchlist import Watchlist
from scrapers.http import Http, HttpSettings
from scrapers.registry import create_scrapers
from scrapers.source import BoundSource
from storage import MigrationError, Store
from storage.flows import SharedFlows
from storage.lock import DatabaseInUseError, DatabaseLock
from storage.postgres import DatabaseUnavailableError
from storage.replicas import BEAT_INTERVAL_S, ReplicaRegistry

logger = logging.getLogger("gpuradar")

# Seconds the client waits on one Bot API call (long polls add their own timeout on top).
REQUEST_TIMEOUT_S = 30.0
# The limiter's burst (bot/delivery/limiter.py): with the default 28 messages/s, at most 29.5
# start in any second, under Telegram's 30.
SEND_BURST = 1.5
# Sent and dropped alerts are kept this long: far over any cooldown, which reads them, and
# the unique key stops a re-derived old event only while its row exists.
OUTBOX_KEEP = timedelta(days=30)
HOUSEKEEPING_INTERVAL = timedelta(days=1)
# How often an idle sender looks at the outbox unasked. A refresh that queues alerts wakes it
# (attach_monitor), so this is only the fallback: for rows that come due later (backoffs,
# quiet hours, snoozes) and for alerts another replica's refresh queued.
DELIVERY_POLL_S = 1.0


def create_bot(token: str, api_url: str, limiter: Limiter | None = None) -> Bot:
    """With a `limiter`, every reply shares it with the alerts (bot.delivery.session)."""
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_url), timeout=REQUEST_TIMEOUT_S)
    if limiter is not None:
        session.middleware(SharedLimitMiddleware(limiter))
    return Bot(token, session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))


def create_limiter(settings: Settings) -> Limiter:
    return Limiter(settings.send_rate, SEND_BURST)


def create_dispatcher(
    *,
    store: Store,
    translators: Mapping[Language, Translator],
    settings: Settings,
    throttle_interval: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    charts: ChartPool | None = None,
    flows: FlowStore | None = None,
    wall_clock: Callable[[], datetime] = utc_now,
) -> Dispatcher:
    """`clock` paces the throttling (monotonic); `wall_clock` dates what the conversations
    remember (shared by replicas, so wall time)."""
    # Keyword data becomes handler parameters (aiogram's dependency injection).
    dispatcher = Dispatcher(
        store=store,
        translators=dict(translators),
        settings=settings,
        default_language=settings.default_language,
        charts=charts or ChartPool(),
        conversations=Conversations(store, wall_clock),
    )
    user_middleware = UserMiddleware(
        store, translators, settings.default_language, settings.timezone
    )
    # Shared flows when replicas share PostgreSQL: a flood may reach several of them.
    throttling = ThrottlingMiddleware(throttle_interval, flows or LocalFlows(clock))
    for observer in (dispatcher.message, dispatcher.callback_query):
        # Order matters: throttling answers in the user's language, which the first one loads.
        observer.outer_middleware(user_middleware)
        observer.outer_middleware(throttling)
    dispatcher.include_routers(*create_routers())
    dispatcher.startup.register(on_startup)
    return dispatcher


async def on_startup(
    bot: Bot,
    translators: dict[Language, Translator],
    default_language: Language,
    settings: Settings,
) -> None:
    if settings.mode != "webhook":
        # Polling and a webhook exclude each other; pending updates are kept, not dropped.
        await bot.delete_webhook(drop_pending_updates=False)
    await set_bot_commands(bot, translators, default_language)


@dataclass
class Application:
    settings: Settings
    store: Store
    bot: Bot
    dispatcher: Dispatcher
    http: Http | None = None
    scheduler: AsyncIOScheduler | None = None
    metrics: Metrics = field(default_factory=Metrics)
    # provider -> refresh interval in seconds, for /healthz's freshness (set by attach_monitor)
    provider_intervals: dict[str, float] = field(default_factory=dict)
    ops: OpsServer | None = None
    sender: Sender | None = None
    db_lock: DatabaseLock | None = None
    charts: ChartPool | None = None
    # What every replica runs for its whole life (ops server, sender), in start order.
    services: list[Duty] = field(default_factory=list)
    # What only the leader runs (refresher, housekeeping; polling is added by run_polling).
    duties: list[Duty] = field(default_factory=list)
    # Alone on SQLite or shared on PostgreSQL: chosen once, from the database opened.
    topology: Topology = field(default_factory=Alone)
    replica: Replica | None = None
    # Set once every service has started and the replica holds its first role.
    started: asyncio.Event = field(default_factory=asyncio.Event, init=False, repr=False)
    _stop: asyncio.Event = field(default_factory=asyncio.Event, init=False, repr=False)
    _failure: BaseException | None = field(default=None, init=False, repr=False)

    @property
    def role(self) -> Role:
        return "follower" if self.replica is None else self.replica.role

    async def run_polling(
        self, *, handle_signals: bool = True, handle_as_tasks: bool = True
    ) -> None:
        """Serve until stopped by a signal or by `stop()`; long-poll while this replica leads."""
        await self._serve([self._polling_duty(handle_as_tasks)], handle_signals=handle_signals)

    async def run_webhook(self, *, handle_signals: bool = True) -> None:
        """Serve Telegram's webhook on the ops server until stopped by a signal or `stop()`.

        Every replica serves the updates posted to it, leader or not. The webhook is
        registered after start-up and left in place on stop: Telegram keeps the updates that
        arrive meanwhile and delivers them when a replica is back.
        """
        settings, bot, dispatcher = self.settings, self.bot, self.dispatcher
        endpoint = settings.webhook_endpoint
        if endpoint is None or settings.webhook_secret is None:
            raise ConfigError("webhook mode needs GPURADAR_WEBHOOK_URL and GPURADAR_WEBHOOK_SECRET")
        secret = settings.webhook_secret.get_secret_value()
        workflow = {"dispatcher": dispatcher, "bots": [bot], **dispatcher.workflow_data}

        async def open_webhook() -> None:
            await dispatcher.emit_startup(bot=bot, **workflow)
            await bot.set_webhook(
                endpoint,
                secret_token=secret,
                allowed_updates=dispatcher.resolve_used_update_types(),
            )
            logger.info("webhook set: Telegram posts updates to %s", endpoint)

        async def close_webhook() -> None:
            await dispatcher.emit_shutdown(bot=bot, **workflow)

        webhook = Duty("webhook", open_webhook, close_webhook)
        await self._serve([], handle_signals=handle_signals, webhook=webhook)

    async def _serve(
        self, leader_only: list[Duty], *, handle_signals: bool, webhook: Duty | None = None
    ) -> None:
        stop = self._stop
        loop = asyncio.get_running_loop()
        signals = (signal.SIGTERM, signal.SIGINT) if handle_signals else ()
        for number in signals:
            loop.add_signal_handler(number, stop.set)
        replica = self.replica = Replica(
            self.settings.replica_id,
            [*leader_only, *self.duties],
            election=self.topology.election,
            on_role=self.metrics.set_role,
        )
        services = [*self.services, *([webhook] if webhook else [])]
        started: list[Duty] = []
        role: asyncio.Task[None] | None = None
        try:
            for service in services:
                await service.start()
                started.append(service)
            role = asyncio.create_task(replica.run(stop), name="replica")
            self.started.set()
            stopped = asyncio.create_task(stop.wait())
            await asyncio.wait((role, stopped), return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
        finally:
            stop.set()
            try:
                if role is not None:
                    await role  # stops the leader's duties first
            finally:
                for service in reversed(started):
                    try:
                        await service.stop()
                    except Exception:
                        logger.exception("%s did not stop cleanly", service.name)
                for number in signals:
                    loop.remove_signal_handler(number)
        if self._failure is not None:
            raise self._failure

    def _polling_duty(self, handle_as_tasks: bool) -> Duty:
        """Long-polling, for as long as this replica leads: two pollers get 409s from Telegram.

        A takeover keeps the pending updates (no drop_pending_updates): the new leader reads
        from where Telegram's queue is.
        """
        dispatcher = self.dispatcher
        polling: list[asyncio.Task[None]] = []

        def on_polling_end(task: asyncio.Task[None]) -> None:
            if not task.cancelled() and task.exception() is not None:
                self._failure = task.exception()
                self._stop.set()

        async def start() -> None:
            task = asyncio.create_task(
                dispatcher.start_polling(
                    self.bot,
                    handle_signals=False,
                    handle_as_tasks=handle_as_tasks,
                    close_bot_session=False,
                ),
                name="polling",
            )
            task.add_done_callback(on_polling_end)
            polling.append(task)

        async def stop() -> None:
            while polling:
                task = polling.pop()
                try:
                    await dispatcher.stop_polling()
                except RuntimeError:  # not polling yet (still in its start-up hooks)
                    task.cancel()
                await asyncio.wait((task,))  # its failure, if any, is on_polling_end's

        return Duty("polling", start, stop)

    async def stop(self) -> None:
        self._stop.set()

    async def close(self) -> None:
        try:
            if self.charts is not None:
                self.charts.close()
            if self.http is not None:
                await self.http.close()
            await self.bot.session.close()
            await self.store.close()
        finally:
            if self.db_lock is not None:
                self.db_lock.release()

    async def reach_telegram(
        self, *, budget_s: float, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    ) -> None:
        """getMe until Telegram answers, retrying network errors and 5xx with a backoff for
        up to `budget_s`; then StartupError. A 401 is raised at once: retrying cannot fix it.
        """
        deadline = time.monotonic() + budget_s
        delay = 1.0
        while True:
            try:
                await self.bot.me()  # cached: start_polling's own getMe uses this answer
                return
            except (TelegramNetworkError, TelegramServerError) as error:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StartupError(
                        f"cannot reach Telegram at GPURADAR_TELEGRAM_API_URL="
                        f"{self.settings.telegram_api_url} (retried {budget_s:.0f} s):"
                        f" {error.message}"
                    ) from None
                logger.warning("Telegram not reachable yet (%s); retrying", error.message)
                await sleep(min(delay, left))
                delay = min(delay * 2, 15.0)


class StartupError(Exception):
    """Start-up gave up (Telegram unreachable); `str()` is the one line for the operator."""


async def open_store(settings: Settings) -> tuple[Store, DatabaseLock | None]:
    """Open and migrate the database the settings name; a failure is a configuration error.

    PostgreSQL (GPURADAR_DATABASE_URL) is shared by replicas and needs no lock; nothing is
    written to the local disk then. A SQLite file is locked first: a second process on the
    same file must not even migrate it.
    """
    if settings.database_url is not None:
        try:
            store = await Store.connect(
                settings.database_url.get_secret_value(), retry_for_s=settings.startup_retry_s
            )
        except (DatabaseUnavailableError, MigrationError) as error:
            # Neither holds the password (storage.postgres cuts it out of what asyncpg says).
            raise ConfigError(f"cannot use database GPURADAR_DATABASE_URL: {error}") from None
        return store, None
    try:
        lock = DatabaseLock.acquire(settings.db_path)
    except DatabaseInUseError as error:
        raise ConfigError(str(error)) from None
    except OSError as error:
        raise ConfigError(
            f"cannot use database GPURADAR_DB_PATH={settings.db_path}: {error}"
        ) from error
    try:
        return await Store.open(settings.db_path), lock
    except (sqlite3.Error, OSError, MigrationError) as error:
        lock.release()
        raise ConfigError(
            f"cannot use database GPURADAR_DB_PATH={settings.db_path}: {error}"
        ) from error
    except BaseException:
        lock.release()
        raise


async def build_application(
    settings: Settings,
    *,
    token: str,
    api_url: str,
    throttle_interval: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    election: ElectionFactory | None = None,
    wall_clock: Callable[[], datetime] = utc_now,
    warm_charts: bool = False,
    delivery_poll_s: float = DELIVERY_POLL_S,
) -> Application:
    """Open the database and build the bot; the caller owns `close()`.

    With `warm_charts` (the served bot), the chart workers start in the background at
    start-up, so the first /history does not wait seconds for matplotlib.

    `election` decides when this replica leads; by default the replicas of a PostgreSQL
    database elect one there (storage.leader), and a SQLite file's one process leads from
    the start (bot.topology).
    """
    store, lock = await open_store(settings)
    topology = topology_of(store, election=election)
    limiter = create_limiter(settings)
    try:
        translators = load_translators()
        bot = create_bot(token, api_url, limiter)
    except BaseException:
        await store.close()
        if lock is not None:
            lock.release()
        raise
    charts = ChartPool()
    dispatcher = create_dispatcher(
        store=store,
        translators=translators,
        settings=settings,
        throttle_interval=throttle_interval,
        clock=clock,
        charts=charts,
        flows=topology.flows,
        wall_clock=wall_clock,
    )
    application = Application(
        settings=settings,
        store=store,
        bot=bot,
        dispatcher=dispatcher,
        db_lock=lock,
        charts=charts,
        topology=topology,
    )
    # First: its start-up hook binds the port, and a failure there must come before anything
    # else has started (aiogram runs no shutdown hooks when a start-up hook fails).
    attach_ops(application)
    if warm_charts:
        application.services.append(
            Duty("chart warm-up", charts.start_warming, charts.stop_warming)
        )
    if topology.heartbeats is not None:
        # Before delivery: the first heartbeat sets this replica's share of the send rate.
        attach_heartbeat(application, topology.heartbeats, limiter)
    attach_delivery(application, translators, limiter, poll_s=delivery_poll_s)
    if settings.monitor:
        attach_monitor(application)
    return application


def attach_heartbeat(application: Application, registry: ReplicaRegistry, limiter: Limiter) -> None:
    """Say every BEAT_INTERVAL_S that this replica lives, and send at 1/N of the bot's rate
    while N replicas do (Limiter.share): Telegram's 30 messages/s is per bot."""
    replica_id = application.settings.replica_id

    async def beat() -> None:
        try:
            alive = await registry.beat(replica_id, application.role)
        except Exception as error:  # the last share stays; the next beat tries again
            logger.warning("replica heartbeat failed: %s", one_line(error))
            return
        if alive != limiter.shared_by:
            logger.info("%s replicas alive: sending at %.1f messages/s", alive, limiter.rate)
            limiter.share(alive)

    async def beating(stop: asyncio.Event) -> None:
        try:
            while not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), BEAT_INTERVAL_S)
                await beat()
        finally:
            # A clean stop: the others take this replica's share at their next beat.
            with contextlib.suppress(Exception):
                await registry.leave(replica_id)

    async def join() -> None:
        # Say we are here, then give the others one beat to count us before sending: replicas
        # started together each counting only themselves would each send at the full rate.
        await beat()
        await asyncio.sleep(BEAT_INTERVAL_S)
        await beat()

    application.services.append(background("heartbeat", beating, before=join))


def create_sender(
    bot: Bot,
    store: Store,
    translators: Mapping[Language, Translator],
    settings: Settings,
    limiter: Limiter,
    *,
    claims: ClaimPolicy = SOLE_CLAIMS,
    on_result: Callable[[str], object] | None = None,
    poll_s: float = DELIVERY_POLL_S,
) -> Sender:
    """The sender as the application runs it (bench/fanout.py measures this one)."""
    return Sender(
        bot,
        store,
        translators,
        limiter=limiter,
        concurrency=settings.send_concurrency,
        default_language=settings.default_language,
        on_result=on_result,
        lease=claims.lease,
        claim_horizon_s=claims.horizon_s,
        idle_interval=poll_s,
    )


def attach_delivery(
    application: Application,
    translators: Mapping[Language, Translator],
    limiter: Limiter,
    *,
    poll_s: float = DELIVERY_POLL_S,
) -> None:
    """Every replica sends from the outbox (claims keep two from sending one row); the
    leader alone purges it daily."""
    store, topology = application.store, application.topology
    sender = create_sender(
        application.bot,
        store,
        translators,
        application.settings,
        limiter,
        claims=topology.claims,
        on_result=application.metrics.record_send,
        poll_s=poll_s,
    )
    application.sender = sender

    async def release_stale_claims() -> None:
        # Alone on the database (SQLite's lock), a claim still held was a dead process's.
        # Replicas sharing PostgreSQL leave each other's claims to their leases.
        released = await topology.release_stale_claims(store)
        if released:
            logger.info("released %s outbox rows claimed before the last stop", released)

    application.services.append(background("delivery", sender.run, before=release_stale_claims))
    application.duties.append(
        background("housekeeping", lambda stop: housekeeping(store, stop, topology.flows))
    )


def background(
    name: str,
    run: Callable[[asyncio.Event], Coroutine[Any, Any, None]],
    *,
    before: Callable[[], Awaitable[None]] | None = None,
) -> Duty:
    """A task that runs `run(stop)` from `start` until `stop` sets its event and awaits it."""
    running: list[tuple[asyncio.Event, asyncio.Task[None]]] = []

    async def start() -> None:
        if before is not None:
            await before()
        stop = asyncio.Event()
        running.append((stop, asyncio.create_task(run(stop), name=name)))

    async def stop() -> None:
        while running:
            event, task = running.pop()
            event.set()
            await task

    return Duty(name, start, stop)


async def housekeeping(store: Store, stop: asyncio.Event, flows: SharedFlows | None = None) -> None:
    """Daily, from start-up: forget sent and dropped alerts older than OUTBOX_KEEP, all but
    the newest subscription changes (the match index has long applied them), the shared
    flood state of users long quiet, and the sizings too old to be followed up."""
    while not stop.is_set():
        try:
            purged = await store.purge_outbox(datetime.now(UTC) - OUTBOX_KEEP)
            await store.prune_subscription_changes()
            await store.forget_sizings(datetime.now(UTC))
            if flows is not None:
                await flows.forget_quiet()
            if purged:
                logger.info("purged %s sent or dropped outbox rows", purged)
        except Exception:  # the next day tries again; delivery does not depend on this
            logger.exception("outbox purge failed")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), HOUSEKEEPING_INTERVAL.total_seconds())


def attach_monitor(application: Application) -> None:
    """Scrape every provider on a schedule that starts and stops with the dispatcher."""
    http = Http(HttpSettings(backoff_initial_s=application.settings.scrape_backoff_s))
    sources = [BoundSource(scraper, http) for scraper in create_scrapers(application.settings)]
    scheduler = create_scheduler(
        sources,
        application.store,
        Watchlist(application.store),
        interval_override_s=application.settings.refresh_seconds,
        on_outcome=outcome_hooks(
            wake_delivery(application),
            application.metrics.record_outcome,
            alarm_hook(
                application.bot, application.settings, application.dispatcher["translators"]
            ),
        ),
    )
    application.http, application.scheduler = http, scheduler
    override = application.settings.refresh_seconds
    application.provider_intervals = {
        source.name: float(override or source.default_interval_s) for source in sources
    }

    async def start_scheduler() -> None:
        # Every replica starts it paused; the leader's refresher duty resumes it.
        scheduler.start(paused=True)

    async def stop_scheduler() -> None:
        # shutdown() cancels jobs still running; the last good snapshot stays in the store.
        if scheduler.running:
            scheduler.shutdown(wait=False)

    async def lead_refresh() -> None:
        # A new leader refreshes at once: its predecessor may have died just before a run,
        # and the sites' news should not wait a whole interval (takeover within 50 s).
        now = datetime.now(UTC)
        for job in scheduler.get_jobs():
            job.modify(next_run_time=now)
        scheduler.resume()

    async def follow() -> None:
        if scheduler.running:
            scheduler.pause()  # a refresh already running finishes; its commit is checked

    application.services.append(Duty("scheduler", start_scheduler, stop_scheduler))
    application.duties.append(Duty("refresher", lead_refresh, follow))


def wake_delivery(application: Application) -> Callable[[PipelineOutcome], None]:
    """A refresh that queued alerts starts this replica's next delivery pass at once,
    instead of leaving them to the sender's poll."""

    def wake(outcome: PipelineOutcome) -> None:
        if outcome.alerts and application.sender is not None:
            application.sender.wake()

    return wake


def attach_ops(application: Application) -> None:
    """Serve /healthz, /metrics (and the webhook in webhook mode) while the dispatcher runs.

    In console mode a port already in use is only a warning: the console still works. In
    polling and webhook mode it is a configuration error (exit 2).
    """
    settings, dispatcher = application.settings, application.dispatcher
    dispatcher.update.outer_middleware(LatencyMiddleware(application.metrics))

    def scheduler_state() -> SchedulerState:
        scheduler = application.scheduler
        if scheduler is None:
            return "disabled"
        if scheduler.state == STATE_PAUSED:
            return "standby"
        return "running" if scheduler.running else "stopped"

    def replica() -> dict[str, str]:
        return {"id": settings.replica_id, "role": application.role}

    health = HealthCheck(
        application.store,
        scheduler_state,
        lambda: application.provider_intervals,
        delivery=lambda: application.sender,
        replica=replica,
    )
    ops = OpsServer(
        health,
        application.metrics,
        application.store,
        host=settings.ops_host,
        port=settings.ops_port,
    )
    if settings.mode == "webhook" and settings.webhook_secret is not None:
        webhook = SimpleRequestHandler(
            dispatcher,
            application.bot,
            # Answer Telegram once the update is handled: a stop then waits for it (the
            # server drains in-flight requests) instead of dropping a background task.
            handle_in_background=False,
            secret_token=settings.webhook_secret.get_secret_value(),
        )
        # Not webhook.register(): that would also close the bot's session on server stop.
        ops.add_post(settings.webhook_path, webhook.handle)
    application.ops = ops

    async def start_ops() -> None:
        try:
            await ops.start()
        except OSError as error:
            where = f"{settings.ops_host}:{settings.ops_port}"
            if settings.console_mode:
                logger.warning("ops server not started: cannot listen on %s: %s", where, error)
                return
            raise ConfigError(
                f"cannot listen on GPURADAR_OPS_HOST:GPURADAR_OPS_PORT={where}: {error.strerror}"
            ) from error

    # First: a port in use must fail start-up before anything else has started.
    application.services.insert(0, Duty("ops", start_ops, ops.stop))
