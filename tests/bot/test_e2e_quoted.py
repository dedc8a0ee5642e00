"""The messages a new user's conversations broke on, as written, through the real polling bot:
each gets the answer a person can act on. (The others have their own files: offload questions
in test_e2e_fit_offload, watch caps in test_e2e_watch_question, «а дешевле есть?» and the short
follow-ups in test_e2e_conversation, a bare «14b» and unknown cards in test_e2e_readings.)"""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import running_app
from tests.bot.test_e2e_fit import reply_to, seed_prices
from tests.bot.test_e2e_followup import budget_line, title
from tests.fakes.telegram import FakeTelegram

RUN = "/fit 8b lora dataset=20k tokens=1024"


async def test_a_budget_in_thousands_after_a_sizing_is_money_never_a_context(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        await reply_to(telegram, RUN)
        short = await reply_to(telegram, "уложусь в 50к?")
        spelled = await reply_to(telegram, "уложусь в 50 000 ₽?")
        words = await reply_to(telegram, "бюджет у меня тысяч 5 рублей")
    for answer in (short, spelled):
        assert title(answer) == "8B · LoRA · ctx 2048 · bs 1"  # the context is untouched
        assert "50\u202f000 ₽" in budget_line(answer)
        assert "укладываетесь" in budget_line(answer)  # the run costs hundreds, not 50 000
    assert "5\u202f000 ₽" in budget_line(words)
    assert "укладываетесь" in budget_line(words)


async def test_an_average_and_a_longest_length_are_two_slots(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        answer = await reply_to(
            telegram,
            "сколько памяти на llama 3 8b qlora, средняя длина 1500 токенов но бывают и по 6000",
        )
    # Sized for the longest sample (the peak follows the longest batch), not the average.
    assert title(answer) == "Llama-3.1-8B · QLoRA · ctx 8192 · bs 1"


async def test_a_billion_tokens_is_the_dataset_and_the_method_said_is_kept(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        answer = await reply_to(telegram, "сколько стоит дообучить 8b lora на 1 млрд токенов?")
    assert title(answer) == "8B · LoRA · ctx 2048 · bs 1"
    assert "Метод не указан" not in answer
    assert " сут" in answer  # a billion tokens takes days, priced on the plans


async def test_a_new_context_keeps_the_datasets_token_count(telegram: FakeTelegram, db_path: Path):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        before = await reply_to(telegram, "/fit 8b lora dataset=20k")
        after = await reply_to(telegram, "а если ctx 8192?")
    assert title(after) == "8B · LoRA · ctx 8192 · bs 1"

    def plan_hours(answer: str) -> str:
        first = next(line for line in answer.splitlines() if line.startswith("1. "))
        return first.split(" · ")[2]  # «~1,2–2,4 ч ≈ …»: the same data, the same hours

    # The same 20 000 examples of the same assumed length: a longer cap does not make the
    # data longer (it did: ×5.5 the tokens, and the cost with them).
    assert plan_hours(after).split(" ≈ ")[0] == plan_hours(before).split(" ≈ ")[0]
