"""`make demo`: the console against the bundled fake provider sites, with no network at all.

The fake Selectel starts with its 8× H100 server out of units (on pre-order). The demo types two
watches for you, then puts that server in stock (an "in stock" alert for `/watch h100`), then
cuts its price from 3 950 000 to 3 600 000 ₽ a month, under 650 ₽ per GPU-hour (a "below target"
alert for `/watch h100 max=650`). Each change is followed by a refresh on the spot, so the whole
script takes a few seconds, while the chart workers warm up. Then whatever you type (or pipe in)
goes to the bot, with the fake sites still serving:

    make demo
    printf '/watch a100 80gb max=250\\n/prices h100\\n' | make demo

State lives in data/demo/ (wiped at each start); the log is data/demo/gpuradar.log.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from tests.store_helpers import outbox_rows

# Only the standard library at module level: the /history chart workers are spawned
# processes, and a spawned process imports its parent's main module (this one, under
# `python -m tests.fakes.demo`) before its first task. The bot's imports here cost each
# worker about 5 s of CPU before it could draw (measured on the 2-core machine: 1.0 s of CPU
# for a worker's warm-up from a bare script, 6.0-6.5 s when that script imported this
# module); `python -m bot` is not re-imported (multiprocessing skips a package's __main__).
if TYPE_CHECKING:
    from apscheduler.events import JobExecutionEvent

    from bot.config import Settings
    from bot.console import Console
    from tests.fakes.providers import FakeProviders
    from tests.fakes.sites.selectel import H100Control

DEMO_DIR = Path("data/demo")
SCRIPT = ("/watch h100", "/watch h100 max=650")
# 3 600 000 ₽ a month for 8 GPUs is 625 ₽ per GPU-hour: under the second watch's 650.
DROPPED = 3_600_000
# A generous bound for one local refresh plus one send; the demo says so if it is passed.
WAIT_S = 30.0
POLL_S = 0.05


def demo_settings(sites: FakeProviders, folder: Path) -> Settings:
    """Console mode against the fake sites; the refresh interval is long because the demo
    triggers each refresh itself, right after the change it scripted."""
    from bot.config import load_settings

    return load_settings(
        mode="console",
        bot_token=None,
        db_path=folder / "demo.sqlite3",
        log_file=folder / "gpuradar.log",
        monitor=True,
        refresh_seconds=3600,
        ops_host="127.0.0.1",
        ops_port=0,
        **sites.urls(),
    )


async def until(check: Callable[[], Awaitable[bool]], within: float = WAIT_S) -> bool:
    """Poll `check` until it holds; False after `within` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not await check():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(POLL_S)
    return True


async def refresh_now(console: Console, provider: str) -> bool:
    """Run the provider's scheduled refresh at once; True when it finished within WAIT_S."""
    from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED

    from bot.scheduler import job_id

    scheduler = console.application.scheduler
    assert scheduler is not None
    done = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_done(event: JobExecutionEvent) -> None:
        if event.job_id == job_id(provider):
            loop.call_soon_threadsafe(done.set)

    scheduler.add_listener(on_done, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
    try:
        scheduler.modify_job(job_id(provider), next_run_time=datetime.now(UTC))
        async with asyncio.timeout(WAIT_S):
            await done.wait()
    except TimeoutError:
        return False
    finally:
        scheduler.remove_listener(on_done)
    return True


async def delivered(console: Console, at_least: int) -> bool:
    """At least this many alert rows sent, and none left pending."""
    store = console.application.store
    rows = await outbox_rows(store)
    return await store.pending_count() == 0 and sum(r.status == "sent" for r in rows) >= at_least


async def run_script(console: Console, h100: H100Control) -> bool:
    """The scripted part; True when both alerts arrived."""
    store = console.application.store
    note = console.printer.note

    async def loaded() -> bool:
        return len(await store.provider_health()) == 3

    if not await until(loaded):
        note("(demo: the fake sites were not loaded in time; see data/demo/gpuradar.log)")
        return False
    note(
        "(demo: fake Selectel, HOSTKEY and immers.cloud on 127.0.0.1 are loaded;"
        " Selectel's 8× H100 server has no units, pre-order only)"
    )
    for line in SCRIPT:
        await console.say(line)
    steps: tuple[tuple[str, str, float], ...] = (
        ("(demo: Selectel's 8× H100 server comes into stock)", "count", 1),
        ("(demo: its price drops from 3 950 000 to 3 600 000 ₽ a month)", "month_rub", DROPPED),
    )
    for number, (message, field, value) in enumerate(steps, start=1):
        note(message)
        setattr(h100, field, value)
        wanted = 1 + sum(row.status == "sent" for row in await outbox_rows(store))

        async def alerted(wanted: int = wanted) -> bool:
            # The refresh woke the sender while the chat was still inside its per-chat gap
            # (after the message just before), so it would look again only at its idle poll:
            # nudged, it looks as soon as the gap is over.
            sender = console.application.sender
            if sender is not None:
                sender.wake()
            return await delivered(console, wanted)

        if not await refresh_now(console, "selectel") or not await until(alerted):
            note(f"(demo: step {number} made no alert in time; see data/demo/gpuradar.log)")
            return False
    await charts_ready(console)
    note("(demo: both alerts came. Now it is your turn: try /prices, /fit 13b qlora, /subs)")
    return True


async def charts_ready(console: Console) -> None:
    """Before the user's turn: the chart workers the console started warming (by
    GPURADAR_CHART_WARM_UP) have imported matplotlib, so a first /history waits for its
    drawing only. Mostly done by now, behind the script; on a busy machine the rest is waited
    for here, up to WAIT_S (past that, or should the warm-up fail, the first chart starts
    them)."""
    charts = console.application.charts
    if charts is None or not charts.warming:
        return
    # Shielded: a warm-up that outlasts the wait goes on in the background.
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.shield(charts.warm_up()), WAIT_S)


async def demo(stdin: TextIO, stdout: TextIO, folder: Path = DEMO_DIR) -> int:
    from bot.console import HINT, Console
    from tests.fakes.providers import FakeProviders, all_sites
    from tests.fakes.sites.selectel import H100Control

    interactive = stdin.isatty()
    async with FakeProviders(all_sites()) as sites:
        h100 = H100Control(count=0)
        h100.install(sites["selectel"])
        async with Console(demo_settings(sites, folder), stdout, echo=not interactive) as console:
            if interactive:
                print(f"{HINT} Log: {folder / 'gpuradar.log'}", file=sys.stderr)
            ok = await run_script(console, h100)
            await console.read(stdin)
    return 0 if ok else 1


def reset(folder: Path) -> None:
    """A fresh start: the demo's own database and pictures from the last run go."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in [*folder.glob("demo.sqlite3*"), *folder.glob("console/*.png")]:
        path.unlink()


def main() -> int:
    from bot.config import ConfigError
    from bot.logging_setup import configure_console_logging

    folder = DEMO_DIR
    try:
        reset(folder)
        configure_console_logging("INFO", [], folder / "gpuradar.log")
    except OSError as error:
        print(f"gpuradar demo: cannot use {folder}: {error}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(demo(sys.stdin, sys.stdout, folder))
    except ConfigError as error:
        print(f"gpuradar demo: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
