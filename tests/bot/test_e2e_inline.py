"""Inline mode through the real bot and a fake Bot API: "@bot h100", "@bot 13b qlora", hints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.fake_telegram.html import parse_telegram_html_entities
from bot.routers.inline import CACHE_S, MAX_OFFERS
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_prices import seed
from tests.bot.test_e2e_watch import reply
from tests.fakes.telegram import FakeTelegram
from tests.polling import eventually

USER = 4242  # writes inline from some group, never opened the bot


async def ask_inline(
    telegram: FakeTelegram, query: str, *, user: int = USER, language_code: str = "ru"
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    query_id = telegram.push_inline_query(user, query, language_code=language_code)

    async def answered() -> bool:
        return telegram.inline_answer(query_id).results is not None

    await eventually(answered)
    pushed = telegram.inline_answer(query_id)
    assert pushed.results is not None
    assert pushed.answer is not None
    return pushed.results, pushed.answer


def sent_text(result: dict[str, Any]) -> str:
    """What the chat would show once the user picks the result."""
    return parse_telegram_html_entities(result["input_message_content"]["message_text"]).text


async def test_a_gpu_lists_the_best_live_offers_rentable_first(
    telegram: FakeTelegram, db_path: Path
):
    await seed(db_path)
    async with running_app(telegram, db_path):
        results, answer = await ask_inline(telegram, "h100")
    assert 1 <= len(results) <= MAX_OFFERS
    titles = [result["title"] for result in results]
    assert all("H100" in title for title in titles)
    # 300 ₽ a GPU-hour in stock leads; 7 hourly H100s and the monthly 8× are all H100.
    assert titles[0].startswith("H100 SXM ×1 · 300 ₽/ч за GPU")
    assert "Selectel" in results[0]["description"]
    assert "в наличии" in results[0]["description"]
    assert "300" in sent_text(results[0])
    assert all(
        r["reply_markup"]["inline_keyboard"][0][0]["url"].startswith("https://t.me/")
        for r in results
    )
    assert answer["cache_time"] == str(CACHE_S)
    assert answer["is_personal"] == "true"


async def test_a_sizing_question_gives_the_short_answer_ready_to_send(
    telegram: FakeTelegram, db_path: Path
):
    await seed(db_path)
    async with running_app(telegram, db_path):
        results, _ = await ask_inline(telegram, "13b qlora ctx=4096")
        fit = await reply(telegram, "/fit 13b qlora ctx=4096")
    [result] = results
    assert "QLoRA" in result["title"]
    # The very answer /fit gives, at the same live prices.
    assert sent_text(result) == fit


async def test_nothing_typed_or_nothing_found_or_garbage_gets_a_hint_not_silence(
    telegram: FakeTelegram, db_path: Path
):
    await seed(db_path)
    async with running_app(telegram, db_path):
        empty, _ = await ask_inline(telegram, "")
        none, _ = await ask_inline(telegram, "b200")
        bad, _ = await ask_inline(telegram, "h100 max=дёшево")
        long, _ = await ask_inline(telegram, "h100 " * 60)
    assert [r["title"] for r in empty] == ["Напишите GPU или задачу"]
    assert "13b qlora" in sent_text(empty[0])
    assert none[0]["title"] == "Сейчас ничего не подходит"
    assert bad[0]["title"] == "Не понял запрос"
    assert "256" in long[0]["title"]


async def test_a_user_who_chose_english_gets_english_inline(telegram: FakeTelegram, db_path: Path):
    await seed(db_path)
    async with running_app(telegram, db_path):
        assert "English" in await reply(telegram, "/settings lang en")
        results, _ = await ask_inline(telegram, "", user=CHAT, language_code="ru")
    assert results[0]["title"] == "Type a GPU or a job"


async def test_a_market_question_lists_offers_and_a_hint_speaks_russian_with_a_way_back(
    telegram: FakeTelegram, db_path: Path
):
    await seed(db_path)
    async with running_app(telegram, db_path):
        question, _ = await ask_inline(telegram, "где дешевле h100?")
        plain, _ = await ask_inline(telegram, "h100")
        (bad,) = (await ask_inline(telegram, "h100 max=дёшево"))[0]
        (english,) = (await ask_inline(telegram, "h100 max=cheap", language_code="en"))[0]
    assert [r["title"] for r in question] == [r["title"] for r in plain]
    assert bad["description"] == "Не понял «max=дёшево». Например: h100 max=300 или 13b qlora"
    assert english["description"].startswith("Could not read “max=cheap”")
    for hint in (bad, english):
        assert hint["reply_markup"]["inline_keyboard"][0][0]["url"].startswith("https://t.me/")
