"""A bad answer is an error, never news: one part of Selectel's scrape goes wrong (redirected to
another host, empty, more than half of it gone) through the real scheduler job, the fake sites
and the fake Telegram. No false alert while it is wrong or when it comes back; then exactly one
alert for a real change."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from bot.runtime import Application
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_alerts import alerts_sent, all_delivered, all_refreshed, command, refresh
from tests.fakes.providers import (
    FakeProviders,
    FakeSite,
    Mode,
    SiteRequest,
    SiteResponse,
    all_sites,
)
from tests.fakes.sites.selectel import H100Control
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually
from tests.store_helpers import current_offers, outbox_rows

SERVERS = "/servers/v2/pub/service/server"
# One watch per GPU the server part sells in stock: a false "appeared" for any of them shows.
WATCHES = ("/watch h100", "/watch t4", "/watch a4000", "/watch a5000", "/watch a2", "/watch 2080ti")


@asynccontextmanager
async def selectel_watched(
    telegram: FakeTelegram, db_path: Path, h100: H100Control
) -> AsyncIterator[tuple[Application, FakeProviders, FakeSite]]:
    elsewhere = FakeSite(
        "elsewhere", {("GET", SERVERS): lambda r, m: SiteResponse(b'{"result": []}')}
    )
    async with elsewhere, FakeProviders(all_sites()) as sites:
        h100.install(sites["selectel"])
        sites["selectel"].away_url = elsewhere.base_url
        async with running_app(
            telegram,
            db_path,
            monitor=True,
            admin_ids=[CHAT],
            **sites.urls(),
        ) as application:
            await eventually(lambda: all_refreshed(application))
            for watch in WATCHES:
                await command(telegram, watch)
            yield application, sites, elsewhere


def keep_only(count: int, inner: Callable[[SiteRequest, Mode], SiteResponse]):
    """The server list with all but `count` of its configs gone."""

    def handler(request: SiteRequest, mode: Mode) -> SiteResponse:
        document = json.loads(inner(request, mode).body)
        document["result"] = document["result"][:count]
        return SiteResponse(json.dumps(document).encode())

    return handler


async def exactly_one_alert_for_a_real_change(
    application: Application, telegram: FakeTelegram, h100: H100Control
) -> None:
    """Nothing was queued or sent so far; the H100 server comes into stock: one alert."""
    assert await outbox_rows(application.store, CHAT) == []  # queued in the refresh itself
    assert alerts_sent(telegram) == []
    h100.count = 1
    await refresh(application)
    await eventually(lambda: len(alerts_sent(telegram)) == 1)
    await eventually(lambda: all_delivered(application))
    rows = await outbox_rows(application.store, CHAT)
    assert [(row.event.kind.value, row.event.offer.sku) for row in rows] == [
        ("appeared", "GL60-8-H100")
    ]
    assert len(alerts_sent(telegram)) == 1


async def server_offers(application: Application) -> int:
    offers = await current_offers(application.store)
    return sum(1 for o in offers if o.provider == "selectel" and not o.sku.startswith("cloud:"))


async def test_a_server_list_redirected_to_another_host(telegram: FakeTelegram, db_path: Path):
    h100 = H100Control()
    async with selectel_watched(telegram, db_path, h100) as (application, sites, elsewhere):
        before = await server_offers(application)
        sites["selectel"].path_modes[SERVERS] = Mode.REDIRECT_AWAY
        for _ in range(3):
            await refresh(application)
        assert elsewhere.requests == []  # never asked: the redirect is refused
        assert await server_offers(application) == before
        text = await command(telegram, "/prices")
        assert "⚠️ Selectel: обновлено" in text
        assert "кроме: server (RedirectError)" in text
        admin = await command(telegram, "/admin")
        assert "часть server: ошибка RedirectError (3 подряд), показываю 17 предложений" in admin
        # Back: nothing to say, the servers were there all along.
        sites["selectel"].path_modes.clear()
        await refresh(application)
        assert "кроме" not in await command(telegram, "/prices")
        await exactly_one_alert_for_a_real_change(application, telegram, h100)


async def test_an_empty_server_list(telegram: FakeTelegram, db_path: Path):
    h100 = H100Control()
    async with selectel_watched(telegram, db_path, h100) as (application, sites, _):
        before = await server_offers(application)
        sites["selectel"].path_modes[SERVERS] = Mode.EMPTY
        for _ in range(3):
            await refresh(application)
        assert await server_offers(application) == before
        (health,) = [
            h for h in await application.store.provider_health() if h.provider == "selectel"
        ]
        assert not health.failing
        assert [(p.part, p.state.value) for p in health.troubled_parts] == [("server", "empty")]
        assert "кроме: server (пустой ответ)" in await command(telegram, "/prices")
        sites["selectel"].path_modes.clear()
        await refresh(application)  # back: nothing to say
        await exactly_one_alert_for_a_real_change(application, telegram, h100)


async def test_a_server_list_that_lost_more_than_half(telegram: FakeTelegram, db_path: Path):
    h100 = H100Control()
    async with selectel_watched(telegram, db_path, h100) as (application, sites, _):
        before = await server_offers(application)
        selectel = sites["selectel"]
        selectel.routes[("GET", SERVERS)] = keep_only(3, h100)
        for _ in range(2):  # a third in a row would be believed
            await refresh(application)
        assert await server_offers(application) == before
        admin = await command(telegram, "/admin")
        assert "часть server: резкий спад, увиден 2 из 3 раз" in admin
        assert "кроме: server (резкий спад, жду подтверждения)" in await command(
            telegram, "/prices"
        )
        h100.install(selectel)
        await refresh(application)  # back: nothing to say
        await exactly_one_alert_for_a_real_change(application, telegram, h100)


@pytest.mark.parametrize("part", ["/prices/vpc", SERVERS])
async def test_one_part_failing_keeps_the_provider_up(
    telegram: FakeTelegram, db_path: Path, part: str, caplog: pytest.LogCaptureFixture
):
    """When the cloud list fails the dedicated offers still arrive, and the other way round.
    The failure is logged once."""
    caplog.set_level(logging.WARNING)
    h100 = H100Control()
    async with selectel_watched(telegram, db_path, h100) as (application, sites, _):
        sites["selectel"].path_modes[part] = Mode.ERROR_500
        h100.count = 1  # a real change in the server part, during the cloud part's failure
        caplog.clear()
        await refresh(application)
        (health,) = [
            h for h in await application.store.provider_health() if h.provider == "selectel"
        ]
        rows = await outbox_rows(application.store, CHAT)
    assert not health.failing
    failed = "cloud" if part == "/prices/vpc" else "server"
    logged = [r.getMessage() for r in caplog.records if f"part {failed!r}" in r.getMessage()]
    assert len(logged) == 1, logged
    assert "keeping its" in logged[0]
    assert "HttpStatusError" in logged[0]
    assert [(p.part, p.error_class) for p in health.troubled_parts] == [(failed, "HttpStatusError")]
    # The server part's news goes through only when the server part itself answered.
    assert [row.event.offer.sku for row in rows] == (["GL60-8-H100"] if failed == "cloud" else [])
