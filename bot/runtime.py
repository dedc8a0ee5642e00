"""The running application: what every replica serves for its whole life, what the leader
adds, and the order they start and stop in. bot.app builds it; `python -m bot` runs it.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from dataclasses import dataclass, field

from aiogram import Bot, Dispatcher
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.chart_pool import ChartPool
from bot.config import ConfigError, Settings
from bot.delivery.sender import Sender
from bot.hold import HoldQueue
from bot.ops.metrics import Metrics
from bot.ops.server import OpsServer
from bot.replica import Duty, Replica, Role
from bot.topology import Alone, Topology
from scrapers.http import Http
from storage import Store
from storage.lock import DatabaseLock

logger = logging.getLogger("gpuradar")


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
    # Messages held while storage is down (bot.hold), answered when it returns (bot.replay).
    hold: HoldQueue = field(default_factory=HoldQueue)
    # Set once start-up's heavy work is done (each provider's first refresh, the first of
    # which loads the match index): what no reply needs soon waits for it, at most
    # bot.jobs.SETTLE_AT_MOST_S. Set at once without a monitor.
    settled: asyncio.Event = field(default_factory=asyncio.Event)
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
            # What Telegram still keeps goes to the next poller; this replica answers the rest.
            released = self.hold.release_unconfirmed()
            if released:
                logger.info("%s held updates left to Telegram for the next poller", released)

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
