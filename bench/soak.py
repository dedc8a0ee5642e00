"""Soak: the whole bot as a process for N minutes against changing, faulty fake providers and a
fake Telegram, with 1 000 subscribed users.

The bench process runs the fakes and a driver: Selectel's 8× H100 server flips between in
stock and sold out every few seconds, and faults (HTTP 500, captcha pages, truncated bodies,
empty lists) are mixed into every provider. The bot (`python -m bot` with a token, the fake
Telegram as its API, a 10-second refresh) runs as a child process, so its RSS is its own.

Printed: the bot's RSS at the start and the end, the deepest outbox, alerts expected against
alerts delivered, duplicates, false alerts and unhandled errors, with the targets:
nothing lost, no duplicates, no false alerts, RSS growth under 10 %.

  expected   appearances of the H100 seen by good snapshots (its change history) × subscribers
  delivered  alert blocks about it in the messages the fake Telegram accepted
  false      an "in stock" change point at a moment the driver was serving it sold out

    .venv/bin/python -m bench.soak [--minutes 5] [--users 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import signal
import socket
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO

from monitor.watch_words import parse_watch
from storage import Store
from tests.fakes.providers import (
    FakeProviders,
    Mode,
    all_sites,
)
from tests.fakes.sites.selectel import H100_CONFIG, H100Control
from tests.fakes.telegram import FakeTelegram

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "5151:soak-token"
H100 = H100_CONFIG
ALERT_LINE = re.compile(r"H100 SXM × 8 — Selectel, MSK-7")
FAULTS = (Mode.ERROR_500, Mode.CAPTCHA, Mode.TRUNCATED, Mode.EMPTY)
FIRST_CHAT = 1_000_000


@dataclass
class Driver:
    """Flips Selectel's H100 server between in stock and sold out; remembers what it served."""

    control: H100Control = field(default_factory=H100Control)
    log: list[tuple[float, bool]] = field(default_factory=list)  # (time, in stock from then)

    @property
    def in_stock(self) -> bool:
        return self.control.count > 0

    def flip(self) -> None:
        self.control.count = 0 if self.in_stock else 1
        self.log.append((time.time(), self.in_stock))

    def served_at(self, moment: float) -> set[bool]:
        """What may have been served around `moment` (both near a flip)."""
        states = {False}
        for at, state in self.log:
            if at <= moment + 1.0:
                states = {state} if at <= moment - 1.0 else states | {state}
        return states


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(match.group(1)) / 1024 if match else 0.0


async def seed(db_path: Path, users: int) -> None:
    store = await Store.open(db_path)
    try:
        watch = parse_watch("h100")
        for chat_id in range(FIRST_CHAT, FIRST_CHAT + users):
            await store.ensure_user(chat_id, language="ru", timezone="Europe/Moscow")
            # No cooldown: every appearance must reach every subscriber.
            await store.add_subscription(chat_id, watch, cooldown_s=0)
    finally:
        await store.close()


