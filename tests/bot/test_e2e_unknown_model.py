"""A sizing question about a model the catalog lacks, through the real polling bot: it is
answered in the question's language, names the model as written, offers its config.json and
the /fit example by the size written in its name (a placeholder when none is); price
questions about the same card still get the price list."""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import running_app
from tests.bot.test_e2e_fit import reply_to, seed_prices
from tests.fakes.telegram import FakeTelegram


async def test_an_unknown_model_in_a_question_is_named_not_dropped(
    telegram: FakeTelegram, db_path: Path
) -> None:
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        russian = await reply_to(telegram, "deepseek v2 lite qlora на 4090 пойдёт?")
        english = await reply_to(telegram, "will deepseek v2 lite fit on a 4090 with qlora?")
        prices = await reply_to(telegram, "сколько стоит 4090?")
    assert "deepseek v2 lite" in russian
    assert "нет в моём каталоге" in russian
    assert "config.json" in russian
    assert "/fit Nb qlora" in russian  # no size in the text: none is guessed
    assert "deepseek v2 lite" in english
    assert "not in my model catalogue" in english
    assert "config.json" in english
    assert "каталог" not in prices
    assert "4090" in prices


async def test_fit_with_an_unknown_model_names_it(telegram: FakeTelegram, db_path: Path) -> None:
    async with running_app(telegram, db_path):
        moe = await reply_to(telegram, "/fit qwen1.5-moe-a2.7b lora")
        sized = await reply_to(telegram, "/fit allenai/OLMo-2-1124-7B qlora ctx=4k")
    assert "qwen1.5-moe-a2.7b" in moe
    assert "Не понял запрос" not in moe
    assert "/fit Nb lora" in moe  # "a2.7b" is its active size, not its total
    assert "allenai/OLMo-2-1124-7B" in sized
    assert "/fit 7b qlora" in sized  # the size written in its name


async def test_after_a_sizing_an_unknown_model_is_not_read_as_a_follow_up(
    telegram: FakeTelegram, db_path: Path
) -> None:
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        first = await reply_to(telegram, "влезет ли llama 3 8b на 4090 с лорой?")
        unknown = await reply_to(telegram, "а deepseek v2 lite qlora на 4090 пойдёт?")
    assert first.startswith("Llama-3.1-8B")
    assert "«deepseek v2 lite»" in unknown
    assert "Llama-3.1-8B" not in unknown
