"""Replies to a sizing answer, through the real polling bot: each adjusts the last sizing
(«а с qlora?», «а на 2080 ti?», `dataset=20k`...), in the user's language, until the memory
expires. Texts with no words («?», «👍», «550») are answered in the user's language."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from monitor.sizing_memory import REMEMBER_FOR
from tests.bot.conftest import running_app
from tests.bot.test_e2e_fit import press, reply_to, seed_prices
from tests.estimator.test_followup import suggested_replies
from tests.fakes.telegram import FakeTelegram

FIT = "/fit 13b lora ctx=4096"


def is_sizing(answer: str) -> bool:
    """Every sizing answer names the peak; nothing else does."""
    return "Пик" in answer or "Peak" in answer


async def reply_in(telegram: FakeTelegram, chat: int, text: str, language_code: str) -> str:
    """`reply_to` from another chat, whose user's Telegram speaks `language_code`."""
    after = telegram.mark()
    telegram.push_message(chat, text, language_code=language_code)
    call = await telegram.wait_for_call(
        "sendMessage", after=after, predicate=lambda c: c.params.get("chat_id") == str(chat)
    )
    assert call.ok, call.description
    return str(call.result["text"])


def title(answer: str) -> str:
    return answer.splitlines()[0]


def budget_line(answer: str) -> str:
    return next(line for line in answer.splitlines() if line.startswith("💰"))


