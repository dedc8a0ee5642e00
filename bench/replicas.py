"""Alert fan-out by several `python -m bot` replica processes on one database: 10 000 alerts
queued at once, sent by 1 replica and then by 3 replicas on one PostgreSQL, through a fake
Telegram that allows 30 messages/s overall and 1 per chat and answers after `--rtt-ms`. Several
replicas run twice: once the leader is killed -9 when half the alerts are delivered, once it
is frozen then (SIGSTOP, for three leader leases: 45 s at the defaults) and thawed (SIGCONT).

Printed side by side for each run: messages Telegram accepted, duplicates (a chat alerted more
than once) and their bound, lost alerts (a chat never alerted), 429s, the most messages in any
one second, seconds from the first delivery to the last, and msg/s over that span. The bound:
0 without a fault; with one, the killed or frozen replica's sends in flight
(GPURADAR_SEND_CONCURRENCY), which it may have sent without marking them, so that another
replica sends them again once their claim lease runs out (a thawed replica sends none of the
claims that ran out meanwhile). Target: >= 27 msg/s, 0 lost, duplicates <= the bound. A
freeze's seconds include the wait for the lease; so do a kill's.

The alerts are seeded into the outbox through the product's Store (bench/fanout.py's fill),
before any replica starts; the replicas run with the product's defaults and scrape nothing.
The fake Telegram runs in this process, the replicas in their own.

    .venv/bin/python -m bench.replicas                    # PostgreSQL: 1, then 3 replicas
    .venv/bin/python -m bench.replicas --alerts 600 --runs 3
    .venv/bin/python -m bench.replicas --backend sqlite --alerts 600   # one replica only
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import asyncpg

from bench.fanout import TARGET, TELEGRAM_LIMIT, busiest_second, fill
from bot.config import Settings
from bot.fake_telegram import ApiCall
from bot.startup import open_store
from tests.fakes.telegram import FakeTelegram
from tests.postgres import ADMIN_URL, temporary_database, unreachable_reason
from tests.processes import BotProcess, bot_settings

Backend = Literal["postgresql", "sqlite"]
DEFAULTS = Settings.model_validate({})  # the product's defaults, not this shell's env
# A run gives up when no alert was delivered for this long: longer than any claim lease (5
# minutes alone on SQLite, bot/topology.py SOLE_CLAIMS; GPURADAR_CLAIM_LEASE_S shared), after
# which a dead replica's rows are claimed again, so rows it held are still waited for.
IDLE_S = 360.0
POLL_S = 0.2  # how often the run looks at the counts and a replica's /metrics
FREEZE_S = 3 * DEFAULTS.leader_lease_s  # how long "freeze the leader" keeps it stopped
Fault = Literal["kill", "freeze"]


@dataclass
class Tally:
    """What the fake Telegram saw, kept by a listener as the calls come (no rescans)."""

    per_chat: Counter[int] = field(default_factory=Counter)
    arrivals: list[float] = field(default_factory=list)  # time.time() of each accepted send
    last_at: float = field(default_factory=time.monotonic)

    polls: list[float] = field(default_factory=list)  # time.time() of each getUpdates

    def __call__(self, call: ApiCall) -> None:
        if call.method == "getUpdates":
            self.polls.append(call.time)
        if call.method == "sendMessage":
            self.per_chat[int(call.params["chat_id"])] += 1
            self.arrivals.append(call.time)
            self.last_at = time.monotonic()

    @property
    def delivered(self) -> int:
        return len(self.arrivals)


@dataclass(frozen=True)
class Result:
    label: str
    replicas: int
    killed: str  # "kill r1 at 5000", "freeze r1 at 5000" or "-"
    alerts: int
    delivered: int
    duplicates: int
    bound: int
    lost: int
    flood_waits: int
    busiest_second: int
    elapsed_s: float
    takeover_s: float | None  # from the fault to the next getUpdates (a new leader polling)
    conflicts: int  # getUpdates answered 409 after the fault (a thawed leader still polling)
    problems: tuple[str, ...]  # tracebacks, a run that gave up

    @property
    def rate(self) -> float:
        return self.delivered / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def passed(self) -> bool:
        clean = self.lost == 0 and self.duplicates <= self.bound and not self.problems
        clean = clean and self.conflicts == 0
        return clean and self.rate >= TARGET


# --- the database --------------------------------------------------------------------------


@asynccontextmanager
async def database(backend: Backend, folder: Path) -> AsyncIterator[str | Path]:
    """An empty database of the backend for one run: a file, or a PostgreSQL database."""
    if backend == "sqlite":
        yield folder / "data" / "gpuradar.sqlite3"
        return
    async with temporary_database() as url:
        yield url


def store_settings(where: str | Path, folder: Path) -> Settings:
    """The settings the bot opens its store with. With a URL the file path points into the
    run's folder too: a store that ignored the URL would write there, not in this checkout."""
    if isinstance(where, Path):
        return Settings.model_validate({"db_path": where})
    return Settings.model_validate({"database_url": where, "db_path": folder / "ignored.sqlite3"})


