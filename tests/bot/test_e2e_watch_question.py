"""«Сообщи, когда 8×H100 будет дешевле 600 ₽»: the reply names the watch and its one button
creates exactly it (per GPU-hour, as /watch max= is matched)."""

from __future__ import annotations

from pathlib import Path

from bot.fake_telegram.models import ApiCall
from monitor.subscriptions import AlertKind
from tests.bot.conftest import CHAT, running_app
from tests.fakes.telegram import FakeTelegram


async def ask(telegram: FakeTelegram, text: str) -> ApiCall:
    after = telegram.mark()
    telegram.push_message(CHAT, text)
    call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.ok, call.description
    return call


async def press(telegram: FakeTelegram, message_id: int, data: str) -> ApiCall:
    """Press a button carrying `data` under message `message_id`: the edit it answers with."""
    after = telegram.mark()
    telegram.push_callback(CHAT, message_id, data)
    return await telegram.wait_for_call("editMessageText", after=after)


async def test_russian_question_offers_one_button_for_exactly_that_watch(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        call = await ask(telegram, "сообщи, когда 8×H100 будет дешевле 600 ₽")
        text = str(call.result["text"])
        answer = telegram.last_message(CHAT)
        labels = [button.text for button in answer.buttons()]
        assert await application.store.subscriptions_of(CHAT) == []  # nothing until pressed
        after = telegram.mark()
        telegram.press(CHAT, labels[0], message=answer)
        created = await telegram.wait_for_call("editMessageText", after=after)
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert "H100 · от 8 GPU · до 600 ₽/GPU·ч" in text
    assert "max=…" not in text
    assert "сервер из 8 GPU — до 4\u202f800 ₽/ч" in text
    assert labels == ["🔔 Следить: 8×H100 ≤600₽"]
    assert sub.filter.family == "H100"
    assert sub.filter.min_count == 8
    assert sub.filter.max_rub_per_gpu_hour == 600
    assert AlertKind.BELOW_TARGET in sub.filter.kinds
    assert str(created.result["text"]).startswith("✅ Подписка: H100")


async def test_english_question_is_answered_in_english(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path) as application:
        call = await ask(telegram, "notify me when H100 is under 300 rub")
        answer = telegram.last_message(CHAT)
        (button,) = answer.buttons()
        after = telegram.mark()
        telegram.press(CHAT, button.text, message=answer)
        created = await telegram.wait_for_call("editMessageText", after=after)
        (sub,) = await application.store.subscriptions_of(CHAT)
    text = str(call.result["text"])
    assert "H100 · ≤ 300 ₽/GPU·h" in text
    assert "per GPU-hour" in text
    assert button.text == "🔔 Watch: H100 ≤300₽"
    assert (sub.filter.family, sub.filter.min_count, sub.filter.max_rub_per_gpu_hour) == (
        "H100",
        None,
        300,
    )
    assert str(created.result["text"]).startswith("✅")


async def test_a_forged_button_gets_the_watch_error_not_a_crash(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        await ask(telegram, "сообщи, когда H100 будет дешевле 600 ₽")
        answer = telegram.last_message(CHAT)
        edited = await press(telegram, answer.message_id, "q:ru:voodoo5")
        subs = await application.store.subscriptions_of(CHAT)
    assert "voodoo5" in str(edited.result["text"])
    assert subs == []


async def test_other_questions_still_reach_the_general_answers(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        call = await ask(telegram, "где дешевле H100?")
    assert "Могу следить" not in str(call.result["text"])


async def test_a_cap_per_gpu_hour_after_a_sizing_is_a_watch_not_a_budget(
    telegram: FakeTelegram, db_path: Path
):
    """The conversation that showed it: «alert me when 8x H100 is under 600 rub per
    GPU-hour» for a run became a 600 ₽ budget on that run's sizing."""
    async with running_app(telegram, db_path) as application:
        await ask(telegram, "/fit 70b full gpus=8")
        call = await ask(
            telegram, "alert me when 8x H100 is under 600 rub per GPU-hour for a 70b full fine-tune"
        )
        answer = telegram.last_message(CHAT)
        (button,) = answer.buttons()
        after = telegram.mark()
        telegram.press(CHAT, button.text, message=answer)
        await telegram.wait_for_call("editMessageText", after=after)
        (sub,) = await application.store.subscriptions_of(CHAT)
    text = str(call.result["text"])
    assert "H100 · ≥ 8 GPUs · ≤ 600 ₽/GPU·h" in text
    assert "Peak" not in text  # not a sizing with a 600 ₽ budget
    assert "💰" not in text
    assert (sub.filter.family, sub.filter.min_count, sub.filter.max_rub_per_gpu_hour) == (
        "H100",
        8,
        600,
    )
    assert sub.filter.max_job_rub is None


async def test_a_duplicate_watch_is_recognised_as_the_one_that_exists(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        await ask(telegram, "/watch h100 max=300")
        typed = await ask(telegram, "/watch H100 до 300 ₽")
        await ask(telegram, "сообщи, когда h100 будет дешевле 300 ₽/ч")
        answer = telegram.last_message(CHAT)
        after = telegram.mark()
        telegram.press(CHAT, 0, message=answer)
        pressed = await telegram.wait_for_call("editMessageText", after=after)
        other = await ask(telegram, "/watch h100 max=250")
        subs = await application.store.subscriptions_of(CHAT)
    assert str(typed.result["text"]).startswith("Такая подписка уже есть — №1 в /subs")
    assert str(pressed.result["text"]).startswith("Такая подписка уже есть — №1")
    assert str(other.result["text"]).startswith("✅ Подписка")  # another cap: another watch
    assert [sub.filter.max_rub_per_gpu_hour for sub in subs] == [300, 250]


async def test_a_button_with_watch_words_from_before_still_subscribes(
    telegram: FakeTelegram, db_path: Path
):
    """A button sent before the typed texts carries /watch words; a forged typed one is stale."""
    async with running_app(telegram, db_path) as application:
        await ask(telegram, "сообщи, когда H100 будет дешевле 600 ₽")
        answer = telegram.last_message(CHAT)
        forged = await press(telegram, answer.message_id, "q:ru:~1fNoFamily")
        created = await press(telegram, answer.message_id, "q:ru:H100 max=600")
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert "устарела" in str(forged.result["text"])
    assert str(created.result["text"]).startswith("✅ Подписка: H100")
    assert (sub.filter.family, sub.filter.max_rub_per_gpu_hour) == ("H100", 600)