async def test_each_follow_up_adjusts_the_answer_before(telegram: FakeTelegram, db_path: Path):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        first = await reply_to(telegram, FIT)
        qlora = await reply_to(telegram, "а с qlora?")
        on_2080 = await reply_to(telegram, "а на 2080 ti?")
        dataset = await reply_to(telegram, "датасет 20к примеров")
        four = await reply_to(telegram, "а если взять 4 карты?")
        budget = await reply_to(telegram, "уложусь в 1000 ₽?")
        context = await reply_to(telegram, "а с контекстом 8к")
        bigger = await reply_to(telegram, "а для 70b?")
    assert title(first) == "13B · LoRA · ctx 4096 · bs 1"
    assert title(qlora) == "13B · QLoRA · ctx 4096 · bs 1"
    # Each reply changes the answer before it: the changes add up.
    assert title(on_2080) == title(qlora)
    assert "RTX 2080 Ti" in on_2080.splitlines()[2]
    assert "Время и сумма — если дать датасет" in on_2080
    assert "Время и сумма — если дать датасет" not in dataset
    assert "RTX 2080 Ti" in dataset
    assert "4× RTX 2080 Ti" in four
    assert title(four) == "13B · QLoRA · ctx 4096 · bs 1 · 4× GPU (ddp)"
    # The budget is weighed against every offer that holds the run (the four cards are the
    # run's count, not a filter on the offers).
    assert budget_line(budget).startswith("💰 В 1\u202f000 ₽ ")
    assert title(context) == "13B · QLoRA · ctx 8192 · bs 1 · 4× GPU (ddp)"
    assert title(bigger).startswith("70B · QLoRA · ctx 8192")
    assert "1\u202f000 ₽" in budget_line(bigger)  # the budget stays


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("и на h100", "H100 PCIe"),
        ("а если full?", "13B · full · ctx 4096"),
        ("на 8 картах", "8× GPU"),
        ("ctx=16k", "ctx 16384"),
        ("а если 2x4090?", "2× RTX 4090"),
        ("what about 34b?", "34B · LoRA"),
        ("бюджет 5000 руб", "💰 На 5\u202f000 ₽ — ~"),
    ],
)
async def test_follow_ups_in_other_words(
    telegram: FakeTelegram, db_path: Path, reply: str, expected: str
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        await reply_to(telegram, FIT)
        answer = await reply_to(telegram, reply)
    assert expected in answer
    assert is_sizing(answer)


async def test_counts_in_words_a_stack_and_a_question_of_time_follow_up(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        first = await reply_to(telegram, "фулл файнтюн llama 3 8b")
        eight = await reply_to(telegram, "а на 8 h100?")
        two = await reply_to(telegram, "а на четырёх h100?")
        unsloth = await reply_to(telegram, "а через unsloth?")
        timed = await reply_to(telegram, "сколько это займёт по времени если датасет 20к примеров?")
    assert is_sizing(first)
    for answer in (eight, two, unsloth, timed):
        assert is_sizing(answer), answer
        assert " · full · " in title(answer), answer
    assert "8× H100" in eight
    assert "4× H100" in two
    assert "4× H100" in unsloth
    assert "с Unsloth" in unsloth
    assert "с Unsloth" in timed  # each change stays for the next reply
    assert "4× H100" in timed
    # The time asked, as the range the time model's error allows.
    assert re.search(r"4× H100 PCIe — запас [\d,]+ ГиБ · ~[\d,]+–[\d,]+ (мин|ч)", timed)


@pytest.mark.parametrize(
    "question",
    [
        "сколько это займёт по времени если датасет 20к примеров?",
        "how long would 3 epochs of 50k samples take?",
    ],
)
async def test_a_question_of_time_is_answered_with_time_and_cost(
    telegram: FakeTelegram, db_path: Path, question: str
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        first = await reply_to(telegram, "/fit llama 3 8b lora")
        answer = await reply_to(telegram, question)
    assert "Время и сумма — если дать датасет" in first
    assert title(answer) == title(first)
    # Each offer now has the run's time and what it costs: «~2,8–4,1 ч ≈ 233–341 ₽».
    assert re.search(r"· ~[\d,.–]+ \S+ ≈ [\d\u202f\u00a0 ,–]+ ₽", answer), answer


async def test_the_reply_the_answer_suggests_works_and_in_russian(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        first = await reply_to(telegram, FIT)
        pair = await reply_to(telegram, "dataset=20k")
        await reply_to(telegram, FIT)
        words = await reply_to(telegram, "датасет 2 гб текста")
    assert "dataset=20k или «датасет 2 гб текста»" in first  # what the answer suggests
    for answer in (pair, words):
        assert title(answer) == "13B · LoRA · ctx 4096 · bs 1"
        assert "Пик видеопамяти" in answer or "Пик:" in answer  # Russian, not English
        assert "Время и сумма — если дать датасет" not in answer


BOT_LOCALES = Path(__file__).resolve().parents[2] / "estimator" / "locales"
_CODE = re.compile(r"<code>([^<]+)</code>")
_QUOTED = re.compile(r"[«“]([^»”]+)[»”]")


def bot_suggested_replies() -> list[str]:
    """The key=value replies the bot's own sizing texts suggest (`gpu=4090` after an
    unknown card), with no placeholder left to fill."""
    found: set[str] = set()
    for path in BOT_LOCALES.glob("*/*.ftl"):
        for line in path.read_text("utf-8").splitlines():
            if line.startswith("fit"):
                found |= {
                    hint
                    for hint in _CODE.findall(line)
                    if "=" in hint and not hint.startswith("/") and "{" not in hint
                }
    return sorted(found)


def suggested_questions() -> list[str]:
    """The questions the bot suggests asking in words («где дешевле h100?»): questions of
    their own, never a change of the last answer."""
    found: set[str] = set()
    for path in BOT_LOCALES.glob("*/*.ftl"):
        for line in path.read_text("utf-8").splitlines():
            if line.startswith("#"):
                continue  # a translator's comment quotes what people write, not a suggestion
            found |= {hint.replace("{ $gpu }", "h100") for hint in _QUOTED.findall(line)}
    return sorted(hint for hint in found if hint.endswith("?") and "{" not in hint)


def test_the_bot_suggests_replies_and_questions():
    assert {"gpu=4090", "gpu=a100-80", "gpu=h100"} <= set(bot_suggested_replies())
    assert {"где дешевле h100?", "почасовая или помесячная?"} <= set(suggested_questions())


@pytest.mark.parametrize("reply", suggested_replies() + bot_suggested_replies())
async def test_every_suggested_reply_is_answered_as_a_follow_up(
    telegram: FakeTelegram, db_path: Path, reply: str
):
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/fit 13b full ctx=4096 gc=off bs=4")
        answer = await reply_to(telegram, reply)
    assert is_sizing(answer), reply
    assert title(answer).startswith("13B · "), reply


@pytest.mark.parametrize("question", suggested_questions())
async def test_every_suggested_question_is_answered_as_itself(
    telegram: FakeTelegram, db_path: Path, question: str
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/fit 13b qlora ctx=4096 dataset=20k")
        answer = await reply_to(telegram, question)
    if "llama 3 8b" in question:  # a sizing question of its own: asked anew
        assert title(answer).startswith(("Llama-3.1-8B · LoRA · ctx 8192", "8B · LoRA · ctx 8192"))
        assert "dataset=20k" in answer  # the hint to give a dataset: it has none
    else:
        assert not is_sizing(answer), question


async def test_an_english_conversation_continues_in_english(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        await reply_to(telegram, "does 13b qlora fit on a 4090 with 4k context?")
        pair = await reply_to(telegram, "dataset=20k")
        words = await reply_to(telegram, "what about 8 gpus?")
    assert "Peak" in pair
    assert "Пик" not in pair
    assert "8× GPU" in words
    assert "Peak" in words


async def test_a_free_question_and_the_wizard_are_remembered_too(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        await reply_to(telegram, "хватит ли 4090 для 13b qlora на 4k контексте?")
        card = await reply_to(telegram, "а на 2080 ti?")
        await reply_to(telegram, "/fit")
        await press(telegram, "7–8B")
        await press(telegram, "LoRA")
        await press(telegram, "8k")
        method = await reply_to(telegram, "а с qlora?")
    assert title(card) == "13B · QLoRA · ctx 4096 · bs 1"
    assert "RTX 2080 Ti" in card
    assert title(method) == "8B · QLoRA · ctx 8192 · bs 1"


async def test_a_wrong_pair_is_explained_in_the_users_language(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        await reply_to(telegram, FIT)
        bad = await reply_to(telegram, "ctx=abc")
        typo = await reply_to(telegram, "cxt=8192")
    assert "Не понял значение" in bad
    assert "Не знаю параметр cxt — может быть, ctx?" in typo


async def test_other_questions_after_an_answer_are_not_taken_as_follow_ups(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/fit 13b qlora ctx=4096 dataset=20k")
        cheaper = await reply_to(telegram, "где дешевле h100?")
        fresh = await reply_to(telegram, "13b lora")  # names a model: a new question
    assert cheaper.startswith("H100 дешевле всего сейчас")
    assert title(fresh) == "13B · LoRA · ctx 2048 · bs 1"  # not 4096, not 20k examples
    assert "Время и сумма — если дать датасет" in fresh


async def test_an_expired_memory_is_not_used(telegram: FakeTelegram, db_path: Path):
    now = [datetime(2026, 12, 2, 9, 0, tzinfo=UTC)]
    async with running_app(telegram, db_path, wall_clock=lambda: now[0]):
        await reply_to(telegram, FIT)
        now[0] += REMEMBER_FOR - timedelta(minutes=1)
        kept = await reply_to(telegram, "а с qlora?")  # remembered anew at this moment
        now[0] += REMEMBER_FOR + timedelta(seconds=1)
        expired = await reply_to(telegram, "а с qlora?")
    assert title(kept) == "13B · QLoRA · ctx 4096 · bs 1"
    assert not is_sizing(expired)


async def test_without_an_answer_before_a_follow_up_is_not_a_sizing(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        answer = await reply_to(telegram, "а с qlora?")
    assert not is_sizing(answer)
    assert "/fit" in answer


@pytest.mark.parametrize("text", ["?", "👍", "550", "dataset=20k"])
async def test_texts_without_words_are_answered_in_the_users_language(
    telegram: FakeTelegram, db_path: Path, text: str
):
    async with running_app(telegram, db_path):
        russian = await reply_in(telegram, 601, text, "ru")  # no sizing to follow up
        english = await reply_in(telegram, 602, text, "en")
        await reply_in(telegram, 603, "/fit 13b qlora", "ru")
        followed = await reply_in(telegram, 603, text, "ru")  # after an answer
    assert "/fit" in russian
    for answer in (russian, followed):
        assert any("а" <= char <= "я" for char in answer.lower()), answer
    assert not any("а" <= char <= "я" for char in english.lower()), english


async def test_the_memory_outlives_the_process(telegram: FakeTelegram, db_path: Path):
    """Kept in the database, not in the process: a restart (or another replica on the same
    PostgreSQL, tests/storage/test_conversations.py) reads it."""
    async with running_app(telegram, db_path):
        await reply_to(telegram, FIT)
    async with running_app(telegram, db_path):
        answer = await reply_to(telegram, "а с qlora?")
    assert title(answer) == "13B · QLoRA · ctx 4096 · bs 1"
