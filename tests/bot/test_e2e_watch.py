"""/watch by text and by buttons, /subs buttons, /stock, /history and the /fit watch button."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from monitor.offers import StockState
from monitor.scrape import ScrapeResult
from storage import Store
from tests.bot.conftest import CHAT, running_app
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram


async def reply(telegram: FakeTelegram, text: str) -> str:
    after = telegram.mark()
    telegram.push_message(CHAT, text)
    call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.ok, call.description
    return str(call.result["text"])


async def press(telegram: FakeTelegram, label: str) -> str:
    after = telegram.mark()
    telegram.press(CHAT, label)
    call = await telegram.wait_for_call("editMessageText", after=after)
    assert call.ok, call.description
    return str(call.result["text"])


async def test_watch_by_text_errors_and_limit(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path) as application:
        created = await reply(telegram, "/watch a100 80gb max=250 provider=selectel")
        unknown = await reply(telegram, "/watch voodoo5")
        bad_key = await reply(telegram, "/watch h100 colour=red")
        for _ in range(19):
            await reply(telegram, "/watch h100")
        over = await reply(telegram, "/watch h200")
        subs = await application.store.subscriptions_of(CHAT)
    assert created.startswith("✅ Подписка: A100")
    assert "250" in created
    assert "voodoo5" in unknown
    assert "colour" in bad_key
    assert "Не больше 20 подписок" in over
    assert len(subs) == 20


async def test_watch_buttons_then_subs_pause_edit_delete(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path) as application:
        assert (await reply(telegram, "/watch")).startswith("🔔 За какой видеокартой следить?")
        assert (await press(telegram, "H100")).startswith("H100: до какой цены")
        assert (await press(telegram, "≤ 300 ₽")).startswith("✅ Подписка: H100")

        listing = await reply(telegram, "/subs")
        assert listing.startswith("🔔 Мои подписки (1 из 20)")
        paused = await press(telegram, "⏸ 1")
        assert "на паузе" in paused
        assert (await application.store.subscriptions_of(CHAT))[0].paused
        assert (await press(telegram, "✏️ 1")).startswith("До какой цены")
        await press(telegram, "≤ 150 ₽")
        (sub,) = await application.store.subscriptions_of(CHAT)
        assert sub.filter.max_rub_per_gpu_hour == 150
        emptied = await press(telegram, "🗑 1")
    assert emptied.startswith("Подписок пока нет")


async def test_forged_subs_button_for_someone_elses_subscription(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        await reply(telegram, "/watch h100")
        await reply(telegram, "/subs")
        menu = telegram.last_message(CHAT)
        after = telegram.mark()
        telegram.push_callback(CHAT, menu.message_id, "u:delete:99999:")
        answer = await telegram.wait_for_call("answerCallbackQuery", after=after)
    assert answer.params["show_alert"] == "true"


async def seed_history(db_path: Path) -> None:
    store = await Store.open(db_path)
    start = datetime.now(UTC) - timedelta(days=10)
    for day, (price, stock) in enumerate(
        [
            (450.0, StockState.OUT_OF_STOCK),
            (420.0, StockState.IN_STOCK),
            (480.0, StockState.IN_STOCK),
        ]
    ):
        offer = make_offer("h100-cloud", price, stock, provider="selectel", gpu="H100 SXM")
        result = ScrapeResult("selectel", (offer,), start + timedelta(days=day * 3))
        await store_snapshot(store, result)
    await store.close()


async def test_history_sends_a_chart_with_the_30_day_low(telegram: FakeTelegram, db_path: Path):
    await seed_history(db_path)
    async with running_app(telegram, db_path):
        after = telegram.mark()
        telegram.push_message(CHAT, "/history h100")
        photo = await telegram.wait_for_call("sendPhoto", after=after)
        usage = await reply(telegram, "/history")
        none_yet = await reply(telegram, "/history t4")
    assert photo.ok, photo.description
    (upload,) = photo.files.values()
    assert upload.data.startswith(b"\x89PNG")
    assert "Минимум: 420,00 ₽ (selectel)" in photo.params["caption"]
    assert "/history h100" in usage
    assert "пока нет истории" in none_yet


async def test_stock_lists_only_what_is_in_stock(telegram: FakeTelegram, db_path: Path):
    store = await Store.open(db_path)
    offers = (
        make_offer("in", 300.0, provider="selectel", gpu="H100 SXM"),
        make_offer("out", 200.0, StockState.OUT_OF_STOCK, provider="selectel", gpu="H100 SXM"),
        make_offer("maybe", 250.0, StockState.UNKNOWN, provider="selectel", gpu="H100 SXM"),
    )
    await store_snapshot(store, ScrapeResult("selectel", offers, datetime.now(UTC)))
    await store.close()
    async with running_app(telegram, db_path):
        text = await reply(telegram, "/stock h100")
    assert text.startswith("✅ В наличии сейчас · H100")
    assert "300,00 ₽/ч" in text
    assert "200,00" not in text
    assert "250,00" not in text


async def test_fit_answer_offers_a_watch_button(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path) as application:
        await reply(telegram, "/fit 70b qlora ctx=8192")
        answer = telegram.last_message(CHAT)
        labels = [button.text for button in answer.buttons()]
        assert labels == ["Подробнее", "🔔 Следить за подходящими"]
        after = telegram.mark()
        telegram.press(CHAT, "🔔 Следить за подходящими", message=answer)
        created = await telegram.wait_for_call("sendMessage", after=after)
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert created.result["text"].startswith("✅ Подписка")
    assert sub.filter.fit_need
    assert "H100 SXM" in sub.filter.fit_need
