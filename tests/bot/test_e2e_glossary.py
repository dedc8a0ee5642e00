"""«Что такое QLoRA?» through the fake Bot API: the term explained in the person's language,
also in the middle of a conversation, where a what-if about the same word stays a change."""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import running_app
from tests.bot.test_e2e_fit import reply_to
from tests.fakes.telegram import FakeTelegram


async def test_a_term_is_explained_and_a_what_if_still_changes_the_run(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        alone = await reply_to(telegram, "что такое qlora?")
        await reply_to(telegram, "хочу 8b lora на 4090")
        explained = await reply_to(telegram, "what is fsdp?")
        changed = await reply_to(telegram, "what about fsdp on two?")
    assert alone.startswith("QLoRA — та же LoRA")
    assert "/fit 70b qlora" in alone
    assert explained.startswith("FSDP and DeepSpeed ZeRO-3 split")
    assert "2× GPU (fsdp)" in changed.splitlines()[0]