async def seed(where: str | Path, folder: Path, n: int) -> None:
    """N users with one pending alert each, through the Store as the bot opens it."""
    store, lock = await open_store(store_settings(where, folder))
    try:
        queued = await fill(store, n, datetime.now(UTC))
        pending = await store.pending_count()
    finally:
        await store.close()
        if lock is not None:
            lock.release()
    if queued != n or pending != n:
        raise SystemExit(f"bench.replicas: seeded {queued} alerts, {pending} pending, of {n}")
    if isinstance(where, str):
        # The bots read GPURADAR_DATABASE_URL: the rows must be there, not in a file that a
        # store without PostgreSQL support opened instead.
        connection = await asyncpg.connect(where)
        try:
            found = await connection.fetchval("SELECT count(*) FROM outbox")
        except asyncpg.UndefinedTableError:
            found = 0  # the store wrote somewhere else: it does not speak PostgreSQL (yet)
        finally:
            await connection.close()
        if found != n:
            raise SystemExit(f"bench.replicas: {found} outbox rows in PostgreSQL, not {n}")


# --- one run -------------------------------------------------------------------------------


async def run(
    backend: Backend, replicas: int, n: int, rtt_s: float, fault: Fault | None = None
) -> Result:
    folder = Path(tempfile.mkdtemp(prefix="bench-replicas-"))
    label = f"{replicas} replica{'s' if replicas > 1 else ''} ({backend})"
    async with database(backend, folder) as where:
        try:
            await seed(where, folder, n)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        async with FakeTelegram(
            global_per_second=TELEGRAM_LIMIT, per_chat_per_second=1, latency=rtt_s
        ) as telegram:
            tally = Tally()
            telegram.add_listener(tally)
            async with AsyncExitStack() as stack:
                bots = []
                for index in range(1, replicas + 1):
                    name = f"r{index}"
                    settings = bot_settings(
                        telegram.base_url, database=where, GPURADAR_REPLICA_ID=name
                    )
                    bot = BotProcess(folder / name, settings, name=name)
                    bots.append(await stack.enter_async_context(bot))
                killed, killed_at, gave_up = await deliver(bots, tally, n, fault)
            flood_waits = sum(1 for call in telegram.calls_of("sendMessage") if call.status == 429)
            conflicts = sum(
                1
                for call in telegram.calls_of("getUpdates")
                if call.status == 409 and killed_at is not None and call.time > killed_at
            )
    problems = [f"{bot.name} printed a traceback" for bot in bots if "Traceback" in bot.output()]
    if gave_up:
        problems.append(f"gave up: nothing delivered for {IDLE_S:.0f} s")
    if problems:
        print(f"  {label}: {'; '.join(problems)} (logs kept in {folder})", file=sys.stderr)
    else:
        shutil.rmtree(folder, ignore_errors=True)
    arrivals = sorted(tally.arrivals)
    return Result(
        label=label,
        replicas=replicas,
        killed=killed,
        alerts=n,
        delivered=tally.delivered,
        duplicates=sum(count - 1 for count in tally.per_chat.values()),
        bound=DEFAULTS.send_concurrency if killed != "-" else 0,
        lost=n - len(tally.per_chat),
        flood_waits=flood_waits,
        busiest_second=busiest_second(arrivals),
        elapsed_s=arrivals[-1] - arrivals[0] if len(arrivals) > 1 else 0.0,
        takeover_s=takeover(tally.polls, killed_at),
        conflicts=conflicts,
        problems=tuple(problems),
    )


def takeover(polls: list[float], killed_at: float | None) -> float | None:
    after = [at for at in polls if killed_at is not None and at > killed_at]
    return None if killed_at is None or not after else min(after) - killed_at


