"""The ops server: /healthz verdicts, /metrics after real traffic, and webhook mode."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime, timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest

import bot.ops.server
from bot.app import build_application
from bot.config import ConfigError, Settings, load_settings
from bot.console import run_console
from bot.fake_telegram import ApiRequest
from bot.ops.metrics import METRIC_NAMES, Metrics
from bot.ops.server import HealthCheck, OpsServer, SchedulerState
from bot.replica import ElectionFactory
from bot.runtime import Application
from monitor.scrape import LayoutError, NetworkError, ScrapeResult
from storage import Store
from storage.postgres import PgDatabase
from tests.bot.conftest import CHAT, TOKEN, make_settings, running_app
from tests.bot.test_e2e_alerts import alerts_sent, command, monitored_app, refresh
from tests.bot.test_main import run_bot
from tests.factories import make_offer, store_snapshot
from tests.fakes.providers import Mode
from tests.fakes.sites.selectel import H100Control
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually
from tests.postgres import require_postgres, temporary_database

SECRET = "webhook-Secret_123"
PUBLIC_URL = "https://bot.example.test"
T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)


async def get(port: int | None, path: str) -> tuple[int, str, str]:
    assert port is not None
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, response.headers["Content-Type"], await response.text()


async def get_json(port: int | None, path: str) -> tuple[int, Any]:
    assert port is not None
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.json()


# --- /healthz --------------------------------------------------------------------------------


async def test_healthz_ok_when_running_without_monitor(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path, replica_id="bot-a") as application:
        assert application.ops is not None
        status, body = await get_json(application.ops.port, "/healthz")
    assert status == 200
    assert body == {
        "status": "ok",
        "problems": [],
        "database": "ok",
        "outbox": "ok",
        "scheduler": "disabled",
        # Alone on its SQLite file, a replica leads from the start.
        "replica": {"id": "bot-a", "role": "leader"},
        "providers": {},
    }


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@asynccontextmanager
async def ops_server(
    store: Store,
    clock: Clock,
    intervals: dict[str, float],
    scheduler: SchedulerState = "running",
) -> AsyncIterator[OpsServer]:
    health = HealthCheck(store, lambda: scheduler, lambda: intervals, now=clock)
    server = OpsServer(health, Metrics(), store, host="127.0.0.1", port=0)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(db_path)
    try:
        yield opened
    finally:
        await opened.close()


async def test_healthz_names_the_part_that_fails_while_the_provider_answers(store: Store):
    offer = make_offer("a", 10.0, provider="selectel")
    cloud = make_offer("cloud:t4", 38.4, provider="selectel", location="ru-1a")
    await store_snapshot(
        store, ScrapeResult.from_parts("selectel", {"server": (offer,), "cloud": (cloud,)}, T0)
    )
    broken = LayoutError("selectel", "/prices/vpc: expected a list of prices")
    later = T0 + timedelta(seconds=30)
    await store_snapshot(
        store, ScrapeResult.from_parts("selectel", {"server": (offer,), "cloud": broken}, later)
    )
    clock = Clock(later)
    async with ops_server(store, clock, {"selectel": 60.0}) as server:
        status, body = await get_json(server.port, "/healthz")
    assert status == 200, body  # a part failing is not the bot being unhealthy
    selectel = body["providers"]["selectel"]
    assert (selectel["fresh"], selectel["consecutive_failures"]) == (True, 0)
    assert selectel["failing_parts"] == {
        "cloud": {
            "state": "failed",
            "error_class": "LayoutError",
            "consecutive_failures": 1,
            "suspect_runs": 0,
            "kept_offers": 1,
        }
    }


async def test_healthz_provider_freshness_and_503_once_every_provider_is_stale(store: Store):
    await store_snapshot(
        store, ScrapeResult("selectel", (make_offer("a", 10.0, provider="selectel"),), T0)
    )
    await store.record_failure("hostkey", NetworkError("hostkey", "refused"), T0, 0.5)
    clock = Clock(T0)
    async with ops_server(store, clock, {"selectel": 60.0, "hostkey": 60.0}) as server:
        # Within 3 intervals of selectel's success; hostkey never succeeded but is still
        # within its grace period after start-up.
        clock.at = T0 + timedelta(seconds=170)
        status, body = await get_json(server.port, "/healthz")
        assert status == 200, body
        assert body["providers"]["selectel"] == {
            "last_success": T0.isoformat(),
            "age_s": 170.0,
            "fresh": True,
            "consecutive_failures": 0,
            "failing_parts": {},
        }
        assert body["providers"]["hostkey"] == {
            "last_success": None,
            "age_s": None,
            "fresh": True,
            "consecutive_failures": 1,
            "failing_parts": {},
        }

        # One stale provider is not enough for 503 ...
        await store_snapshot(
            store, ScrapeResult("hostkey", (make_offer("b", 5.0, provider="hostkey"),), clock.at)
        )
        clock.at = T0 + timedelta(seconds=200)
        status, body = await get_json(server.port, "/healthz")
        assert status == 200, body
        assert body["providers"]["selectel"]["fresh"] is False
        assert body["providers"]["hostkey"]["fresh"] is True

        # ... every provider stale is.
        clock.at = T0 + timedelta(seconds=1000)
        status, body = await get_json(server.port, "/healthz")
        # The replica still answers updates: the proxy's check says so.
        ready_status, ready = await get_json(server.port, "/readyz")
    assert (ready_status, ready) == (200, {"status": "ready"})
    assert status == 503
    assert body["status"] == "unhealthy"
    assert body["problems"] == ["every provider is stale"]
    assert body["database"] == "ok"
    assert not any(p["fresh"] for p in body["providers"].values())


async def test_healthz_503_when_the_scheduler_is_stopped(store: Store):
    async with ops_server(store, Clock(T0), {}, scheduler="stopped") as server:
        status, body = await get_json(server.port, "/healthz")
    assert status == 503
    assert body["scheduler"] == "stopped"
    assert body["problems"] == ["scheduler not running"]


class Delivery:
    """What the sender shows /healthz."""

    store_error: str | None = None
    last_sent_at: float | None = None


async def test_healthz_503_while_the_outbox_is_stuck(store: Store):
    from monitor.alerts import Alert
    from tests.bot.test_e2e_delivery import the_event
    from tests.factories import enqueue

    await store.ensure_user(7, language="ru", timezone="UTC", now=T0)
    await enqueue(store, [Alert(7, 1, the_event())], T0)
    clock, delivery, monotonic = Clock(T0), Delivery(), [1000.0]
    health = HealthCheck(
        store,
        lambda: "disabled",
        dict,
        delivery=lambda: delivery,
        now=clock,
        monotonic=lambda: monotonic[0],
    )
    metrics = Metrics()
    server = OpsServer(health, metrics, store, host="127.0.0.1", port=0)
    await server.start()
    try:
        clock.at, monotonic[0] = T0 + timedelta(minutes=9), 1000.0 + 9 * 60
        assert (await get_json(server.port, "/healthz"))[0] == 200  # a long fan-out, maybe
        clock.at, monotonic[0] = T0 + timedelta(minutes=11), 1000.0 + 11 * 60
        delivery.last_sent_at = 1000.0 + 10 * 60  # but something went out a minute ago
        assert (await get_json(server.port, "/healthz"))[0] == 200
        monotonic[0] = 1000.0 + 21 * 60  # ten minutes without a message
        status, body = await get_json(server.port, "/healthz")
        _, _, page = await get(server.port, "/metrics")
    finally:
        await server.stop()
    assert status == 503
    assert body["problems"] == ["outbox stuck"]
    assert body["outbox"] == "stuck"
    assert 'gpuradar_health_problem{problem="outbox_stuck"} 1.0' in page.splitlines()


async def test_healthz_503_when_the_database_is_closed(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # A closed store's reads never answer: each probe below ends at its bound, the path of a
    # database that hangs. Four bounds of 2 s; a tenth of that says the same.
    monkeypatch.setattr(bot.ops.server, "DATABASE_TIMEOUT_S", 0.2)
    store = await Store.open(db_path)
    async with ops_server(store, Clock(T0), {"selectel": 60.0}) as server:
        await store.close()
        status, body = await get_json(server.port, "/healthz")
        ready_status, ready = await get_json(server.port, "/readyz")
        # /metrics still answers without the outbox depth.
        metrics_status, _, _ = await get(server.port, "/metrics")
    assert status == 503
    assert (ready_status, ready) == (503, {"status": "not ready"})
    assert body["database"] == "error"
    assert "database unreachable" in body["problems"]
    assert metrics_status == 200


async def test_healthz_503_while_postgresql_takes_no_writes():
    """A read-only PostgreSQL (a standby after a failover, default_transaction_read_only):
    reads work, so only the write probe can tell."""
    require_postgres()
    async with temporary_database(migrated=True) as url:
        admin = await asyncpg.connect(url)
        try:
            name = url.rsplit("/", 1)[1]
            await admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        finally:
            await admin.close()
        store = Store(await PgDatabase.open(url))  # migrated already: the template
        try:
            async with ops_server(store, Clock(T0), {}) as server:
                status, body = await get_json(server.port, "/healthz")
        finally:
            await store.close()
    assert status == 503
    assert body["database"] == "unwritable"
    assert body["problems"] == ["database unwritable"]


# --- /metrics --------------------------------------------------------------------------------


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample in the Prometheus text format (labels in any order)."""
    for line in text.splitlines():
        if line.startswith("#") or not line.startswith(name):
            continue
        series, _, value = line.rpartition(" ")
        metric, _, label_text = series.partition("{")
        if metric != name:
            continue
        found = dict(
            part.split("=", 1) for part in label_text.rstrip("}").split(",") if "=" in part
        )
        if {k: v.strip('"') for k, v in found.items()} == labels:
            return float(value)
    return None


