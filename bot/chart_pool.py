"""Charts drawn in worker processes, so a chart never stalls the event loop.

matplotlib holds the GIL while it draws (0.77 s for one /history chart here): in a thread,
five charts at once held every other user's reply for seconds. A process pool keeps the loop
free; a bounded queue and a per-user cooldown keep the pool from being flooded, and a user
past either gets "wait N s" instead of a chart.

matplotlib is imported only in the workers (bot.charts), never in the bot's process. Started
cold, a worker spends seconds importing it and loading fonts, so the bot warms the pool in the
background once its start-up has settled (`start_warming`): the first /history then waits for
a drawing only.
"""

from __future__ import annotations

import asyncio
import logging
import math
import multiprocessing
import os
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ProcessPoolExecutor

from bot.history_chart import ChartSpec

logger = logging.getLogger(__name__)

# One chart per user per this many seconds: nobody reads two price charts faster.
COOLDOWN_S = 10.0
# Charts waiting or drawing at once; past that, "wait": a queue this deep is already seconds.
QUEUE_LIMIT = 4
# What a user past the queue limit is told to wait: about one chart's time per queued chart.
BUSY_WAIT_S = 5
WORKERS = max(1, min(2, (os.cpu_count() or 1) - 1))


class ChartBusyError(Exception):
    """Not now: `wait_s` seconds until this user may ask again."""

    def __init__(self, wait_s: int) -> None:
        super().__init__(f"chart busy: wait {wait_s} s")
        self.wait_s = wait_s


def _warm_up() -> None:
    """Each worker's initializer: matplotlib's import, and one drawing for its fonts and
    renderer, paid before the worker takes its first chart."""
    from bot.charts import history_png, sample_spec

    history_png(sample_spec())


def _ready() -> int:
    """Runs once a worker's initializer has finished."""
    return os.getpid()


def _draw(spec: ChartSpec) -> bytes:
    from bot.charts import history_png

    return history_png(spec)


def _process_pool() -> Executor:
    # spawn, not fork: the bot's process has threads (aiosqlite's), which fork copies badly.
    return ProcessPoolExecutor(
        max_workers=WORKERS,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_warm_up,
    )


class ChartPool:
    def __init__(
        self,
        *,
        cooldown_s: float = COOLDOWN_S,
        queue_limit: int = QUEUE_LIMIT,
        clock: Callable[[], float] = time.monotonic,
        executor: Callable[[], Executor] = _process_pool,
    ) -> None:
        self._cooldown_s = cooldown_s
        self._queue_limit = queue_limit
        self._clock = clock
        self._make_executor = executor
        self._executor: Executor | None = None
        self._starting = asyncio.Lock()
        self._active = 0
        self._last: dict[int, float] = {}  # user -> when their last chart was accepted
        self._warming: asyncio.Task[None] | None = None
        self._spawned: list[asyncio.Future[int]] = []  # each worker's first task

    async def warm_up(self) -> None:
        """Start the workers and wait until they have taken their first tasks: by then a
        worker has imported matplotlib and drawn once (the first to be ready may take both)."""
        await self._pool()
        await asyncio.gather(*self._spawned)

    @property
    def warming(self) -> bool:
        """Whether a background warm-up was started (`start_warming`)."""
        return self._warming is not None

    async def start_warming(self, after: Callable[[], Awaitable[object]] | None = None) -> None:
        """Warm the pool in the background (start-up must not wait for it), once `after()`
        returns if given: a chart asked for before then starts the workers itself."""
        if self._warming is None:
            self._warming = asyncio.create_task(self._warm_quietly(after), name="chart warm-up")

    async def stop_warming(self) -> None:
        task, self._warming = self._warming, None
        if task is not None:
            task.cancel()
            await asyncio.wait((task,))

    async def _warm_quietly(self, after: Callable[[], Awaitable[object]] | None) -> None:
        if after is not None:
            await after()
        started = time.monotonic()
        try:
            await self.warm_up()
        except Exception:  # a chart will start the workers again, or say why it cannot
            logger.exception("chart workers did not warm up")
        else:
            logger.info("chart workers warm in %.1f s", time.monotonic() - started)

    async def render(self, user_id: int, spec: ChartSpec) -> bytes:
        """The chart as PNG; raises ChartBusyError when this user or the queue must wait."""
        now = self._clock()
        last = self._last.get(user_id)
        if last is not None and now - last < self._cooldown_s:
            raise ChartBusyError(max(1, math.ceil(self._cooldown_s - (now - last))))
        if self._active >= self._queue_limit:
            raise ChartBusyError(BUSY_WAIT_S)
        self._forget(now)
        self._last[user_id] = now
        self._active += 1
        try:
            pool = await self._pool()
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(pool, _draw, spec)
        finally:
            self._active -= 1

    def close(self) -> None:
        """Stop the workers; queued charts are cancelled, one being drawn is finished."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    async def _pool(self) -> Executor:
        """The executor, its workers started by the warm-up or else at the first chart."""
        async with self._starting:
            if self._executor is None:
                # Kept before the workers spawn: a warm-up cancelled midway (the bot stopping)
                # leaves close() an executor to shut down, not live workers nobody holds.
                executor = self._executor = self._make_executor()
                if isinstance(executor, ProcessPoolExecutor):
                    # Spawning a worker is a fork and exec: off the event loop. One task per
                    # worker, as each submit spawns one while none is idle; each worker then
                    # runs _warm_up before its first task.
                    for _ in range(WORKERS):
                        submitted = await asyncio.to_thread(executor.submit, _ready)
                        self._spawned.append(asyncio.wrap_future(submitted))
            return self._executor

    def _forget(self, now: float) -> None:
        if len(self._last) < 1024:
            return
        for user in [u for u, at in self._last.items() if now - at >= self._cooldown_s]:
            del self._last[user]
