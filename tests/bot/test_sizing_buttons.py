"""The sizing buttons carry what was stated (estimator.stated_codec) within Telegram's 64
bytes, and a press reads back the run the answer was about; a run too long for a button is
carried by reference; a button sent before the typed texts (a /fit command) still opens."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiogram.types import InlineKeyboardMarkup

from bot.button_data import FitDetailsCallback
from bot.views.sizing_reply import BY_REFERENCE, answer_keyboard, details_button, refers_to
from estimator.fit_words import command_for
from estimator.i18n import translator
from estimator.stated_codec import is_typed, sizing
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_fit import reply_to, seed_prices
from tests.estimator.test_stated_codec import RUNS, answers, read
from tests.fakes.telegram import FakeTelegram

CALLBACK_LIMIT = 64


@pytest.mark.parametrize("run", RUNS.values(), ids=list(RUNS))
def test_a_details_button_opens_the_run_it_is_under(run: str):
    parsed = read(run)
    packed = details_button(parsed, "ru", full=False).pack()
    assert len(packed.encode()) <= CALLBACK_LIMIT
    carried = FitDetailsCallback.unpack(packed).run
    if carried.startswith(BY_REFERENCE):
        assert refers_to(parsed, carried[len(BY_REFERENCE) :])
        return
    assert answers(sizing(carried)) == answers(parsed)


def test_a_run_with_many_settings_goes_by_reference():
    parsed = read(RUNS["many settings"])
    carried = details_button(parsed, "ru", full=False).run
    assert carried.startswith(BY_REFERENCE)


def test_each_other_method_button_sizes_that_method():
    parsed = read("13b dataset=20k")
    keyboard = answer_keyboard(parsed, translator("en"), "en")
    assert isinstance(keyboard, InlineKeyboardMarkup)
    runs = {
        row[0].text: FitDetailsCallback.unpack(str(row[0].callback_data)).run
        for row in keyboard.inline_keyboard
        if str(row[0].callback_data).startswith("d:")
    }
    others = [run for run in runs.values() if is_typed(run)][1:]
    assert [answers(sizing(run)) for run in others] == [
        answers(read("13b lora dataset=20k")),
        answers(read("13b full dataset=20k")),
    ]


async def test_a_button_sent_before_the_typed_texts_still_opens(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    run = "13b qlora ctx=4096 dataset=20k"
    async with running_app(telegram, db_path):
        await reply_to(telegram, f"/fit {run}")
        answer = telegram.last_message(CHAT)
        first = telegram.mark()
        telegram.press(CHAT, "Подробнее")
        details = (await telegram.wait_for_call("editMessageText", after=first)).params["text"]
        # The button as a release before this one packed it: the /fit command of the run.
        old = FitDetailsCallback(lang="ru", full=1, run=command_for(read(run))).pack()
        after = telegram.mark()
        telegram.push_callback(CHAT, answer.message_id, old)
        edit = await telegram.wait_for_call("editMessageText", after=after)
    # The same text and buttons: Telegram refuses the edit as "not modified".
    assert edit.params["text"] == details
    assert "not modified" in (edit.description or "")
