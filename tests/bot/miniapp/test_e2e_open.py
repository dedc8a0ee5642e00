"""Where the Mini App opens from, through the real bot and the fake Bot API: the menu button
and «📊 Таблица» under /prices and /history, in private chats, only with GPURADAR_PUBLIC_URL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp

from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_prices import seed
from tests.bot.test_e2e_watch import seed_history
from tests.fakes.telegram import FakeTelegram
from tests.polling import COLD_CHART_S

PUBLIC_URL = "https://bot.example.test"
GROUP = -1001234567890


def web_apps(markup: str | None) -> list[dict[str, Any]]:
    rows = json.loads(markup or "{}").get("inline_keyboard", [])
    return [button for row in rows for button in row if "web_app" in button]


async def sent(telegram: FakeTelegram, chat_id: int, text: str, method: str = "sendMessage"):
    after = telegram.mark()
    telegram.push_message(chat_id, text, user_id=CHAT)
    call = await telegram.wait_for_call(
        method,
        after=after,
        predicate=lambda c: c.params.get("chat_id") == str(chat_id),
        timeout=COLD_CHART_S,
    )
    assert call.ok, call.description
    return call


async def test_with_a_public_url_the_menu_prices_and_history_open_the_app(
    telegram: FakeTelegram, db_path: Path
):
    await seed(db_path)
    await seed_history(db_path)
    async with running_app(telegram, db_path, public_url=PUBLIC_URL) as application:
        [menu] = telegram.calls_of("setChatMenuButton")
        assert "chat_id" not in menu.params  # every chat's
        button = json.loads(menu.params["menu_button"])
        assert button["type"] == "web_app"
        assert button["web_app"]["url"] == f"{PUBLIC_URL}/app/?page=table"
        prices = await sent(telegram, CHAT, "/prices")
        [table] = web_apps(prices.params.get("reply_markup"))
        assert table["text"] == "📊 Таблица"
        assert table["web_app"]["url"] == f"{PUBLIC_URL}/app/?page=table"
        history = await sent(telegram, CHAT, "/history h100", "sendPhoto")
        [chart] = web_apps(history.params.get("reply_markup"))
        assert chart["web_app"]["url"] == f"{PUBLIC_URL}/app/?page=history&gpu=H100"
        # Telegram refuses web_app buttons outside private chats: a group gets none.
        in_group = await sent(telegram, GROUP, "/prices")
        assert web_apps(in_group.params.get("reply_markup")) == []
        assert application.ops is not None
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{application.ops.port}/app/") as page,
        ):
            assert page.status == 200


async def test_without_a_public_url_nothing_opens_it(telegram: FakeTelegram, db_path: Path):
    await seed(db_path)
    async with running_app(telegram, db_path) as application:
        prices = await sent(telegram, CHAT, "/prices")
        assert web_apps(prices.params.get("reply_markup")) == []
        assert telegram.calls_of("setChatMenuButton") == []
        assert application.ops is not None
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{application.ops.port}/app/") as page,
        ):
            assert page.status == 404


def chat_menu_buttons(telegram: FakeTelegram, chat_id: int) -> list[str]:
    """The texts of the menu buttons set for `chat_id` alone, oldest first."""
    return [
        json.loads(call.params["menu_button"])["text"]
        for call in telegram.calls_of("setChatMenuButton")
        if call.params.get("chat_id") == str(chat_id)
    ]


async def test_each_chats_menu_button_speaks_its_users_language(
    telegram: FakeTelegram, db_path: Path
):
    """/start (a shared link's too) sets the chat's own button in the language chosen from the
    client's; changing the language in /settings, by command or by button, sets it again in
    the new one."""
    english = CHAT + 1
    async with running_app(telegram, db_path, public_url=PUBLIC_URL):
        [default] = telegram.calls_of("setChatMenuButton")
        assert json.loads(default.params["menu_button"])["text"] == "📊 Таблица"
        after = telegram.mark()
        telegram.push_message(english, "/start", user_id=english, language_code="en-US")
        await telegram.wait_for_call("setChatMenuButton", after=after)
        after = telegram.mark()
        # A shared link's /start too (this payload is damaged: a short line, and the button).
        telegram.push_message(CHAT, "/start x", user_id=CHAT, language_code="ru")
        await telegram.wait_for_call("setChatMenuButton", after=after)
        assert chat_menu_buttons(telegram, english) == ["📊 Table"]
        assert chat_menu_buttons(telegram, CHAT) == ["📊 Таблица"]
        menu = json.loads(telegram.calls_of("setChatMenuButton")[-1].params["menu_button"])
        assert menu["web_app"]["url"] == f"{PUBLIC_URL}/app/?page=table"

        after = telegram.mark()
        telegram.push_message(english, "/settings язык ru", user_id=english, language_code="en")
        await telegram.wait_for_call("setChatMenuButton", after=after)
        await sent(telegram, english, "/settings")
        after = telegram.mark()
        telegram.press(english, "English", user_id=english)
        await telegram.wait_for_call("setChatMenuButton", after=after)
        # Not in a group: Telegram keeps menu buttons per private chat only.
        await sent(telegram, GROUP, "/start")
    assert chat_menu_buttons(telegram, english) == ["📊 Table", "📊 Таблица", "📊 Table"]
    assert chat_menu_buttons(telegram, GROUP) == []
