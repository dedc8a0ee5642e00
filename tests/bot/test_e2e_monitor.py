"""The real scheduler job against the fake provider sites, with the bot answering /prices."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.runtime import Application
from bot.scheduler import job_id
from storage import Store
from tests.bot.conftest import CHAT, monitored_app
from tests.fakes.providers import Mode
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually
from tests.store_helpers import current_offers

PROVIDERS = {"selectel", "hostkey", "immers"}


async def health_by_provider(store: Store) -> dict[str, tuple[int, str | None]]:
    return {
        h.provider: (h.consecutive_failures, h.last_error_class)
        for h in await store.provider_health()
    }


def run_now(application: Application, provider: str) -> None:
    assert application.scheduler is not None
    application.scheduler.modify_job(job_id(provider), next_run_time=datetime.now(UTC))


async def test_scheduled_refresh_stores_snapshots_and_survives_failures(
    telegram: FakeTelegram, db_path: Path
):
    async with monitored_app(telegram, db_path) as (application, sites):
        store = application.store

        async def all_refreshed() -> bool:
            health = await health_by_provider(store)
            return set(health) == PROVIDERS and all(f == 0 for f, _ in health.values())

        await eventually(all_refreshed)
        offers = await current_offers(store)
        assert {offer.provider for offer in offers} == PROVIDERS
        before = {offer.key for offer in offers if offer.provider == "selectel"}

        sites.set_mode("selectel", Mode.ERROR_500)
        run_now(application, "selectel")

        async def selectel_failed() -> bool:
            return (await health_by_provider(store))["selectel"][0] >= 1

        await eventually(selectel_failed)
        health = await health_by_provider(store)
        assert health["selectel"][1] == "HttpStatusError"
        kept = {o.key for o in await current_offers(store) if o.provider == "selectel"}
        assert kept == before  # the failed run left the last good snapshot alone

        after = telegram.mark()
        telegram.push_message(CHAT, "/prices")
        call = await telegram.wait_for_call("sendMessage", after=after)
    text = call.result["text"]
    assert "⚠️ Selectel: не отвечает (HttpStatusError)" in text
    assert "HOSTKEY: обновлено" in text
    assert "immers.cloud: обновлено" in text
