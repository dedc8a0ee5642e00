"""Reverse questions through the real polling bot: `/fit … ctx=max gpu=3090` and a Russian
free question get the solved value first, then the normal answer sized at it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_fit import PHONE, press, reply_to, seed_prices
from tests.fakes.telegram import FakeTelegram


async def test_ctx_max_command_and_a_russian_free_question(
    telegram: FakeTelegram, db_path: Path
) -> None:
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        command = await reply_to(telegram, "/fit 8b qlora ctx=max gpu=3090")
        details = await press(telegram, "Подробнее")  # the button carries ctx=max
        question = await reply_to(
            telegram, "какой максимальный контекст влезет на 3090 для 8b qlora?"
        )
        batch = await reply_to(telegram, "максимальный batch на 4090 для 13b lora")
        no_card = await reply_to(telegram, "/fit 8b qlora ctx=max")
    first = command.splitlines()[0]
    assert first.startswith("📐 Максимальный контекст на 1× RTX 3090: ")
    # 8B QLoRA on a 3090: the maximum keeps the verdict's headroom, longer contexts are tight.
    assert first.endswith(" — впритык")
    solved = first.split(": ", 1)[1].split(" токен")[0].replace("\u202f", "")
    assert f"ctx {solved}" in command.splitlines()[1]
    assert len(command) < PHONE
    assert f"ctx {solved}" in details
    assert question.splitlines()[0] == first
    # 13B LoRA leaves no room for even one sample on 24 GB: the answer says so.
    assert batch.startswith("📐 На 1× RTX 4090 не влезает даже micro-batch 1: не хватает ")
    assert "назовите карту" in no_card


async def test_a_reverse_question_without_a_model_asks_for_one(
    telegram: FakeTelegram, db_path: Path
) -> None:
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        batch = await reply_to(telegram, "какой batch поставить на a100?")
        english = await reply_to(telegram, "what max context fits on a 3090?")
        cheapest = await reply_to(telegram, "на какой самой дешёвой карте пойдёт с ctx 8k?")
        context = await reply_to(telegram, "какой максимальный контекст влезет на 3090?")
        buttons = [button.text for button in telegram.last_message(CHAT).buttons()]
        # Pressed last: the run it sizes becomes the chat's, and a later model-less question
        # would be read as its follow-up.
        solved = await press(telegram, buttons[0])
    # Not the price list: which model and method, with the question's own run as the example.
    assert context.startswith("📐 Для какой модели и каким методом?")
    assert "/fit 8b qlora ctx=max gpu=RTX-3090" in context
    assert buttons == ["Посчитать: 8B QLoRA"]
    assert solved.startswith("📐 Максимальный контекст на 1× RTX 3090: ")
    assert "/fit 8b qlora bs=max gpu=A100" in batch
    assert english.startswith("📐 Which model and method?")
    assert "/fit 8b qlora ctx=max gpu=RTX-3090" in english
    assert "/fit 8b qlora ctx=8192 cheapest" in cheapest


def _solved_value(answer: str) -> str:
    """The value of «📐 Максимальный …: 12 288 токенов; …», without its separators."""
    shown = answer.splitlines()[0].split(": ", 1)[1].split(";")[0]
    return "".join(ch for ch in shown if ch.isdigit())


@pytest.mark.parametrize(
    ("question", "key"),
    [
        ("/fit 8b qlora ctx=max gpu=3090", "ctx"),
        ("/fit 8b qlora bs=max gpu=3090", "bs"),
        ("/fit 8b lora rank=max gpu=5090", "rank"),
    ],
)
async def test_the_watch_button_of_a_reverse_answer_watches_the_solved_run(
    telegram: FakeTelegram, db_path: Path, question: str, key: str
) -> None:
    async with running_app(telegram, db_path) as application:
        answer = await reply_to(telegram, question)
        message = telegram.last_message(CHAT)
        after = telegram.mark()
        telegram.press(CHAT, "🔔 Следить за подходящими", message=message)
        created = await telegram.wait_for_call("sendMessage", after=after)
        (sub,) = await application.store.subscriptions_of(CHAT)
    assert str(created.result["text"]).startswith("✅ Подписка")
    assert sub.filter.fit_query is not None
    assert f"{key}={_solved_value(answer)}" in sub.filter.fit_query.split()
    # The answer says the solved run fits the card it was solved on: so does the watch.
    gpu = "RTX 5090" if key == "rank" else "RTX 3090"
    assert sub.filter.fit_need is not None
    assert sub.filter.fit_need[gpu] == 1


async def test_a_follow_up_after_the_example_button_changes_the_run_it_sized(
    telegram: FakeTelegram, db_path: Path
) -> None:
    """«Посчитать: 8B QLoRA» answers a run the chat never typed: «а с lora?» right after it
    changes that run."""
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        await reply_to(telegram, "какой максимальный контекст влезет на 3090?")
        await press(telegram, "Посчитать: 8B QLoRA")
        followed = await reply_to(telegram, "а с lora?")
    assert followed.startswith("📐 Максимальный контекст на 1× RTX 3090: ")
    assert "8B · LoRA · ctx " in followed