async def test_metrics_after_a_refresh_an_alert_and_an_update(
    telegram: FakeTelegram, db_path: Path
):
    h100 = H100Control()
    async with monitored_app(telegram, db_path, h100) as (application, sites):
        assert "H100" in await command(telegram, "/watch h100")
        h100.count = 1
        await refresh(application)
        await eventually(lambda: len(alerts_sent(telegram)) == 1)
        sites.set_mode("selectel", Mode.ERROR_500)
        await refresh(application)
        assert application.ops is not None
        status, content_type, text = await get(application.ops.port, "/metrics")

    assert status == 200
    assert content_type.startswith("text/plain")
    for name in METRIC_NAMES:
        assert f"# HELP {name} " in text, name
    assert sample(text, "gpuradar_scrape_successes_total", provider="selectel") == 2.0
    assert (
        sample(text, "gpuradar_scrape_failures_total", provider="selectel", error="HttpStatusError")
        == 1.0
    )
    assert sample(text, "gpuradar_scrape_duration_seconds_count", provider="selectel") == 3.0
    assert (sample(text, "gpuradar_offers", provider="hostkey") or 0) > 0
    assert (sample(text, "gpuradar_events_total", kind="appeared") or 0) >= 1
    assert sample(text, "gpuradar_alerts_queued_total", provider="selectel") == 1.0
    assert sample(text, "gpuradar_messages_sent_total") == 1.0
    assert sample(text, "gpuradar_outbox_pending") == 0.0
    assert (sample(text, "gpuradar_update_duration_seconds_count", update_type="message") or 0) >= 1


