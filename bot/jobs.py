"""The background jobs every replica or the leader runs beside the bot: each a `Duty` that
starts a task and stops it by setting its event (the heartbeat, delivery, housekeeping)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.delivery.limiter import Limiter
from bot.logging_setup import one_line
from bot.replica import Duty
from storage import Store
from storage.flows import SharedFlows
from storage.replicas import BEAT_INTERVAL_S, ReplicaRegistry

logger = logging.getLogger("gpuradar")

# What no reply needs soon (the chart workers' warm-up, housekeeping's first pass) waits for
# start-up's heavy work, each provider's first refresh (the first loads the match index,
# seconds at 100k subscriptions), so that the replies meanwhile do not share the two cores
# with it too; and at most this long, so that a refresh that hangs delays it no further.
SETTLE_AT_MOST_S = 60.0
# Sent and dropped alerts are kept this long: far over any cooldown, which reads them, and
# the unique key stops a re-derived old event only while its row exists.
OUTBOX_KEEP = timedelta(days=30)
HOUSEKEEPING_INTERVAL = timedelta(days=1)


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


def heartbeat(
    registry: ReplicaRegistry,
    replica_id: str,
    role: Callable[[], str],
    limiter: Limiter,
    counted: asyncio.Event,
    *,
    interval_s: float = BEAT_INTERVAL_S,
) -> Duty:
    """Say every `interval_s` that this replica lives, and send at 1/N of the bot's rate
    while N replicas do (Limiter.share): Telegram's 30 messages/s is per bot.

    Starting says once that this replica is here, and sets `counted` one beat later: the
    others have had a beat to count it, and it them, so replicas started together do not
    each send alerts at the full rate (the sender waits for it: `after`). Start-up itself
    does not wait that beat: the replies of a replica just started go meanwhile."""

    async def beat() -> None:
        try:
            alive = await registry.beat(replica_id, role())
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
                    await asyncio.wait_for(stop.wait(), interval_s)
                await beat()
                counted.set()
        finally:
            # A clean stop: the others take this replica's share at their next beat.
            with contextlib.suppress(Exception):
                await registry.leave(replica_id)

    return background("heartbeat", beating, before=beat)


def after(
    ready: asyncio.Event,
    run: Callable[[asyncio.Event], Coroutine[Any, Any, None]],
    *,
    at_most_s: float | None = None,
) -> Callable[[asyncio.Event], Coroutine[Any, Any, None]]:
    """`run(stop)`, begun once `ready` is set, or `at_most_s` after the start if that comes
    first; not at all if `stop` is set first."""

    async def waiting(stop: asyncio.Event) -> None:
        waits = [asyncio.create_task(event.wait()) for event in (ready, stop)]
        try:
            await asyncio.wait(waits, timeout=at_most_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        if not stop.is_set():
            await run(stop)

    return waiting


async def settled(ready: asyncio.Event, at_most_s: float = SETTLE_AT_MOST_S) -> None:
    """Return once `ready` is set, or after `at_most_s`."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(ready.wait(), at_most_s)


async def compact(store: Store, leading: Callable[[], bool]) -> None:
    points, summaries = await store.compact_history(datetime.now(UTC), keep_going=leading)
    if points or summaries:
        logger.info("history retention: %s change points, %s summary rows", points, summaries)


async def housekeeping(
    store: Store,
    stop: asyncio.Event,
    flows: SharedFlows | None = None,
    leading: Callable[[], bool] = lambda: True,
) -> None:
    """Daily, from start-up: forget sent and dropped alerts older than OUTBOX_KEEP, all but
    the newest subscription changes (the match index has long applied them), the shared
    flood state of users long quiet, the sizings too old to be followed up, the webhook
    updates' claims older than Telegram retries (storage.updates.KEEP_UPDATES), and the
    history's detail past its retention (storage.history_tiers.compact_history, in short
    batches).

    `leading` is asked before each step: a leader whose lease ran out (storage.leader) stops
    at once, the election stopping this duty right after."""
    while not stop.is_set():
        try:
            purged = 0
            steps: list[Callable[[], Awaitable[object]]] = [
                lambda: store.prune_subscription_changes(),
                lambda: store.forget_sizings(datetime.now(UTC)),
                lambda: store.forget_updates(datetime.now(UTC)),
            ]
            if flows is not None:
                steps.append(flows.forget_quiet)
            steps.append(lambda: compact(store, leading))
            if leading():
                purged = await store.purge_outbox(datetime.now(UTC) - OUTBOX_KEEP)
            for step in steps:
                if not leading():
                    break
                await step()
            if purged:
                logger.info("purged %s sent or dropped outbox rows", purged)
        except Exception:  # the next day tries again; delivery does not depend on this
            logger.exception("housekeeping failed")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), HOUSEKEEPING_INTERVAL.total_seconds())
