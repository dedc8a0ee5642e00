"""Freshness that tells the truth, end to end: the real bot scrapes the fake provider sites,
then Selectel's cloud prices start answering 500. Within one refresh the cloud offers are
marked stale in /prices, inline mode and /api/v1/offers (JSON and CSV), dated when their
part last answered, while the server offers stay fresh; past GPURADAR_STALE_AFTER_S they no longer
count as rentable, and the answers say so."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import aiohttp

from bot.runtime import Application
from monitor.freshness import DEFAULT_STALE_AFTER_S
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_alerts import all_refreshed, command, refresh
from tests.bot.test_e2e_inline import ask_inline, sent_text
from tests.fakes.providers import FakeProviders, Mode, all_sites
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually

CLOUD = "/prices/vpc"  # the path of Selectel's cloud price list (the "cloud" part)


@asynccontextmanager
async def cloud_failing(
    telegram: FakeTelegram, db_path: Path, stale_after_s: int = DEFAULT_STALE_AFTER_S
) -> AsyncIterator[Application]:
    """The bot after its first good scrape of every site, and one more refresh of Selectel
    in which the cloud prices answered 500."""
    async with (
        FakeProviders(all_sites()) as sites,
        running_app(
            telegram, db_path, monitor=True, stale_after_s=stale_after_s, **sites.urls()
        ) as application,
    ):
        await eventually(lambda: all_refreshed(application))
        # Times are stored to the second: the failing refresh runs in a later one than the
        # first scrape, so the two can be told apart.
        first = max(h.last_attempt_at for h in await application.store.provider_health())
        await eventually(lambda: datetime.now(UTC).replace(microsecond=0) > first)
        sites["selectel"].path_modes[CLOUD] = Mode.ERROR_500
        await refresh(application)
        yield application


async def offer_rows(application: Application, query: str) -> tuple[list[dict[str, Any]], str]:
    assert application.ops is not None
    base = f"http://127.0.0.1:{application.ops.port}/api/v1"
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{base}/offers{query}") as response:
            assert response.status == 200
            rows = (await response.json())["offers"]
        async with session.get(f"{base}/offers.csv{query}") as response:
            table = await response.text()
    return rows, table


def is_cloud(row: dict[str, Any]) -> bool:
    return str(row["sku"]).startswith("cloud:")


async def test_a_failing_parts_offers_are_marked_stale_within_one_refresh(
    telegram: FakeTelegram, db_path: Path
):
    async with cloud_failing(telegram, db_path) as application:
        rows, table = await offer_rows(application, "?provider=selectel")
        hourly = await command(telegram, "/prices provider=selectel hourly")
        monthly = await command(telegram, "/prices provider=selectel monthly")
        user = await application.store.get_user(CHAT)
        inline, _ = await ask_inline(telegram, "provider=selectel hourly", user=CHAT)
    cloud = [row for row in rows if is_cloud(row)]
    servers = [row for row in rows if not is_cloud(row)]
    assert cloud
    assert servers
    # The API: each cloud row stale, with its part's error and its part's last good scrape.
    assert {(r["stale"], r["stale_reason"], r["error_class"]) for r in cloud} == {
        (True, "failed", "HttpStatusError")
    }
    assert {(r["stale"], r["stale_reason"], r["error_class"]) for r in servers} == {
        (False, None, None)
    }
    cloud_seen = {datetime.fromisoformat(r["observed_at"]) for r in cloud}
    server_seen = {datetime.fromisoformat(r["observed_at"]) for r in servers}
    assert len(cloud_seen) == len(server_seen) == 1
    assert min(cloud_seen) < min(server_seen)  # the first scrape's time, not the failed one's
    assert all(r["rentable"] for r in cloud)  # within the hour it still counts
    # The CSV says the same.
    in_csv = {row["sku"]: row["stale"] for row in csv.DictReader(io.StringIO(table))}
    assert in_csv == {r["sku"]: "true" if r["stale"] else "false" for r in rows}
    # The chat: every cloud card says when its data is from, on the reader's clock.
    assert user is not None
    (seen,) = cloud_seen
    when = seen.astimezone(ZoneInfo(user.timezone)).strftime("%H:%M")
    cards = [line for line in hourly.splitlines() if line.startswith("    ")]
    assert cards  # Selectel's hourly offers are its cloud's
    assert all(f"⚠️ данные от {when}, источник не отвечает" in card for card in cards)
    assert "⚠️ данные от" not in monthly  # the dedicated servers answered
    # Inline mode: each result, in the list and as sent.
    assert inline
    mark = f"⚠️ данные от {when}, источник не отвечает"
    assert all(mark in r["description"] and mark in sent_text(r) for r in inline)


async def test_past_stale_after_a_failing_parts_offers_stop_counting(
    telegram: FakeTelegram, db_path: Path
):
    # 0: a stale offer never counts, so one failed refresh is enough to show it.
    async with cloud_failing(telegram, db_path, stale_after_s=0) as application:
        rows, _ = await offer_rows(application, "?provider=selectel")
        counted, _ = await offer_rows(application, "?provider=selectel&in_stock=true")
        hourly = await command(telegram, "/prices provider=selectel hourly")
    cloud = [row for row in rows if is_cloud(row)]
    assert cloud
    assert not any(r["rentable"] for r in cloud)
    assert all(r["rentable"] for r in rows if not is_cloud(r) and r["stock"] == "in_stock")
    assert not any(is_cloud(r) for r in counted)
    assert "источник не отвечает — в наличии и подборах не учитываю" in hourly
