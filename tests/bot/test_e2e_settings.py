"""/settings through real button presses; the choices persist in SQLite and survive a restart."""

from __future__ import annotations

from pathlib import Path

from monitor.users import QuietHours
from tests.bot.conftest import CHAT, running_app, stored_user
from tests.fakes.telegram import FakeTelegram


async def press_and_wait_edit(telegram: FakeTelegram, label: str) -> str:
    """Press a button on the chat's last menu and return the edited text."""
    after = len(telegram.calls)
    telegram.press(CHAT, label)
    edit = await telegram.wait_for_call("editMessageText", after=after)
    assert edit.ok, edit.description
    answer = await telegram.wait_for_call("answerCallbackQuery", after=after)
    assert answer.ok
    return str(edit.result["text"])


async def test_settings_buttons_change_and_persist(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        after = len(telegram.calls)
        telegram.push_message(CHAT, "/start")
        await telegram.wait_for_call("sendMessage", after=after)

        text = await press_and_wait_edit(telegram, "⚙️ Настройки")
        assert "Язык: Русский" in text
        assert "Часовой пояс: Europe/Moscow (UTC+3" in text
        assert "Тихие часы: выключены" in text

        text = await press_and_wait_edit(telegram, "English")
        assert "Language: Русский" not in text
        assert "Language: English" in text
        assert telegram.calls_of("answerCallbackQuery")[-1].params.get("text") == "Saved"

        await press_and_wait_edit(telegram, "🕒 Time zone")
        labels = [button.text for button in telegram.last_message(CHAT).buttons()]
        assert "✅ Moscow (UTC+3)" in labels
        text = await press_and_wait_edit(telegram, "Novosibirsk (UTC+7)")
        assert "Time zone: Asia/Novosibirsk (UTC+7" in text

        await press_and_wait_edit(telegram, "🌙 Quiet hours")
        text = await press_and_wait_edit(telegram, "23:00–08:00")
        assert "Quiet hours: 23:00–08:00" in text

    user = await stored_user(db_path)
    assert (user.language, user.timezone, user.quiet_hours) == (
        "en",
        "Asia/Novosibirsk",
        QuietHours(23 * 60, 8 * 60),
    )

    # A restart on the same database finds everything as the user left it.
    async with running_app(telegram, db_path):
        after = len(telegram.calls)
        telegram.push_message(CHAT, "/settings", language_code="ru")
        call = await telegram.wait_for_call("sendMessage", after=after)
    text = call.result["text"]
    assert "Language: English" in text
    assert "Asia/Novosibirsk" in text
    assert "Quiet hours: 23:00–08:00" in text


async def test_quiet_hours_can_be_switched_off_and_back_goes_to_menu(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        after = len(telegram.calls)
        telegram.push_message(CHAT, "/settings quiet 22-7")
        await telegram.wait_for_call("sendMessage", after=after)
        assert (await stored_user(db_path)).quiet_hours == QuietHours(22 * 60, 7 * 60)

        await press_and_wait_edit(telegram, "🌙 Тихие часы")
        text = await press_and_wait_edit(telegram, "🔔 Без тихих часов")
        assert "Тихие часы: выключены" in text
        text = await press_and_wait_edit(telegram, "« Меню")
        assert text == "Выберите раздел:"
    assert (await stored_user(db_path)).quiet_hours is None


async def test_typed_settings_and_their_errors(telegram: FakeTelegram, db_path: Path):
    async def reply(text: str) -> str:
        after = len(telegram.calls)
        telegram.push_message(CHAT, text)
        call = await telegram.wait_for_call("sendMessage", after=after)
        assert call.ok, call.description
        return str(call.result["text"])

    async with running_app(telegram, db_path):
        assert "Asia/Omsk" in await reply("/settings tz Asia/Omsk")
        bad_zone = await reply("/settings tz Mars/<Olympus>")
        assert "Не знаю часовой пояс «Mars/<Olympus>»" in bad_zone
        assert "Не понял «в полночь»" in await reply("/settings quiet в полночь")
        assert "ru, en" in await reply("/settings lang de")
        assert "Примеры" in await reply("/settings colour blue")
        assert "Language: English" in await reply("/settings lang en")
    user = await stored_user(db_path)
    assert (user.timezone, user.language) == ("Asia/Omsk", "en")


async def test_forged_callback_data_is_refused(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        after = len(telegram.calls)
        telegram.push_message(CHAT, "/settings")
        await telegram.wait_for_call("sendMessage", after=after)
        menu = telegram.last_message(CHAT)
        after = len(telegram.calls)
        telegram.push_callback(CHAT, menu.message_id, "s:tz:Mars/Olympus")
        answer = await telegram.wait_for_call("answerCallbackQuery", after=after)
    assert answer.params["show_alert"] == "true"
    assert "устарела" in answer.params["text"]
    assert (await stored_user(db_path)).timezone == "Europe/Moscow"
