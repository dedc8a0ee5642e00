"""/fit, its button wizard and free-text sizing questions, through the real polling bot."""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import CHAT, running_app
from tests.fakes.telegram import FakeTelegram


async def reply_to(telegram: FakeTelegram, text: str, **user: object) -> str:
    after = telegram.mark()
    telegram.push_message(CHAT, text, **user)  # type: ignore[arg-type]
    call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.ok, call.description
    return str(call.result["text"])


async def press(telegram: FakeTelegram, label: str) -> str:
    after = telegram.mark()
    telegram.press(CHAT, label)
    edit = await telegram.wait_for_call("editMessageText", after=after)
    assert edit.ok, edit.description
    return str(edit.result["text"])


async def test_fit_command_answers_with_breakdown_table_and_details(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit 13b qlora ctx=4096")
        sent = telegram.last_message(CHAT)
    assert text.startswith("Llama-2-13B · QLoRA · ctx 4096 · bs 1")
    assert "Размер 13B — считаю на архитектуре Llama-2-13B." in text
    assert "Пик видеопамяти:" in text
    assert "Какие GPU подойдут" in text
    assert "✅ RTX 4090" in text
    assert "Разбивка на GPU: веса" in text
    assert "Цены: ещё не загружены" in text
    assert "<blockquote expandable>" in sent.text  # details fold away in the client
    assert len(text) <= 4096


async def test_free_text_question_in_russian_names_the_gpu_first(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "хватит ли 4090 для 13b qlora на 4k контексте?")
    assert "ctx 4096" in text
    lines = text.splitlines()
    assert lines[3].startswith("✅ RTX 4090: помещается")


async def test_english_user_gets_an_english_answer(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "70B full fine-tune on 8x H100", language_code="en")
    assert "Peak VRAM" in text
    assert "8× GPU (zero3)" in text
    assert "How to use less memory" in text


async def test_wizard_walks_size_method_ctx_then_answers(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        assert await reply_to(telegram, "/fit") == "🧮 Какого размера модель?"
        assert (await press(telegram, "7–8B")).startswith("Модель 8b. Как дообучаем?")
        assert (await press(telegram, "LoRA")).startswith("Какая длина контекста")
        answer = await press(telegram, "8k")
    assert answer.startswith("Llama-3.1-8B · LoRA · ctx 8192 · bs 1")
    assert "Пик видеопамяти" in answer


async def test_menu_button_opens_the_wizard(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/start")
        assert await press(telegram, "🧮 Подобрать GPU") == "🧮 Какого размера модель?"


async def test_bad_queries_get_a_clear_answer(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        bad_value = await reply_to(telegram, "/fit 13b qlora ctx=<много>")
        no_model = await reply_to(telegram, "/fit qlora ctx=4096")
        bad_gpu = await reply_to(telegram, "/fit 13b qlora gpu=voodoo5")
        too_long = await reply_to(telegram, "/fit " + "13b " * 100)
        # A forged wizard button must not crash anything.
        await reply_to(telegram, "/fit")
        menu = telegram.last_message(CHAT)
        after = telegram.mark()
        telegram.push_callback(CHAT, menu.message_id, "f:999999b:qlora:4096")
        forged = await telegram.wait_for_call("editMessageText", after=after)
    assert "ctx=<много>" in bad_value
    assert "Не понял значение" in bad_value
    assert "Не вижу модели или размера" in no_model
    assert "voodoo5" in bad_gpu
    assert "Слишком длинный запрос" in too_long
    assert forged.ok
    assert "Пик видеопамяти" not in forged.result["text"]


async def test_text_that_is_not_a_sizing_question_gets_help(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "сколько стоит h100?")
    assert "Не понял вопроса" in text
