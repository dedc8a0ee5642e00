"""«Сообщи, когда мой запуск будет стоить меньше 5 000 ₽»: a watch on the whole run's cost,
for the run the chat just sized, created by one button."""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_fit import press, reply_to
from tests.fakes.telegram import FakeTelegram


async def test_a_run_cost_question_after_a_sizing_watches_that_run(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        await reply_to(telegram, "/fit 8b lora dataset=20k tokens=1024")
        await reply_to(telegram, "уложусь в 1000 ₽?")  # a budget the watch replaces
        offer = await reply_to(telegram, "сообщи, когда мой запуск будет стоить меньше 5 000 ₽")
        labels = [button.text for button in telegram.last_message(CHAT).buttons()]
        assert await application.store.subscriptions_of(CHAT) == []  # nothing until pressed
        created = await press(telegram, labels[0])
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert "8b lora dataset=20k tokens=1024" in offer
    assert "5\u202f000 ₽" in offer
    assert len(labels) == 1
    assert "✅" in created
    assert sub.filter.max_job_rub == 5000
    assert sub.filter.max_rub_per_gpu_hour is None  # the run's cost, never a card's price
    assert sub.filter.job_hours is not None
    assert sub.filter.fit_query is not None
    assert "dataset=20k" in sub.filter.fit_query
    assert sub.filter.fit_query.count("budget=") == 1


async def test_in_english_and_without_a_sized_run(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path) as application:
        alone = await reply_to(telegram, "notify me when my run costs under 3000 rub")
        await reply_to(telegram, "/fit 7b qlora")  # no dataset: no length, no cost
        no_dataset = await reply_to(telegram, "сообщи, когда мой запуск будет дешевле 2000 ₽")
        assert await application.store.subscriptions_of(CHAT) == []
    assert "/fit 8b lora dataset=20k" in alone
    assert "first ask about it" in alone
    assert "сначала спросите" in no_dataset


async def test_a_button_for_an_earlier_run_is_outdated(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path) as application:
        await reply_to(telegram, "/fit 8b lora dataset=20k tokens=1024")
        await reply_to(telegram, "сообщи, когда мой запуск будет стоить меньше 5000 ₽")
        earlier = telegram.last_message(CHAT)
        await reply_to(telegram, "/fit 13b qlora dataset=10k")
        after = telegram.mark()
        telegram.press(CHAT, 0, message=earlier)
        stale = await telegram.wait_for_call("editMessageText", after=after)
        assert await application.store.subscriptions_of(CHAT) == []
    assert "прошлый запуск" in stale.result["text"]


async def test_an_assumed_length_reads_as_about_never_as_grammar(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path) as application:
        await reply_to(telegram, "/fit 8b lora dataset=20k")  # the length is assumed
        offer = await reply_to(telegram, "сообщи, когда мой запуск будет стоить меньше 5 000 ₽")
        await press(telegram, telegram.last_message(CHAT).buttons()[0].text)
        subs = await reply_to(telegram, "/subs")
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert "tokens≈" in offer
    assert "=~" not in offer
    assert "tokens≈" in subs
    assert "=~" not in subs
    assert "tokens=~" in (sub.filter.fit_query or "")  # kept in the grammar, read back the same
