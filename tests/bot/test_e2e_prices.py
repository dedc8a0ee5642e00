"""/prices through the real bot: cheapest per GPU-hour first, freshness, failures, pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from monitor.offers import Offer, StockState
from monitor.scrape import NetworkError, ScrapeResult
from storage import Store
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_watch import reply
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram


async def seed(db_path: Path) -> None:
    store = await Store.open(db_path)
    fetched = datetime.now(UTC) - timedelta(minutes=5)
    offers = [
        make_offer("4090-a", 95.0, provider="selectel", location="ru-7a"),
        make_offer("4090x8", 670.97, StockState.UNKNOWN, provider="immers", gpu_count=8),
        make_offer(
            "a100", 250.0, StockState.PREORDER, provider="selectel", gpu="A100 80GB SXM", vram_gb=80
        ),
        make_offer("t4-out", 30.0, StockState.OUT_OF_STOCK, provider="selectel", gpu="T4"),
        make_offer("1080ti", 10.4, provider="selectel", gpu="GTX 1080 Ti", vram_gb=11),
        make_offer(
            "h100x8",
            5486.0,
            provider="selectel",
            gpu="H100 SXM",
            gpu_count=8,
            vram_gb=80,
            monthly=True,
            vcpu=112,
            ram_gb=2048,
        ),
    ] + [
        make_offer(f"h100-{i}", 300.0 + i, provider="selectel", gpu="H100 SXM", vram_gb=80)
        for i in range(7)
    ]
    by_provider: dict[str, list[Offer]] = {}
    for offer in offers:
        by_provider.setdefault(offer.provider, []).append(offer)
    for provider, items in by_provider.items():
        await store_snapshot(store, ScrapeResult(provider, tuple(items), fetched))
    failed_at = datetime.now(UTC)
    await store.record_failure("immers", NetworkError("immers", "timeout"), failed_at, 20.0)
    await store.record_failure("hostkey", NetworkError("hostkey", "refused"), failed_at, 1.0)
    await store.close()


async def test_prices_table_per_gpu_training_grade_first_with_pages(
    telegram: FakeTelegram, db_path
):
    await seed(db_path)
    async with running_app(telegram, db_path):
        text = await reply(telegram, "/prices")
        first_buttons = [b.text for b in telegram.last_message(CHAT).buttons()]
        after = telegram.mark()
        telegram.press(CHAT, "▶️")
        second = await telegram.wait_for_call("editMessageText", after=after)
    lines = text.splitlines()
    # Grouped per GPU, the best card for training first, never the cheapest junk.
    headers = [line for line in lines if " ГБ" in line and "×" not in line and "·" in line]
    assert headers[0] == "H100 SXM · 80 ГБ"
    assert "GTX 1080 Ti" not in text  # page 1 of 2: the old card is at the very end
    # Inside a group: cheapest per GPU-hour first; monthly-only billing said, both prices.
    cards = lines[lines.index(headers[0]) + 1 :]
    assert cards[0].startswith("✅ 1× 300 ₽/ч · 216\u202f000 ₽/мес · почасово")
    monthly = next(line for line in lines if line.startswith("✅ 8×"))
    assert "3\u202f949\u202f920 ₽/мес · ≈5\u202f486 ₽/ч · только помесячно" in monthly
    assert "685,75 ₽ за GPU·ч" in monthly
    details = lines[lines.index(monthly) + 1]
    assert "Selectel, MSK-1 · в наличии: 2 шт. · 112 vCPU · 2\u202f048 ГБ RAM · NVLink" in details
    assert details.endswith("5 мин назад")  # freshness of the provider's data
    # Provider health under the table; a failing one named.
    assert "Selectel: обновлено 5 минут назад" in text
    assert "⚠️ immers.cloud: не отвечает (NetworkError)" in text
    assert "⚠️ HOSTKEY: ещё не удалось загрузить (NetworkError)" in text
    assert "Стр. 1 из 2 · показано 8 из 13 предложений" in text
    assert first_buttons == ["◀️", "1/2", "▶️"]
    assert second.ok
    page2 = second.result["text"]
    assert "Стр. 2 из 2 · показано 5 из 13 предложений" in page2
    assert page2.index("RTX 4090") < page2.index("T4") < page2.index("GTX 1080 Ti")


async def test_prices_filters_and_their_pages(telegram: FakeTelegram, db_path):
    await seed(db_path)
    async with running_app(telegram, db_path):
        family = await reply(telegram, "/prices h100")
        vram = await reply(telegram, "/prices 80gb")
        hourly = await reply(telegram, "/prices h100 hourly")
        monthly = await reply(telegram, "/prices h100 помесячно")
        capped = await reply(telegram, "/prices max=100")
        immers = await reply(telegram, "/prices provider=immers")
        unknown = await reply(telegram, "/prices voodoo5")
        bad = await reply(telegram, "/prices h100 colour=red")
        # A filtered list with two pages keeps its filter on the next page.
        await reply(telegram, "/prices 80gb")
        after = telegram.mark()
        telegram.press(CHAT, "▶️")
        next_page = await telegram.wait_for_call("editMessageText", after=after)
    assert family.startswith("💰 H100: цены и наличие")
    assert "RTX 4090" not in family
    assert "H100" in vram
    assert "RTX 4090" not in vram
    assert "T4" not in vram
    assert "только помесячно" not in hourly
    assert "почасово" in hourly
    assert "только помесячно" in monthly
    assert "почасово" not in monthly
    assert "Фильтр: H100, помесячно" in monthly
    # max= is per GPU-hour: the 8× RTX 4090 at 670,97 ₽/h is 83,87 ₽ per GPU.
    assert "RTX 4090" in capped
    assert "H100" not in capped
    assert "83,87 ₽ за GPU·ч" in capped
    assert "immers.cloud" in immers
    assert "Selectel," not in immers
    assert "Не знаю видеокарту «voodoo5»" in unknown
    assert "colour" in bad
    text = next_page.result["text"]
    assert "Фильтр: от 80 ГБ/GPU" in text
    assert "Стр. 2 из 2" in text
    assert "A100 80GB SXM · 80 ГБ" in text  # the 80 GB card after the eight H100 offers
    assert "RTX 4090" not in text
    assert "T4" not in text


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
    assert cheapest == "1. RTX 4090 ×1 · Selectel — 95 ₽/ч"
    assert "T4" not in text.split("Лучшие варианты сейчас")[1]  # out of stock
