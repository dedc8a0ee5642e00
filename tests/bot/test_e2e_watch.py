"""/watch by text and by buttons, /subs buttons, /stock, /history and the /fit watch button."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from monitor.offers import Offer, StockState
from monitor.scrape import ScrapeResult
from storage import Store
from tests.bot.conftest import CHAT, running_app
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram
from tests.polling import COLD_CHART_S


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
        for n in range(19):  # 19 different watches: the same one twice is not added
            await reply(telegram, f"/watch h100 max={100 + n}")
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
        photo = await telegram.wait_for_call("sendPhoto", after=after, timeout=COLD_CHART_S)
        usage = await reply(telegram, "/history")
        none_yet = await reply(telegram, "/history t4")
    assert photo.ok, photo.description
    (upload,) = photo.files.values()
    assert upload.data.startswith(b"\x89PNG")
    assert "Минимум в наличии: 420 ₽ (Selectel)" in photo.params["caption"]
    assert "/history h100" in usage
    assert "пока нет истории" in none_yet


async def test_stock_lists_only_what_is_in_stock(telegram: FakeTelegram, db_path: Path):
    store = await Store.open(db_path)
    offers = (
        make_offer("in", 300.5, provider="selectel", gpu="H100 SXM"),
        make_offer("out", 200.5, StockState.OUT_OF_STOCK, provider="selectel", gpu="H100 SXM"),
        make_offer("maybe", 250.5, StockState.UNKNOWN, provider="selectel", gpu="H100 SXM"),
    )
    await store_snapshot(store, ScrapeResult("selectel", offers, datetime.now(UTC)))
    await store.close()
    async with running_app(telegram, db_path):
        text = await reply(telegram, "/stock h100")
    assert text.startswith("✅ В наличии сейчас · H100")
    assert "300,50 ₽/ч" in text
    assert "200,50" not in text
    assert "250,50" not in text


async def test_fit_answer_offers_a_watch_button(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path) as application:
        await reply(telegram, "/fit 70b qlora ctx=8192")
        answer = telegram.last_message(CHAT)
        labels = [button.text for button in answer.buttons()]
        assert labels == ["Подробнее", "🔔 Следить за подходящими", "↗️ Поделиться"]
        after = telegram.mark()
        telegram.press(CHAT, "🔔 Следить за подходящими", message=answer)
        created = await telegram.wait_for_call("sendMessage", after=after)
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert created.result["text"].startswith("✅ Подписка")
    assert sub.filter.fit_need
    assert "H100 SXM" in sub.filter.fit_need


async def seed_offers(db_path: Path, *offers: Offer, provider: str = "hostkey") -> None:
    store = await Store.open(db_path)
    fetched = datetime.now(UTC) - timedelta(minutes=3)
    await store_snapshot(store, ScrapeResult(provider, offers, fetched))
    await store.close()


async def test_watch_first_lists_what_already_matches_and_says_what_new_means(
    telegram: FakeTelegram, db_path: Path
):
    # The case: HOSTKEY's A100 80GB at 234,72 ₽/h was in stock when the watch was made.
    await seed_offers(
        db_path,
        make_offer(
            "a100-nl", 234.72, provider="hostkey", gpu="A100 80GB SXM", vram_gb=80, monthly=True
        ),
        make_offer("a100-fi", 240.0, provider="hostkey", gpu="A100 80GB SXM", vram_gb=80),
        make_offer("a100-ru", 245.0, provider="hostkey", gpu="A100 80GB PCIe", vram_gb=80),
        make_offer("a100-is", 248.0, provider="hostkey", gpu="A100 80GB PCIe", vram_gb=80),
        make_offer("a100-dear", 300.0, provider="hostkey", gpu="A100 80GB SXM", vram_gb=80),
        make_offer(
            "a100-out", 100.0, StockState.OUT_OF_STOCK, provider="hostkey", gpu="A100 80GB SXM"
        ),
    )
    async with running_app(telegram, db_path):
        text = await reply(telegram, "/watch a100 80gb max=250")
        html = telegram.last_message(CHAT).text
        none = await reply(telegram, "/watch h200")
    lines = text.splitlines()
    assert lines[0].startswith("✅ Подписка: A100")
    assert "Уже подходит сейчас: 4 предложения" in text
    best = [line for line in lines if line[:2] in ("1.", "2.", "3.", "4.")]
    assert len(best) == 3  # the best 3, cheapest per GPU-hour first
    assert best[0].startswith("1. A100 80GB SXM ×1 · 168\u202f998 ₽/мес · ≈234,72 ₽/ч")
    assert "только помесячно" in best[0]
    assert best[0].endswith("HOSTKEY, MSK-1 · 3 мин назад")  # where, and how fresh
    assert "…и ещё 1" in text
    assert "72\u202f000" not in text  # the sold-out one at 100 ₽/h does not match now
    assert '<a href="https://example.test/a100-nl">HOSTKEY</a>' in html  # a link to it
    # What "new" means, exactly.
    assert "Напишу, когда появится новое:" in text
    assert "появится в продаже или снова будет в наличии после распродажи" in text
    assert "дороже 250 ₽ за GPU·ч подешевеет до 250 ₽ или ниже" in text
    assert "только если закончится и появится снова" in text
    assert "Сейчас ничего подходящего нет." in none


async def test_subs_buttons_toast_what_they_did(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path) as application:
        await reply(telegram, "/watch h100 max=650")
        await reply(telegram, "/watch 4090")
        await reply(telegram, "/subs")
        toasts = []
        for label in ("⏸ 1", "▶️ 1", "✏️ 2", "≤ 150 ₽", "🗑 1"):
            after = telegram.mark()
            telegram.press(CHAT, label)
            answer = await telegram.wait_for_call("answerCallbackQuery", after=after)
            await telegram.wait_for_call("editMessageText", after=after)
            toasts.append(answer.params.get("text"))
        (left,) = await application.store.subscriptions_of(CHAT)
    assert toasts == [
        "⏸ «H100 ≤650₽» на паузе",
        "▶️ «H100 ≤650₽» снова следит",
        None,  # the price picker opens; nothing happened yet
        "✏️ «RTX 4090 ≤150₽»: до 150 ₽ за GPU·ч",
        "🗑 Подписка «H100 ≤650₽» удалена",
    ]
    assert "Сохранено" not in toasts
    assert left.filter.gpu == "RTX 4090"


async def test_history_of_an_unknown_gpu_gives_history_examples(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        text = await reply(telegram, "/history banana")
    assert text == (
        "Не знаю видеокарту «banana». Примеры: /history h100, /history a100, /history 4090."
    )
    assert "/prices" not in text


async def test_help_says_what_new_means(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        text = await reply(telegram, "/help")
    assert "сразу покажу, что уже подходит, потом напишу о новом" in text
    assert "появилось в продаже или снова в наличии после распродажи" in text
    assert "стоило дороже порога и подешевело до него" in text
    for command in ("/prices 80gb", "/prices h100 hourly", "/stock", "/history", "/subs"):
        assert command in text
