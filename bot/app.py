"""The composition root: the one place that builds and wires every part of the bot.

Nothing is built at import time; each factory takes what it needs as arguments, so tests
build the same application against a fake Bot API and a temporary database. What it builds
runs elsewhere: the Application and its start/stop order in bot.runtime, the start-up probes
in bot.startup, the background jobs in bot.jobs, the SQLite/PostgreSQL difference in
bot.topology.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.enums import ParseMode
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from apscheduler.schedulers.base import STATE_PAUSED
from pydantic import SecretStr

from bot.admin_notify import alarm_hook
from bot.api_session import ApiSession
from bot.chart_pool import ChartPool
from bot.commands import set_bot_commands
from bot.config import ConfigError, Settings
from bot.conversation import Conversations, utc_now
from bot.delivery.limiter import Limiter
from bot.delivery.sender import Sender
from bot.delivery.session import SharedLimitMiddleware
from bot.hold import HeldOffset
from bot.jobs import SETTLE_AT_MOST_S, after, background, heartbeat, housekeeping, settled
from bot.lease_guard import PollingFence
from bot.middlewares.chat_order import ChatOrder
from bot.middlewares.hold import HoldMiddleware
from bot.middlewares.throttling import FlowStore, LocalFlows, ThrottlingMiddleware
from bot.middlewares.user import UserMiddleware
from bot.miniapp.app_api import MiniApp
from bot.miniapp.links import set_menu_button
from bot.ops.latency import LatencyMiddleware
from bot.ops.open_data import OpenData
from bot.ops.server import HealthCheck, OpsServer, SchedulerState
from bot.replay import Replayer
from bot.replica import Duty, ElectionFactory
from bot.routers import create_routers
from bot.runtime import Application
from bot.scheduler import after_first_round, create_scheduler, outcome_hooks
from bot.startup import open_store
from bot.topology import SOLE_CLAIMS, ClaimPolicy, lease_held, topology_of
from bot.webhook_once import OnceWebhook
from estimator.i18n import Translator, translators
from monitor.matcher import LiveMatcher
from monitor.pipeline import PipelineOutcome
from monitor.users import Language
from scrapers.http import Http, HttpSettings
from scrapers.registry import create_scrapers
from storage import Store
from storage.postgres import UNWRITABLE_ERRORS
from storage.unavailable import STORAGE_UNAVAILABLE

logger = logging.getLogger("gpuradar")

# Seconds the client waits on one Bot API call (long polls add their own timeout on top).
REQUEST_TIMEOUT_S = 30.0
# The limiter's burst (bot/delivery/limiter.py): with the default 28 messages/s, at most 29.5
# start in any second, under Telegram's 30.
SEND_BURST = 1.5
# How often an idle sender looks at the outbox unasked. A refresh that queues alerts wakes it
# (attach_monitor), so this is only the fallback: for rows that come due later (backoffs,
# quiet hours, snoozes) and for alerts another replica's refresh queued.
DELIVERY_POLL_S = 1.0


def create_bot(token: str, api_url: str, limiter: Limiter | None = None) -> Bot:
    """With a `limiter`, every reply shares it with the alerts (bot.delivery.session)."""
    session = ApiSession(api_url, timeout=REQUEST_TIMEOUT_S)
    if limiter is not None:
        session.middleware(SharedLimitMiddleware(limiter))
    return Bot(token, session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))


def create_limiter(settings: Settings) -> Limiter:
    return Limiter(settings.send_rate, SEND_BURST, per_chat_interval=settings.send_chat_interval_s)


def create_dispatcher(
    *,
    store: Store,
    translators: Mapping[Language, Translator],
    settings: Settings,
    throttle_interval: float = 1.0,
    clock: Callable[[], float] = time.time,
    charts: ChartPool | None = None,
    flows: FlowStore | None = None,
    wall_clock: Callable[[], datetime] = utc_now,
) -> Dispatcher:
    """`clock` times the button presses the throttling judges (wall time, as Telegram dates
    messages); `wall_clock` dates what the conversations remember."""
    # Keyword data becomes handler parameters (aiogram's dependency injection).
    dispatcher = Dispatcher(
        store=store,
        translators=dict(translators),
        settings=settings,
        default_language=settings.default_language,
        charts=charts or ChartPool(),
        conversations=Conversations(store, wall_clock),
    )
    # Outermost, before anything that awaits: each chat's updates in the order they came.
    dispatcher.update.outer_middleware(ChatOrder())
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
    if settings.public_url is not None:
        await set_menu_button(bot, settings.public_url, translators[default_language])


async def build_application(
    settings: Settings,
    *,
    token: str,
    api_url: str,
    throttle_interval: float = 1.0,
    clock: Callable[[], float] = time.time,
    election: ElectionFactory | None = None,
    wall_clock: Callable[[], datetime] = utc_now,
    warm_charts: bool = False,
    delivery_poll_s: float = DELIVERY_POLL_S,
    charts: ChartPool | None = None,
) -> Application:
    """Open the database and build the bot; the caller owns `close()`.

    With `warm_charts` (the served bot), the chart workers start in the background at
    start-up, so the first /history does not wait seconds for matplotlib.

    `election` decides when this replica leads; by default the replicas of a PostgreSQL
    database elect one there (storage.leader), and a SQLite file's one process leads from
    the start (bot.topology).
    """
    store, lock = await open_store(settings)
    # Every reader of offers, the open data included, applies the one freshness rule.
    store.expire_stale_after(settings.stale_after)
    topology = topology_of(store, settings, election=election)
    limiter = create_limiter(settings)
    try:
        texts = translators()
        bot = create_bot(token, api_url, limiter)
        if topology.lease is not None:
            # A leader past its lease neither polls nor commits a refresh (storage.leader).
            bot.session.middleware(PollingFence(topology.lease.held))
            store.fence_refreshes(topology.lease.fence)
    except BaseException:
        await store.close()
        if lock is not None:
            lock.release()
        raise
    charts = charts or ChartPool()
    dispatcher = create_dispatcher(
        store=store,
        translators=texts,
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

        async def warm_charts_once_settled() -> None:
            # A worker's import of matplotlib is a second of CPU: after the first refreshes.
            await charts.start_warming(after=lambda: settled(application.settled))

        application.services.append(
            Duty("chart warm-up", warm_charts_once_settled, charts.stop_warming)
        )
    counted: asyncio.Event | None = None
    if topology.heartbeats is not None:
        # The sender's first pass waits until the heartbeats have counted the replicas: each
        # then knows its share of the send rate.
        counted = asyncio.Event()
        application.services.append(
            heartbeat(
                topology.heartbeats,
                settings.replica_id,
                lambda: application.role,
                limiter,
                counted,
            )
        )
    attach_hold(application)
    attach_delivery(application, texts, limiter, poll_s=delivery_poll_s, counted=counted)
    if settings.monitor:
        attach_monitor(application)
    else:
        application.settled.set()  # no index to load
    return application


def attach_hold(application: Application) -> None:
    """Hold the messages that storage being down fails, answer them when it returns, and
    confirm none of them to Telegram before then (bot.hold)."""
    queue, dispatcher, store = application.hold, application.dispatcher, application.store
    dispatcher.update.outer_middleware(
        HoldMiddleware(
            queue,
            STORAGE_UNAVAILABLE,
            store,
            dispatcher["translators"],
            application.settings.default_language,
        )
    )
    application.bot.session.middleware(HeldOffset(queue))
    replayer = Replayer(
        queue, dispatcher, application.bot, store.database.probe_write, STORAGE_UNAVAILABLE
    )
    application.services.append(background("replay", replayer.run))


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
    counted: asyncio.Event | None = None,
) -> None:
    """Every replica sends from the outbox (claims keep two from sending one row), from when
    the replicas have been `counted` (bot.jobs.heartbeat) if they share the send rate; the
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

    leading = lease_held(topology)
    deliver = sender.run if counted is None else after(counted, sender.run)
    application.services.append(background("delivery", deliver, before=release_stale_claims))
    # Daily work: its first pass (the history's retention, seconds of deletes) waits until
    # start-up has settled.
    housekeep = after(
        application.settled,
        lambda stop: housekeeping(store, stop, topology.flows, leading),
        at_most_s=SETTLE_AT_MOST_S,
    )
    application.duties.append(background("housekeeping", housekeep))


