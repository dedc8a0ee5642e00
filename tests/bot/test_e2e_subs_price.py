"""The /subs price editor: the cap now, a typed value, steps above 600 ₽ when what the
watch follows costs that much, and «Назад»."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.routers.watch import typed_price
from monitor.scrape import ScrapeResult
from storage import Store
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_fit import press
from tests.bot.test_e2e_fit import reply_to as send
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram


def labels(telegram: FakeTelegram) -> list[str]:
    return [button.text for button in telegram.last_message(CHAT).buttons()]


async def seed_dear_h200(db_path: Path) -> None:
    """An 8×H200 server at 9 920 ₽/h: 1 240 ₽ per GPU-hour, above the old 600 ₽ ceiling."""
    store = await Store.open(db_path)
    offer = make_offer("h200x8", 9920.0, provider="selectel", gpu="H200", gpu_count=8, vram_gb=141)
    await store_snapshot(store, ScrapeResult("selectel", (offer,), datetime.now(UTC)))
    await store.close()


async def test_editor_shows_the_cap_takes_a_typed_value_and_goes_back(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        await send(telegram, "/watch h100 max=300")
        await send(telegram, "/subs")
        editor = await press(telegram, "✏️ 1")
        buttons = labels(telegram)
        typed = await send(telegram, "450")
        (sub,) = await application.store.subscriptions_of(CHAT)
        after_typed = sub.filter.max_rub_per_gpu_hour
        await press(telegram, "✏️ 1")
        back = await press(telegram, "⬅️ Назад")
        ignored = await send(telegram, "500")  # no editor open: not read as a price
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert "сейчас до 300 ₽ за GPU·ч" in editor
    assert "напишите цену числом" in editor
    assert "• ≤ 300 ₽" in buttons
    assert "⬅️ Назад" in buttons
    assert after_typed == 450
    assert typed.startswith("✏️ «H100 ≤450₽»: до 450 ₽ за GPU·ч")
    assert "🔔 Мои подписки" in typed
    assert back.startswith("🔔 Мои подписки")
    assert sub.filter.max_rub_per_gpu_hour == 450
    assert not ignored.startswith("✏️")


async def test_a_bad_typed_value_gets_a_hint_and_zero_clears_the_cap(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        await send(telegram, "/watch h100 max=300")
        await send(telegram, "/subs")
        await press(telegram, "✏️ 1")
        bad = await send(telegram, "-5")
        cleared = await send(telegram, "0")
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert "числом от 1" in bad
    assert cleared.startswith("✏️ «H100»: без ограничения цены")
    assert sub.filter.max_rub_per_gpu_hour is None


async def test_dear_cards_get_caps_above_600(telegram: FakeTelegram, db_path: Path):
    await seed_dear_h200(db_path)
    async with running_app(telegram, db_path) as application:
        await send(telegram, "/watch h200")
        await send(telegram, "/subs")
        editor = await press(telegram, "✏️ 1")
        buttons = labels(telegram)
        await press(telegram, "≤ 1\u202f500 ₽")
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert "сейчас без ограничения цены" in editor
    assert "• ∞" in buttons
    assert "≤ 1\u202f500 ₽" in buttons
    assert "≤ 2\u202f000 ₽" not in buttons  # no step above the dearest price's next step
    assert sub.filter.max_rub_per_gpu_hour == 1500


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("450", 450.0),
        ("1 200,5 ₽", 1200.5),
        ("599,5", 599.5),
        ("0", 0.0),
        ("-5", None),
        ("9999999", None),
    ],
)
def test_typed_price(text: str, value: float | None) -> None:
    assert typed_price(text) == value
