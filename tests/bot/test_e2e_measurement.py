"""A person's own measured speed, through the real polling bot: a pasted «у меня 2,1 с/шаг на
4090 при bs 4» is set against the time model for the run of the chat's last answer and stored
for that user; that user's next answers are timed from it and say so, nobody else's change."""

from __future__ import annotations

import re
from pathlib import Path

from tests.bot.conftest import running_app
from tests.bot.test_e2e_fit import seed_prices
from tests.bot.test_e2e_followup import reply_in
from tests.fakes.telegram import FakeTelegram

FIT = "/fit 8b qlora dataset=20000 tokens=1024 gpu=4090"
MINE, OTHER = 601, 602


def row_hours(answer: str, gpu: str) -> str:
    """The RTX 4090 line's range of hours: «~1,8–3,1 ч»."""
    line = next(line for line in answer.splitlines() if gpu in line and "~" in line)
    found = re.search(r"~([\d,.]+(?:–[\d,.]+)? \S+)", line)
    assert found, line
    return found.group(1)


async def test_a_pasted_measurement_changes_that_users_next_answers_and_nobody_elses(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        before = await reply_in(telegram, MINE, FIT, "ru")
        other_before = await reply_in(telegram, OTHER, FIT, "ru")
        stored = await reply_in(telegram, MINE, "у меня 2,1 с/шаг на 4090 при bs 4", "ru")
        after = await reply_in(telegram, MINE, FIT, "ru")
        other_after = await reply_in(telegram, OTHER, FIT, "ru")
    assert stored.startswith("⏱ Запомнил ваш замер: 2,1 с/шаг на 1× RTX 4090 для Llama-3.1-8B")
    # bs 4 × 1024 tokens a row in 2.1 s: 1 950 tokens/s on the card.
    assert "(bs 4, 1024 токенов в строке) — 1\u202f950 токенов/с на карту" in stored
    assert "по вашему замеру: 1\u202f950 токенов/с на 1× RTX 4090" in after
    assert row_hours(after, "RTX 4090") != row_hours(before, "RTX 4090")
    assert row_hours(after, "RTX 3090") != row_hours(before, "RTX 3090")  # every card scales
    assert "по вашему замеру" not in other_after
    assert row_hours(other_after, "RTX 4090") == row_hours(other_before, "RTX 4090")


async def test_a_measurement_names_its_run_or_asks_for_one_and_a_misread_is_not_stored(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        no_run = await reply_in(telegram, MINE, "I get 3 100 tok/s on an A100", "en")
        named = await reply_in(
            telegram, MINE, "llama 8b lora ctx 2048: 3 100 tok/s on an A100", "en"
        )
        absurd = await reply_in(telegram, MINE, "llama 8b lora ctx 2048: 0,01 с/шаг на 4090", "ru")
        answer = await reply_in(telegram, MINE, FIT, "ru")
    assert no_run.startswith("Read your measurement: 3 100 tok/s on A100 80GB SXM.")
    assert named.startswith("⏱ Stored your measurement: 3 100 tok/s on 1× A100 80GB SXM")
    assert "Не запомнил" in absurd
    # The stored one is the A100's, not the misread one (the user's language is the first
    # message's, English).
    assert "Times from your own measurement: 3\u202f100 tokens/s on 1× A100 80GB SXM" in answer
