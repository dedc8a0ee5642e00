"""A LoRA's «Подробнее» shows its gradients and optimizer state as non-zero."""

from __future__ import annotations

import re
from pathlib import Path

from tests.bot.conftest import CHAT, running_app
from tests.fakes.telegram import FakeTelegram


async def details_of(telegram: FakeTelegram, question: str) -> str:
    after = telegram.mark()
    telegram.push_message(CHAT, question)
    await telegram.wait_for_call("sendMessage", after=after)
    after = telegram.mark()
    telegram.press(CHAT, "Подробнее")
    edit = await telegram.wait_for_call("editMessageText", after=after)
    assert edit.ok, edit.description
    return str(edit.result["text"])


def part(text: str, name: str) -> float:
    found = re.search(rf"{name} (\d+[.,]\d+)", text)  # Russian: a decimal comma
    assert found is not None, text
    return float(found.group(1).replace(",", "."))


async def test_lora_breakdown_reads_non_zero_in_russian(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        details = await details_of(telegram, "/fit llama 3.2 1b lora rank=8")
    assert "оптимизатор 0,0 " not in details
    assert part(details, "оптимизатор") > 0
    assert part(details, "градиенты") > 0
    # AdamW's two fp32 moments are twice the fp32 gradient.
    assert part(details, "оптимизатор") == 2 * part(details, "градиенты")
