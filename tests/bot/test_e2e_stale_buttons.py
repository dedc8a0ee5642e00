"""Every button press is answered: a stale, foreign or malformed one gets a short toast in the
person's language, so the client's spinner stops (Telegram shows it until answerCallbackQuery)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.conftest import CHAT, running_app
from tests.fakes.telegram import FakeTelegram

# Callback data no current button carries: a stranger's bot, a release's old format, a
# malformed payload of each prefix the bot uses, and one too short to mean anything.
PRESSES = [
    "",
    "hello",
    "m:nosuchitem",
    "s:nosuchaction",
    "f",
    "p:notapage",
    "w",
    "u:pause:notanumber",
    "u:pause:999999",  # a subscription that is gone (or another chat's)
    "u:delete:999999",
    "v:x:y:notanumber:1",
    "d:ru:1",
    "d:xx:1:nosuchcommand",
    "q:ru",
    "j:ru:nosuchsizing:1000",
    "a:zz",
    "zzz:1:2:3",
]


# Data no handler's filter reads at all: the fallback's toast.
UNKNOWN = ("", "hello", "zzz:1:2:3", "f", "w")
STALE = {
    "ru": "Эта кнопка устарела — отправьте команду заново.",
    "en": "This button is out of date — send the command again.",
}


@pytest.mark.parametrize("language", ["ru", "en"])
async def test_every_press_of_a_stale_or_malformed_button_is_answered(
    telegram: FakeTelegram, db_path: Path, language: str
):
    async with running_app(telegram, db_path, handle_as_tasks=False):
        await telegram.wait_confirmed(telegram.push_message(CHAT, "/start", language_code=language))
        menu = telegram.last_message(CHAT)
        for data in PRESSES:
            after = telegram.mark()
            await telegram.wait_confirmed(
                telegram.push_callback(CHAT, menu.message_id, data, language_code=language)
            )
            answers = [c for c in telegram.calls[after:] if c.method == "answerCallbackQuery"]
            assert len(answers) == 1, f"{data!r}: {len(answers)} answers"
            if data in UNKNOWN:
                assert answers[0].params.get("text") == STALE[language], data