def attach_monitor(application: Application) -> None:
    """Scrape every provider on a schedule that starts and stops with the dispatcher."""
    http = Http(HttpSettings(backoff_initial_s=application.settings.scrape_backoff_s))
    sources = create_scrapers(application.settings, http)
    scheduler = create_scheduler(
        sources,
        application.store,
        LiveMatcher(application.store),
        interval_override_s=application.settings.refresh_seconds,
        stale_after=application.settings.stale_after,
        # PostgreSQL restarting or gone: one line per failed refresh, not a traceback.
        database_errors=UNWRITABLE_ERRORS,
        # A replica past its leader lease fetches nothing (storage.leader).
        leading=lease_held(application.topology),
        on_outcome=outcome_hooks(
            wake_delivery(application),
            application.metrics.record_outcome,
            alarm_hook(
                application.bot, application.settings, application.dispatcher["translators"]
            ),
        ),
    )
    after_first_round(scheduler, [source.name for source in sources], application.settled.set)
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


def create_mini_app(application: Application) -> MiniApp | None:
    """The Mini App's routes, when GPURADAR_PUBLIC_URL turns it on: Telegram opens it from
    there only, so without one nobody could open it with a signed initData."""
    settings = application.settings
    if settings.public_url is None:
        return None
    return MiniApp(
        application.store,
        SecretStr(application.bot.token),
        application.dispatcher["translators"],
        settings.default_language,
    )


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
    open_data = OpenData(
        application.store,
        lambda: application.provider_intervals,
        started_at=lambda: health.started_at,
        trusted_proxies=settings.trusted_proxies,
    )
    mcp = None
    if settings.mcp:
        # Imported only when on: the MCP SDK and its web stack are a second of every start.
        from bot.ops.mcp_server import McpEndpoint

        # The same open data (its rate limit, its reading of the filters) behind the tools.
        mcp = McpEndpoint(open_data, application.store, host=settings.ops_host)
    ops = OpsServer(
        health,
        application.metrics,
        application.store,
        host=settings.ops_host,
        port=settings.ops_port,
        open_data=open_data,
        mini_app=create_mini_app(application),
        mcp=mcp,
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
        once = OnceWebhook(webhook, application.bot, application.store, settings.replica_id)
        ops.add_post(settings.webhook_path, once.handle)
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