async def deliver(
    bots: list[BotProcess], tally: Tally, n: int, fault: Fault | None
) -> tuple[str, float | None, bool]:
    """Wait until the outbox is empty (or nothing moves for IDLE_S), killing or freezing the
    leader at half way when asked (a frozen one is thawed after FREEZE_S, and the run ends
    no sooner); (the fault, the time.time() of it, whether the run gave up)."""
    killed = "-"
    killed_at: float | None = None
    frozen: BotProcess | None = None
    while True:
        await asyncio.sleep(POLL_S)
        if fault is not None and killed == "-" and tally.delivered >= n // 2:
            victim = await leader(bots)
            if fault == "kill":
                victim.kill()
            else:
                victim.freeze()
                frozen = victim
            killed_at = time.time()
            killed = f"{fault} {victim.name} at {tally.delivered}"
        if frozen is not None and killed_at is not None and time.time() - killed_at >= FREEZE_S:
            frozen.thaw()
            frozen = None
        # A frozen replica answers nothing: ask the others.
        alive = [bot for bot in bots if bot.running and bot is not frozen]
        if not alive:
            raise SystemExit("bench.replicas: every replica exited:\n" + bots[-1].output()[-2000:])
        if frozen is None and await alive[0].metric("gpuradar_outbox_pending") == 0:
            return killed, killed_at, False
        if frozen is None and time.monotonic() - tally.last_at > IDLE_S:
            return killed, killed_at, True


async def leader(bots: list[BotProcess]) -> BotProcess:
    """The replica whose /healthz says it leads; the first one if none says so."""
    for bot in bots:
        if bot.running and await bot.role() == "leader":
            return bot
    return next(bot for bot in bots if bot.running)


# --- report --------------------------------------------------------------------------------

HEADER = (
    f"{'run':<26}{'fault':>20}{'alerts':>8}{'msgs':>7}{'dups':>6}{'bound':>6}{'lost':>6}"
    f"{'429s':>6}{'max/1s':>8}{'seconds':>9}{'msg/s':>8}{'takeover':>10}{'409s':>6}  target"
)


def row(result: Result) -> str:
    verdict = "PASS" if result.passed else "FAIL"
    return (
        f"{result.label:<26}{result.killed:>20}{result.alerts:>8}{result.delivered:>7}"
        f"{result.duplicates:>6}{result.bound:>6}{result.lost:>6}{result.flood_waits:>6}"
        f"{result.busiest_second:>8}{result.elapsed_s:>9.1f}{result.rate:>8.1f}"
        f"{'-' if result.takeover_s is None else f'{result.takeover_s:.1f} s':>10}"
        f"{result.conflicts:>6}  {verdict}"
    )


async def main(backend: Backend, runs: list[int], n: int, rtt_ms: float) -> int:
    if backend == "postgresql" and (reason := unreachable_reason()) is not None:
        print(f"bench.replicas: PostgreSQL not reachable at {ADMIN_URL}: {reason}", file=sys.stderr)
        return 2
    if backend == "sqlite" and runs != [1]:
        print(
            "bench.replicas: SQLite serves one process per database file; use --runs 1",
            file=sys.stderr,
        )
        return 2
    print(
        f"fan-out of {n} alerts by replica processes on {backend}, fake Telegram"
        f" {TELEGRAM_LIMIT:.0f} msg/s overall and 1 per chat, round trip {rtt_ms:.0f} ms"
    )
    print(
        f"product defaults: GPURADAR_SEND_RATE={DEFAULTS.send_rate:g},"
        f" GPURADAR_SEND_CONCURRENCY={DEFAULTS.send_concurrency}"
    )
    print(HEADER)
    results = []
    faults: tuple[Fault | None, ...] = (None,)
    for replicas in runs:
        # One replica alone has nobody to take over; several run once per fault.
        for fault in faults if replicas == 1 else ("kill", "freeze"):
            result = await run(backend, replicas, n, rtt_ms / 1000, fault)
            results.append(result)
            print(row(result), flush=True)
    print(
        f"target: >= {TARGET:.0f} msg/s, 0 lost, dups <= bound (the killed or frozen replica's"
        " sends in flight), no 409. seconds: first delivery to last; max/1s: most messages in"
        " any one second; takeover: from the kill -9 or the SIGSTOP (thawed after"
        f" {FREEZE_S:.0f} s) to the next leader's first getUpdates (target: < 30 s)."
    )
    return 0 if all(result.passed for result in results) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alerts", type=int, default=10_000, help="alerts queued (10 000)")
    parser.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument(
        "--runs", default="", help="replica counts, in order (1,3; with sqlite only 1)"
    )
    parser.add_argument("--rtt-ms", type=float, default=60.0, help="round trip (default 60)")
    args = parser.parse_args()
    default_runs = "1" if args.backend == "sqlite" else "1,3"
    counts = [int(part) for part in (args.runs or default_runs).split(",") if part.strip()]
    sys.exit(asyncio.run(main(args.backend, counts, args.alerts, args.rtt_ms)))
