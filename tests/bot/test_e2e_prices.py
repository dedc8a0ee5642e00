"""/prices through the real bot: cheapest per GPU-hour first, freshness, failures, pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from monitor.offers import Offer, StockState
from monitor.scrape import NetworkError, ScrapeResult
from storage import Store
from tests.bot.conftest import CHAT, running_app
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram


async def seed(db_path: Path) -> None:
    store = await Store.open(db_path)
    fetched = datetime.now(UTC) - timedelta(minutes=5)
    offers = [
        make_offer("4090-a", 95.0, provider="selectel", location="ru-7a"),
        make_offer("4090x8", 670.97, StockState.UNKNOWN, provider="immers", gpu_count=8),
        make_offer("a100", 250.0, StockState.PREORDER, provider="selectel", gpu="A100 80GB SXM"),
        make_offer("t4-out", 30.0, StockState.OUT_OF_STOCK, provider="selectel", gpu="T4"),
    ] + [make_offer(f"h100-{i}", 300.0 + i, provider="selectel", gpu="H100 SXM") for i in range(8)]
    by_provider: dict[str, list[Offer]] = {}
    for offer in offers:
        by_provider.setdefault(offer.provider, []).append(offer)
    for provider, items in by_provider.items():
        await store_snapshot(store, ScrapeResult(provider, tuple(items), fetched))
    failed_at = datetime.now(UTC)
    await store.record_failure("immers", NetworkError("immers", "timeout"), failed_at, 20.0)
    await store.record_failure("hostkey", NetworkError("hostkey", "refused"), failed_at, 1.0)
    await store.close()


async def test_prices_lists_cheapest_per_gpu_hour_with_freshness(telegram: FakeTelegram, db_path):
    await seed(db_path)
    async with running_app(telegram, db_path):
        after = telegram.mark()
        telegram.push_message(CHAT, "/prices")
        call = await telegram.wait_for_call("sendMessage", after=after)
        first_buttons = [b.text for b in telegram.last_message(CHAT).buttons()]
        after = telegram.mark()
        telegram.press(CHAT, "▶️")
        second = await telegram.wait_for_call("editMessageText", after=after)
    assert call.ok, call.description
    text = call.result["text"]
    lines = text.splitlines()
    assert "Selectel: обновлено 5 минут назад" in text
    assert "⚠️ immers.cloud: не отвечает (NetworkError)" in text
    assert "⚠️ HOSTKEY: ещё не удалось загрузить (NetworkError)" in text
    offer_lines = [line for line in lines if " ₽/ч" in line]
    assert offer_lines[0].startswith("❌ T4 ×1 — 30,00 ₽/ч")
    assert offer_lines[1].startswith("❔ RTX 4090 ×8 — 670,97 ₽/ч")  # 83,87 ₽ per GPU-hour
    assert "83,87 ₽ за GPU·ч" in offer_lines[1]
    assert "в наличии: 2 шт." in offer_lines[2]
    assert "Показано 8 из 12." in text
    assert first_buttons == ["◀️", "1/2", "▶️"]
    assert second.ok
    assert "Показано 4 из 12." in second.result["text"]


async def test_prices_filters_by_family_and_rejects_unknown_gpus(telegram: FakeTelegram, db_path):
    await seed(db_path)
    async with running_app(telegram, db_path):
        after = telegram.mark()
        telegram.push_message(CHAT, "/prices h100")
        family = await telegram.wait_for_call("sendMessage", after=after)
        after = telegram.mark()
        telegram.push_message(CHAT, "/prices voodoo5")
        unknown = await telegram.wait_for_call("sendMessage", after=after)
    text = family.result["text"]
    assert text.startswith("💰 H100: цены и наличие")
    assert "RTX 4090" not in text
    assert "Не знаю видеокарту «voodoo5»" in unknown.result["text"]


async def test_empty_store_says_prices_are_loading(telegram: FakeTelegram, db_path):
    async with running_app(telegram, db_path):
        after = telegram.mark()
        telegram.push_message(CHAT, "/prices")
        call = await telegram.wait_for_call("sendMessage", after=after)
    assert "Цены ещё не загружены" in call.result["text"]


async def test_fit_answer_ends_with_cheapest_fitting_offers(telegram: FakeTelegram, db_path):
    await seed(db_path)
    async with running_app(telegram, db_path):
        after = telegram.mark()
        telegram.push_message(CHAT, "/fit 8b qlora ctx=2048")
        call = await telegram.wait_for_call("sendMessage", after=after)
    text = call.result["text"]
    assert "Лучшие варианты сейчас" in text
    cheapest = text.split("Лучшие варианты сейчас")[1].splitlines()[1]
    assert cheapest == "1. RTX 4090 ×1 · Selectel — 95,00 ₽/ч"
    assert "T4" not in text.split("Лучшие варианты сейчас")[1]  # out of stock
