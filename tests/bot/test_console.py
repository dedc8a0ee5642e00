"""Console mode in-process: pictures are saved to files, and any message's buttons can be
pressed (`#<message>.<button>`), through the console's own fake Bot API."""

from __future__ import annotations

import asyncio
import io
import re
from datetime import UTC, datetime
from pathlib import Path

from bot.config import Settings
from bot.console import CONSOLE_CHAT_ID, Console
from monitor.alerts import Alert
from monitor.events import Event, EventKind
from monitor.offers import StockState
from monitor.subscriptions import WatchFilter
from tests.bot.test_e2e_watch import seed_history
from tests.factories import enqueue, make_offer
from tests.polling import eventually


def console_settings(db_path: Path, *, warm_charts: bool = False) -> Settings:
    """Console settings; the chart workers warm only where a test draws a chart (a warm-up
    is a process importing matplotlib, seconds of CPU a test that draws nothing would pay)."""
    return Settings.model_validate(
        {
            "mode": "console",
            "db_path": db_path,
            "monitor": False,
            "ops_host": "127.0.0.1",
            "ops_port": 0,
            "chart_warm_up": warm_charts,
            # Telegram's gap between two messages to one chat is 1 s; here what is said is
            # checked, not its pace (tests/bot/test_limiter.py proves the gap).
            "send_chat_interval_s": 0.05,
        }
    )


async def test_history_picture_is_saved_and_its_path_printed(tmp_path: Path):
    db_path = tmp_path / "data" / "bot.sqlite3"
    await seed_history(db_path)
    output = io.StringIO()
    async with Console(console_settings(db_path, warm_charts=True), output) as console:
        await console.say("/history h100")
        # The console warmed the chart workers at start-up, as the served bot does (a chart
        # alone starts the workers without a warm-up).
        assert console.application.charts is not None
        assert console.application.charts.warming
    text = output.getvalue()
    assert "[picture]" not in text
    match = re.search(r"^#1 🖼 (\S+\.png)$", text, re.M)
    assert match, text
    saved = Path(match.group(1))
    assert saved.parent == tmp_path / "data" / "console"
    assert (await asyncio.to_thread(saved.read_bytes)).startswith(b"\x89PNG")
    assert "Минимум в наличии: 420 ₽ (Selectel)" in text  # the caption under it


async def test_an_alerts_buttons_stay_pressable_after_later_replies_with_buttons(tmp_path: Path):
    output = io.StringIO()
    async with Console(console_settings(tmp_path / "bot.sqlite3"), output) as console:
        await console.say("/start")  # creates the console user
        store = console.application.store
        sub = await store.add_subscription(CONSOLE_CHAT_ID, WatchFilter(family="H100"))
        event = Event(
            EventKind.APPEARED,
            make_offer("h100x8", 5486.0, gpu="H100 SXM", gpu_count=8, provider="selectel"),
            datetime.now(UTC),
            old_stock=StockState.OUT_OF_STOCK,
        )
        await enqueue(store, [Alert(CONSOLE_CHAT_ID, sub.id, event)], event.at)
        await eventually(lambda: "🔔 H100" in output.getvalue())
        alert = re.search(r"^#(\d+) 🔔 H100", output.getvalue(), re.M)
        assert alert
        await console.say("/settings")  # a later reply, with buttons of its own
        await console.say(f"#{alert.group(1)}.3")  # the alert's «🗑 H100: отписаться»
        await console.say("#99.1")
        left = await store.subscriptions_of(CONSOLE_CHAT_ID)
    text = output.getvalue()
    assert "  [2] 🔕 H100: 24 ч   [3] 🗑 H100: отписаться" in text
    assert "» 🗑 Подписка «H100» удалена. Остальные — /subs." in text
    assert "(no button 1 on message #99)" in text
    assert left == []