def test_send_failures_are_counted_by_reason():
    metrics = Metrics()
    for outcome in ("sent", "flood_wait", "flood_wait", "blocked_403"):
        metrics.record_send(outcome)
    text = metrics.render().decode()
    assert sample(text, "gpuradar_messages_sent_total") == 1.0
    assert sample(text, "gpuradar_messages_failed_total", reason="flood_wait") == 2.0
    assert sample(text, "gpuradar_messages_failed_total", reason="blocked_403") == 1.0


def test_two_applications_have_separate_registries():
    first, second = Metrics(), Metrics()
    first.record_send("sent")
    assert sample(second.render().decode(), "gpuradar_messages_sent_total") == 0.0


# --- the port ------------------------------------------------------------------------------


@contextmanager
def taken_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


async def test_a_taken_port_is_a_config_error_when_serving_telegram(
    telegram: FakeTelegram, db_path: Path
):
    with taken_port() as port:
        application = await build_application(
            make_settings(telegram, db_path, ops_port=port), token=TOKEN, api_url=telegram.base_url
        )
        try:
            with pytest.raises(ConfigError, match=f"GPURADAR_OPS_PORT=127.0.0.1:{port}"):
                await application.run_polling(handle_signals=False)
        finally:
            await application.close()


async def test_console_mode_only_warns_when_the_port_is_taken(
    db_path: Path, caplog: pytest.LogCaptureFixture
):
    with taken_port() as port:
        settings = Settings.model_validate(
            {
                "db_path": db_path,
                "monitor": False,
                "ops_host": "127.0.0.1",
                "ops_port": port,
                "chart_warm_up": False,  # no chart here: no worker to start
            }
        )
        output = StringIO()
        with caplog.at_level(logging.WARNING, logger="gpuradar"):
            assert await run_console(settings, StringIO("/start\n"), output) == 0
    assert output.getvalue().strip()  # the bot answered
    assert "ops server not started" in caplog.text


# --- webhook mode ----------------------------------------------------------------------------


def accept_set_webhook(telegram: FakeTelegram) -> None:
    """The fake Bot API has no setWebhook; answer it like Telegram does."""

    async def set_webhook(request: ApiRequest) -> bool:
        return True

    telegram._handlers["setwebhook"] = ("setWebhook", set_webhook)


