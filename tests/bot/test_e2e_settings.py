"""/settings through real button presses; the choices persist in SQLite and survive a restart."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from monitor.users import QuietHours
from tests.bot.conftest import CHAT, running_app, stored_user
from tests.bot.test_e2e_alerts import alerts_sent, command, monitored_app, refresh
from tests.bot.test_e2e_watch import reply
from tests.fakes.sites.selectel import H100Control
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually


async def press_and_wait_edit(
    telegram: FakeTelegram, label: str, *, on: int = CHAT, menu: int = -1
) -> str:
    """Press a button on one of the chat's menus (default: the last) and return the edit."""
    after = len(telegram.calls)
    telegram.press(on, label, telegram.messages(on)[menu])
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


async def test_a_time_zone_can_be_typed_as_a_city(telegram: FakeTelegram, db_path: Path):
    async def say(text: str) -> str:
        return await reply(telegram, text)

    async with running_app(telegram, db_path):
        # The button is labelled «Новосибирск»; typing the same word works too.
        assert "Часовой пояс: Asia/Novosibirsk (UTC+7" in await say("/settings tz Новосибирск")
        assert "Asia/Yekaterinburg" in await say("/settings tz екатеринбург")
        assert "Europe/Moscow" in await say("/settings tz Санкт-Петербург")
        assert "Europe/Berlin" in await say("/settings tz Berlin")
        refused = await say("/settings tz Атлантида")
        assert "Не знаю часовой пояс «Атлантида»" in refused
        assert "/settings tz Новосибирск" in refused  # says how to write it
        assert "Asia/Omsk" in await say("/settings пояс omsk")
    assert (await stored_user(db_path)).timezone == "Asia/Omsk"


async def test_until_morning_and_muted_alerts_show_in_settings(
    telegram: FakeTelegram, db_path: Path
):
    h100 = H100Control()
    async with monitored_app(telegram, db_path, h100) as (application, _):
        await command(telegram, "/watch h100")
        h100.count = 1
        await refresh(application)
        await eventually(lambda: len(alerts_sent(telegram)) == 1)
        alert = telegram.last_message(CHAT)
        after = telegram.mark()
        telegram.press(CHAT, "💤 До утра", message=alert)
        await telegram.wait_for_call("answerCallbackQuery", after=after)
        after = telegram.mark()
        telegram.press(CHAT, "🔕 H100: 24 ч", message=alert)
        await telegram.wait_for_call("answerCallbackQuery", after=after)
        settings = await command(telegram, "/settings")
        buttons = [button.text for button in telegram.last_message(CHAT).buttons()]
        subs = await command(telegram, "/subs")
        text = await press_and_wait_edit(telegram, "🔔 Снять тишину до утра", on=CHAT, menu=-2)
        toast = telegram.calls_of("answerCallbackQuery")[-1].params.get("text")
        snoozed = await application.store.snoozed_until(CHAT, datetime.now(UTC))
    assert "💤 Тишина до " in settings
    assert "оповещения придут одной сводкой" in settings
    assert "🔕 1 подписка молчит (до " in settings
    assert "🔔 Снять тишину до утра" in buttons
    assert "— 🔕 молчит до " in subs
    assert toast == "🔔 Тишина снята."
    assert "💤 Тишина до" not in text
    assert snoozed is None
