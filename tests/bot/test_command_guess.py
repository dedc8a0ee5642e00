"""A mistyped command's nearest known command (pure) and its reply through the real bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.command_guess import command_name, guess_command
from tests.bot.conftest import CHAT, running_app
from tests.fakes.telegram import FakeTelegram


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("/prises", "prices"), ("/pirces", "prices"), ("/wacth", "watch"), ("/fitt", "fit")],
)
def test_a_typo_names_the_command_it_was_meant_to_be(typed: str, meant: str) -> None:
    assert guess_command(typed) == meant


@pytest.mark.parametrize("typed", ["/frobnicate", "/xyz", "/admin", "/prices", "/"])
def test_unknown_or_known_commands_guess_nothing(typed: str) -> None:
    assert guess_command(typed) is None


def test_the_bot_name_and_arguments_are_not_part_of_the_name() -> None:
    assert command_name("/Prises@gpuradar_bot 80gb") == "prises"
    assert guess_command("/Prises@gpuradar_bot 80gb") == "prices"


async def send(telegram: FakeTelegram, text: str, **user: object) -> str:
    after = telegram.mark()
    telegram.push_message(CHAT, text, **user)  # type: ignore[arg-type]
    call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.ok, call.description
    return str(call.result["text"])


async def test_typos_get_the_nearest_command_in_russian(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        prises = await send(telegram, "/prises h100")
        wacth = await send(telegram, "/wacth")
        unknown = await send(telegram, "/frobnicate")
    assert "Может, /prices?" in prises
    assert "Может, /watch?" in wacth
    assert unknown == "Не знаю команду /frobnicate. Список команд — /help."


async def test_typos_get_the_nearest_command_in_english(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        fitt = await send(telegram, "/fitt 70b", language_code="en")
        unknown = await send(telegram, "/frobnicate")
    assert "Did you mean /fit?" in fitt
    assert unknown.startswith("I don't know the command /frobnicate.")
