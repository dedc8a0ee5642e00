"""The two defects of three card rules, through the real handlers on the fixture market: the
cheapest A100 that /prices lists is in «где дешевле a100?», and /history of the A100s draws
every A100 offer whose history is stored, whatever its provider calls the card."""

from __future__ import annotations

from pathlib import Path

from storage import Store
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_fit import reply_to
from tests.factories import store_snapshot
from tests.fakes.providers import scrape_fixtures
from tests.fakes.telegram import FakeTelegram
from tests.polling import COLD_CHART_S


async def seed_fixture_market(db_path: Path) -> None:
    store = await Store.open(db_path)
    for result in await scrape_fixtures():
        await store_snapshot(store, result)
    await store.close()


async def test_the_cheapest_a100_and_the_a100_history_are_every_a100(
    telegram: FakeTelegram, db_path: Path
):
    await seed_fixture_market(db_path)
    async with running_app(telegram, db_path):
        t4_prices = await reply_to(telegram, "/prices t4")
        t4_cheapest = await reply_to(telegram, "где дешевле t4?")
        prices = await reply_to(telegram, "/prices a100 hourly")
        cheapest = await reply_to(telegram, "где дешевле a100?")
        after = telegram.mark()
        telegram.push_message(CHAT, "/history a100 40gb")
        photo = await telegram.wait_for_call("sendPhoto", after=after, timeout=COLD_CHART_S)
    # One money format: the 16 ₽ T4 is «16 ₽/ч» in both answers, never «16,00».
    assert "16 ₽/ч" in t4_prices
    assert "16 ₽/ч" in t4_cheapest
    assert "16,00" not in t4_cheapest
    # Selectel's cloud A100 40GB («compute_pci_gpu_a100», a name no catalogue row is): listed
    # by /prices, and now in the answer too, as the cheapest A100 by the hour.
    assert "198" in prices
    hourly = [line for line in cheapest.splitlines() if "₽/ч" in line]
    assert "198" in hourly[0], cheapest
    assert "Selectel" in hourly[0], cheapest
    # Eight A100 offers have 40 GB or more (the ninth, Selectel's «A100 SXM», states no
    # memory): the chart draws them all, where the catalogue's names alone gave two.
    assert photo.ok, photo.description
    caption = str(photo.params["caption"])
    assert caption.startswith("A100 ≥40GB"), caption
    assert "На графике" not in caption or "из 8" in caption, caption
