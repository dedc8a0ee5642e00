"""Charts off the event loop: a per-user cooldown and a bounded queue, and the "wait" reply."""

from __future__ import annotations

import asyncio
import multiprocessing
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Executor, Future
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.chart_pool import BUSY_WAIT_S, ChartBusyError, ChartPool, _process_pool
from bot.history_chart import ChartSpec, ChartTexts
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_watch import seed_history
from tests.fakes.telegram import FakeTelegram
from tests.polling import COLD_CHART_S

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
TEXTS = ChartTexts("H100", "₽", "UTC", "in stock", "out of stock", "")
SPEC = ChartSpec((), NOW - timedelta(days=30), NOW, "UTC", TEXTS, None, 0)


class HeldExecutor(Executor):
    """Every chart "draws" until the test finishes it."""

    def __init__(self) -> None:
        self.drawing: list[Future[bytes]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[bytes] = Future()
        self.drawing.append(future)
        return future


class Clock:
    now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_cooldown_and_queue_limit_say_how_long_to_wait():
    held, clock = HeldExecutor(), Clock()
    pool = ChartPool(cooldown_s=10, queue_limit=3, clock=clock, executor=lambda: held)

    def chart(user: int) -> asyncio.Task[bytes]:
        return asyncio.create_task(pool.render(user, SPEC))

    first = chart(1)
    await asyncio.sleep(0)
    clock.now += 4
    with pytest.raises(ChartBusyError) as again:
        await pool.render(1, SPEC)
    assert again.value.wait_s == 6  # the rest of user 1's 10 s

    others = [chart(user) for user in (2, 3)]
    await asyncio.sleep(0)
    with pytest.raises(ChartBusyError) as full:
        await pool.render(4, SPEC)
    assert full.value.wait_s == BUSY_WAIT_S
    assert len(held.drawing) == 3

    for future in held.drawing:
        future.set_result(b"png")
    assert [await task for task in (first, *others)] == [b"png"] * 3
    fourth = chart(4)  # the queue has room again
    await asyncio.sleep(0)
    held.drawing[-1].set_result(b"png4")
    assert await fourth == b"png4"


async def test_a_second_history_within_the_cooldown_is_told_to_wait(
    telegram: FakeTelegram, db_path: Path
):
    await seed_history(db_path)
    # The cooldown runs from a chart's start: on a clock that stands still, a cold first
    # chart however slow (a loaded machine) leaves the second inside it.
    async with running_app(telegram, db_path, charts=ChartPool(clock=lambda: 0.0)):
        after = telegram.mark()
        telegram.push_message(CHAT, "/history h100")
        photo = await telegram.wait_for_call("sendPhoto", after=after, timeout=COLD_CHART_S)
        after = telegram.mark()
        telegram.push_message(CHAT, "/history h100")
        wait = await telegram.wait_for_call("sendMessage", after=after)
    assert photo.ok
    assert "Попробуйте через" in wait.result["text"]


async def test_a_warm_up_stopped_midway_is_shut_down_by_close():
    made: list[Executor] = []

    def executor() -> Executor:
        made.append(_process_pool())
        return made[-1]

    pool = ChartPool(executor=executor)
    await pool.start_warming()
    assert pool.warming
    await asyncio.sleep(0)  # the warm-up has made the executor and is spawning a worker
    await pool.stop_warming()
    # Shutting down waits for a worker still importing matplotlib: off the loop.
    await asyncio.to_thread(pool.close)
    (only,) = made
    with pytest.raises(RuntimeError, match="shutdown"):
        only.submit(int)
    assert multiprocessing.active_children() == []


def test_a_worker_loads_no_aiogram_aiohttp_or_pydantic():
    """What a worker loads: pickled specs name bot.history_chart, and bot.charts draws them.
    aiogram's import alone took a worker 9 s on a loaded machine."""
    code = (
        "import sys, bot.chart_pool, bot.charts; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'aiogram', 'aiohttp', 'pydantic'}))"
    )
    found = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert found.stdout.strip() == "[]"
