"""/start, /help, the main menu and the fallbacks, through real polling and real button presses."""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import CHAT, running_app, stored_user
from tests.fakes.telegram import FakeTelegram


async def send(telegram: FakeTelegram, text: str, **kwargs: object) -> str:
    """Push a user message and return the plain text of the bot's reply."""
    after = len(telegram.calls)
    telegram.push_message(CHAT, text, **kwargs)  # type: ignore[arg-type]
    call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.ok, call.description
    return str(call.result["text"])


async def test_startup_registers_commands_in_both_languages(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        assert telegram.calls_of("deleteWebhook")
        by_language = {
            call.params.get("language_code"): [c["command"] for c in call.json_param("commands")]
            for call in telegram.calls_of("setMyCommands")
        }
    assert set(by_language) == {"ru", "en", None}
    assert all(
        commands
        == ["start", "prices", "stock", "fit", "watch", "subs", "history", "help", "settings"]
        for commands in by_language.values()
    )
    descriptions = {
        call.params.get("language_code"): call.json_param("commands")[0]["description"]
        for call in telegram.calls_of("setMyCommands")
    }
    assert descriptions["ru"] == "Главное меню"
    assert descriptions["en"] == "Main menu"
    assert descriptions[None] == "Главное меню"


async def test_start_greets_in_russian_with_the_main_menu(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        text = await send(telegram, "/start", first_name="Аня <script>")
        message = telegram.last_message(CHAT)
    assert text.startswith("Привет, Аня <script>! Я gpuradar.")
    assert "Selectel, HOSTKEY и immers.cloud" in text
    assert message.parse_mode == "HTML"
    assert "Аня &lt;script&gt;" in message.text  # escaped on the wire, shown literally
    assert [button.text for button in message.buttons()] == [
        "💰 Цены и наличие",
        "🧮 Подобрать GPU",
        "🔔 Мои подписки",
        "⚙️ Настройки",
        "❓ Помощь",
    ]
    assert all(button.callback_data for button in message.buttons())


async def test_english_client_gets_english(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        text = await send(telegram, "/start", language_code="en-GB", first_name="Ann")
    assert text.startswith("Hi, Ann! I am gpuradar.")
    assert (await stored_user(db_path)).language == "en"


async def test_help_lists_commands_with_examples(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        text = await send(telegram, "/help")
    for fragment in ("/start", "/fit 13b qlora ctx=4096", "/watch a100 80gb max=250", "/settings"):
        assert fragment in text
    assert "/settings quiet 23:00-08:00" in text


async def test_help_and_subscriptions_buttons(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        await send(telegram, "/start")
        menu = telegram.last_message(CHAT)

        after = len(telegram.calls)
        telegram.press(CHAT, "❓ Помощь", message=menu)
        help_call = await telegram.wait_for_call("sendMessage", after=after)
        assert "/settings" in help_call.result["text"]

        after = len(telegram.calls)
        telegram.press(CHAT, "🔔 Мои подписки", message=menu)
        subs = await telegram.wait_for_call("editMessageText", after=after)
        assert subs.result["text"].startswith("Подписок пока нет")


async def test_unknown_command_and_text_point_to_help(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        unknown = await send(telegram, "/frobnicate <b>&")
        chatter = await send(telegram, "<b>привет</b> & пока")
    assert unknown == "Не знаю команду /frobnicate. Список команд — /help."
    # Chatter gets the commands that would answer it, never «Не понял».
    assert "/fit" in chatter
    assert "Не понял" not in chatter


async def test_non_text_message_gets_a_hint(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        after = len(telegram.calls)
        telegram.push_update(
            {
                "message": {
                    "message_id": 9001,
                    "date": 1_700_000_000,
                    "chat": {"id": CHAT, "type": "private"},
                    "from": {"id": CHAT, "is_bot": False, "first_name": "A", "language_code": "ru"},
                    "sticker": {
                        "file_id": "s",
                        "file_unique_id": "s",
                        "type": "regular",
                        "width": 512,
                        "height": 512,
                        "is_animated": False,
                        "is_video": False,
                    },
                }
            }
        )
        call = await telegram.wait_for_call("sendMessage", after=after)
    assert "только текст" in call.result["text"]