@asynccontextmanager
async def webhook_app(
    telegram: FakeTelegram,
    db_path: Path,
    *,
    election: ElectionFactory | None = None,
    throttle_interval: float = 0.0,
    **settings: object,
) -> AsyncIterator[Application]:
    accept_set_webhook(telegram)
    application = await build_application(
        make_settings(
            telegram,
            db_path,
            mode="webhook",
            webhook_url=PUBLIC_URL,
            webhook_secret=SECRET,
            **settings,
        ),
        token=TOKEN,
        api_url=telegram.base_url,
        throttle_interval=throttle_interval,
        election=election,
    )
    started_at = telegram.mark()
    serving = asyncio.create_task(application.run_webhook(handle_signals=False))
    try:
        await telegram.wait_for_call("setWebhook", after=started_at)
        yield application
    finally:
        await application.stop()
        await asyncio.wait_for(serving, 10)
        await application.close()


def start_update(update_id: int) -> dict[str, Any]:
    user = {"id": CHAT, "is_bot": False, "first_name": "Test", "language_code": "en"}
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "from": user,
            "chat": {"id": CHAT, "type": "private", "first_name": "Test"},
            "date": int(time.time()),
            "text": "/start",
            "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
        },
    }


async def post_update(
    application: Application, update: dict[str, Any], secret: str | None
) -> tuple[int, str]:
    assert application.ops is not None
    url = f"http://127.0.0.1:{application.ops.port}/telegram/webhook"
    headers = {} if secret is None else {"X-Telegram-Bot-Api-Secret-Token": secret}
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json=update, headers=headers) as response,
    ):
        return response.status, await response.text()


async def test_webhook_checks_the_secret_and_feeds_the_dispatcher(
    telegram: FakeTelegram, db_path: Path
):
    async with webhook_app(telegram, db_path) as application:
        (registered,) = telegram.calls_of("setWebhook")
        assert registered.params["url"] == f"{PUBLIC_URL}/telegram/webhook"
        assert registered.params["secret_token"] == SECRET
        assert "message" in registered.params["allowed_updates"]
        assert not telegram.calls_of("getUpdates")

        assert (await post_update(application, start_update(1), "wrong"))[0] == 401
        assert (await post_update(application, start_update(2), None))[0] == 401
        assert not telegram.calls_of("sendMessage")

        after = telegram.mark()
        status, _ = await post_update(application, start_update(3), SECRET)
        assert status == 200
        call = await telegram.wait_for_call("sendMessage", after=after)
        assert call.ok
        assert call.params["chat_id"] == str(CHAT)
        assert await application.store.get_user(CHAT) is not None

        # /healthz and /metrics share the port with the webhook.
        port = application.ops.port if application.ops is not None else None
        status, body = await get_json(port, "/healthz")
        assert status == 200, body
        _, _, text = await get(port, "/metrics")
        assert sample(text, "gpuradar_update_duration_seconds_count", update_type="message") == 1
    # Stopping leaves the webhook registered: Telegram holds the updates until we are back.
    assert not telegram.calls_of("deleteWebhook")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("GPURADAR_") or name == "BOT_TOKEN":
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no .env from the checkout


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"webhook_url": PUBLIC_URL}, "GPURADAR_WEBHOOK_SECRET: required when"),
        ({"webhook_secret": SECRET}, "GPURADAR_WEBHOOK_URL: required when"),
        ({"bot_token": None}, "GPURADAR_BOT_TOKEN: required when"),
        (
            {"webhook_url": "http://bot.example.test", "webhook_secret": SECRET},
            "GPURADAR_WEBHOOK_URL: 'http://bot.example.test' is not an https URL",
        ),
    ],
)
def test_webhook_mode_needs_token_https_url_and_secret(overrides: dict[str, object], fragment: str):
    values: dict[str, object] = {"bot_token": TOKEN, "mode": "webhook", **overrides}
    with pytest.raises(ConfigError) as raised:
        load_settings(**values)
    assert fragment in str(raised.value)


@pytest.mark.usefixtures("clean_env")
def test_a_malformed_secret_is_rejected_without_echoing_it():
    with pytest.raises(ConfigError) as raised:
        load_settings(webhook_secret="has spaces!")
    assert "GPURADAR_WEBHOOK_SECRET" in str(raised.value)
    assert "has spaces" not in str(raised.value)


def test_webhook_mode_without_a_secret_exits_2_with_one_line(tmp_path: Path):
    result = run_bot(
        tmp_path,
        {
            "GPURADAR_BOT_TOKEN": TOKEN,
            "GPURADAR_MODE": "webhook",
            "GPURADAR_WEBHOOK_URL": PUBLIC_URL,
        },
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "gpuradar: invalid setting GPURADAR_WEBHOOK_SECRET: required when GPURADAR_MODE=webhook"
    ]