async def start_bot(
    telegram: FakeTelegram,
    sites: FakeProviders,
    settings: Mapping[str, str],
    *,
    cwd: Path,
    token: str = TOKEN,
    stderr: int | IO[bytes] = asyncio.subprocess.PIPE,
) -> asyncio.subprocess.Process:
    """`python -m bot` polling `telegram`, scraping `sites`, with these settings besides
    (GPURADAR_*: the database, ...); none of this process's own GPURADAR_* settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPURADAR_")}
    env.update(sites.env())
    env.update(
        {
            "GPURADAR_BOT_TOKEN": token,
            "GPURADAR_TELEGRAM_API_URL": telegram.base_url,
            "GPURADAR_LOG_LEVEL": "WARNING",
            "PYTHONPATH": str(ROOT),
            **settings,
        }
    )
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=stderr,
    )


async def chaos(sites: FakeProviders, driver: Driver, stop: asyncio.Event, rng: random.Random):
    """Every second: maybe flip the H100 (about every 4 s), maybe break or heal a site."""
    while not stop.is_set():
        if rng.random() < 0.25:
            driver.flip()
        for name in sites.sites:
            if rng.random() < 0.15:
                mode = rng.choice(FAULTS) if rng.random() < 0.4 else Mode.NORMAL
                sites.set_mode(name, mode)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)


def outbox_stats(db_path: Path) -> tuple[int, int]:
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as connection:
        pending = connection.execute(
            "SELECT count(*) FROM outbox WHERE status = 'pending'"
        ).fetchone()[0]
        total = connection.execute("SELECT count(*) FROM outbox").fetchone()[0]
    return int(pending), int(total)


def other_alerts(db_path: Path) -> int:
    """Alerts about anything but the flipping H100: nothing else changes, so all are false."""
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as connection:
        row = connection.execute("SELECT count(*) FROM outbox WHERE sku != ?", (H100,)).fetchone()
    return int(row[0])


def appearances(db_path: Path) -> list[tuple[float, str]]:
    """H100 change points into "in stock" from the change history (good snapshots only)."""
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as connection:
        rows = connection.execute(
            "SELECT at, stock FROM offer_history WHERE provider = 'selectel' AND sku = ?"
            " ORDER BY id",
            (H100,),
        ).fetchall()
    found, previous = [], None
    for at, stock in rows:
        if stock == "in_stock" and previous != "in_stock" and previous is not None:
            found.append((datetime.fromisoformat(at).timestamp(), at))
        previous = stock
    return found


async def soak(minutes: float, users: int, seed_value: int) -> int:
    rng = random.Random(seed_value)
    folder = Path(tempfile.mkdtemp(prefix="gpuradar-soak-"))
    db_path = folder / "soak.sqlite3"
    await seed(db_path, users)
    driver = Driver()
    async with FakeTelegram(token=TOKEN) as telegram, FakeProviders(all_sites()) as sites:
        driver.control.install(sites["selectel"])
        settings = {
            "GPURADAR_DB_PATH": str(db_path),
            "GPURADAR_REFRESH_SECONDS": "10",
            "GPURADAR_OPS_PORT": str(free_port()),
        }
        bot = await start_bot(telegram, sites, settings, cwd=db_path.parent)
        await telegram.wait_for_call("getUpdates", timeout=60)
        started = time.monotonic()
        rss_start = rss_mib(bot.pid)
        stop = asyncio.Event()
        disorder = asyncio.create_task(chaos(sites, driver, stop, rng))
        deepest = 0
        while time.monotonic() - started < minutes * 60:
            deepest = max(deepest, outbox_stats(db_path)[0])
            await asyncio.sleep(1.0)
        stop.set()
        await disorder
        for name in sites.sites:
            sites.set_mode(name, Mode.NORMAL)
        drain_deadline = time.monotonic() + 120
        while outbox_stats(db_path)[0] and time.monotonic() < drain_deadline:
            deepest = max(deepest, outbox_stats(db_path)[0])
            await asyncio.sleep(1.0)
        rss_end = rss_mib(bot.pid)
        bot.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(bot.communicate(), 60)
        calls = telegram.calls_of("sendMessage")
    seen = appearances(db_path)
    delivered_by_chat = Counter[int]()
    for call in calls:
        if call.ok:
            delivered_by_chat[int(call.params["chat_id"])] += len(
                ALERT_LINE.findall(str(call.result.get("text", "")))
            )
    expected = len(seen) * users
    delivered = sum(delivered_by_chat.values())
    per_chat_expected = len(seen)
    duplicates = sum(max(0, n - per_chat_expected) for n in delivered_by_chat.values())
    lost = sum(
        max(0, per_chat_expected - delivered_by_chat.get(chat, 0))
        for chat in range(FIRST_CHAT, FIRST_CHAT + users)
    )
    false_alerts = sum(1 for moment, _ in seen if True not in driver.served_at(moment)) * users
    false_alerts += other_alerts(db_path)
    errors = [
        line
        for line in stderr.decode(errors="replace").splitlines()
        if " ERROR " in line or "Traceback" in line
    ]
    growth = (rss_end - rss_start) / rss_start if rss_start else 0.0
    _, queued = outbox_stats(db_path)
    print(f"soak: {minutes:g} min, {users} users, refresh every 10 s, seed {seed_value}")
    print(f"  H100 flips served            {len(driver.log)}")
    print(f"  appearances seen (good)      {len(seen)}")
    print(f"  alerts expected              {expected}")
    print(f"  alerts queued                {queued}")
    print(f"  alerts delivered             {delivered}")
    print(f"  lost                         {lost}")
    print(f"  duplicates                   {duplicates}")
    print(f"  false alerts                 {false_alerts}")
    print(f"  max outbox depth             {deepest}")
    print(f"  messages sent                {sum(1 for c in calls if c.ok)}")
    print(f"  unhandled errors             {len(errors)}")
    print(f"  RSS start / end              {rss_start:.1f} / {rss_end:.1f} MiB ({growth:+.1%})")
    ok = lost == 0 and duplicates == 0 and false_alerts == 0 and not errors and growth < 0.10
    print(
        f"  targets (nothing lost, no duplicates, no false alerts, RSS < +10%): "
        f"{'PASS' if ok else 'FAIL'}"
    )
    for line in errors[:5]:
        print(f"    error: {line}")
    return 0 if ok else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.exit(asyncio.run(soak(args.minutes, args.users, args.seed)))


if __name__ == "__main__":
    main()
