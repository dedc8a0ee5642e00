"""A person's own measured speed: «у меня 2,1 с/шаг на 4090 при bs 4», "I get 3 100 tok/s on
an A100". The message is read by estimator.measurement and set against the time model for the
run it measured: the run the message names, else the chat's last sizing (bot.conversation).
The ratio is stored for that user (storage/schema/0020) and scales the times of their later
answers (`bot.sizing.measured_speed`), which say so.

Garbage gets a short answer in the message's language: a speed with no run to set it against
asks for the run; one more than five times off the model names what to check.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from aiogram import F, Router
from aiogram.filters import Filter
from aiogram.types import Message

from bot.conversation import Conversations
from bot.ports import BotStore
from estimator.fit_words import command_for
from estimator.i18n import Translator
from estimator.measurement import (
    MOST_OFF,
    SpeedReading,
    measure,
    measured_query,
    read_speed,
)
from estimator.parse import ParsedQuery, QueryError, parse_question
from estimator.parsing.language import reply_language
from estimator.step import sequence
from monitor.speed_measurements import StoredSpeed
from monitor.users import User

# Longer texts are questions, not a measurement pasted in passing.
MAX_LENGTH = 300


class SpeedText(Filter):
    """A message that states a training speed with its unit and the card it was measured on."""

    async def __call__(self, message: Message) -> bool | dict[str, Any]:
        text = message.text or ""
        if not text or text.startswith("/") or len(text) > MAX_LENGTH:
            return False
        reading = read_speed(text)
        return False if reading is None else {"reading": reading}


def create_router() -> Router:
    router = Router(name="measurement")
    router.message.register(on_speed, F.text, SpeedText())
    return router


async def _run(rest: str, chat: int, conversations: Conversations) -> ParsedQuery | None:
    """The run measured: the one the message names beside its speed, else the chat's last."""
    try:
        named = parse_question(rest)
    except QueryError:
        named = None
    if named is not None:
        return named
    last = await conversations.last(chat)
    return None if last is None else last[0]


async def on_speed(
    message: Message,
    reading: SpeedReading,
    i18n: Translator,
    translators: dict[str, Translator],
    user: User,
    store: BotStore,
    conversations: Conversations,
) -> None:
    text = message.text or ""
    local = translators.get(reply_language(text, user.language), i18n)
    parsed = await _run(reading.rest, message.chat.id, conversations)
    if parsed is None:
        await message.answer(local("speed-no-run", words=reading.words, gpu=reading.gpu_id))
        return
    run = measured_query(reading, parsed.query)
    measurement = measure(reading, parsed.query, parsed.model, command_for(parsed))
    shown = {
        "words": reading.words,
        "count": str(reading.gpus),
        "gpu": reading.gpu_id,
        "model": parsed.model.id,
        "bs": str(run.micro_batch),
        "tokens": str(sequence(run)),
        "tps": f"{measurement.tokens_per_second:,.0f}".replace(",", "\u202f"),
        "predicted": f"{measurement.predicted:,.0f}".replace(",", "\u202f"),
        "ratio": f"{measurement.factor:.2f}",
    }
    if not measurement.plausible:
        await message.answer(local("speed-implausible", most=f"{MOST_OFF:g}", **shown))
        return
    user_id = message.from_user.id if message.from_user else message.chat.id
    stored = StoredSpeed(
        reading.gpu_id,
        reading.gpus,
        measurement.tokens_per_second,
        measurement.predicted,
        measurement.run,
        datetime.now(UTC),
    )
    await store.save_speed(user_id, stored)
    await message.answer(local("speed-saved", **shown))
