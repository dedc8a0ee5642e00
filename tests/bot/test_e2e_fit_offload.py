"""CPU offload through the real polling bot: a stated offload is shown with the host
RAM it needs and checked against the servers' published RAM; a question about it is answered
with and without it and never switches it on."""

from __future__ import annotations

from pathlib import Path

from tests.bot.conftest import running_app
from tests.bot.test_e2e_fit import PHONE, press, reply_to
from tests.bot.test_e2e_plans import h100, seed
from tests.factories import make_offer
from tests.fakes.telegram import FakeTelegram

OFFERS = [
    # The offer: a small card on a server with 32 GB of RAM.
    make_offer("a4000", 30.0, provider="immers", gpu="RTX A4000", vram_gb=16, ram_gb=32),
    h100("h100-8-1tb", 8, 2800.0, provider="immers", ram_gb=1024),
    h100("h100-8-2tb", 8, 3100.0, ram_gb=2048),
]


async def test_a_stated_offload_needs_the_host_ram_the_servers_have(
    telegram: FakeTelegram, db_path: Path
) -> None:
    await seed(db_path, OFFERS)
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit 70b full gpus=8 gpu=h100 offload=params")
        details = await press(telegram, "Подробнее")
    assert len(text) < PHONE
    lines = text.splitlines()
    assert lines[1] == "Прочитал: offload=params"  # the setting, before the verdict
    assert "🧠 offload=params: на сервере нужно ≥1,9 ТБ ОЗУ" in text
    assert "шаг оптимизатора на CPU ~42 с" in text
    best = text.split("Лучшие варианты сейчас")[1]
    assert "H100 SXM ×8 · Selectel" in best  # 2 TB of RAM
    assert "immers" not in best  # 1 TB and 32 GB: too little for 1.9 TB
    assert "CPU offload (offload=params): в ОЗУ сервера" in details


async def test_no_server_with_the_ram_is_said(telegram: FakeTelegram, db_path: Path) -> None:
    await seed(db_path, OFFERS[:2])
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit 70b full gpus=8 gpu=h100 offload=params")
    assert "мало ОЗУ для offload: нужно ≥1,9 ТБ" in text
    assert "RTX A4000" not in text


async def test_the_offload_question_is_answered_without_switching_it_on(
    telegram: FakeTelegram, db_path: Path
) -> None:
    await seed(db_path, OFFERS)
    async with running_app(telegram, db_path):
        text = await reply_to(
            telegram,
            "do we need CPU offload for a 70b full fine-tune on 8x H100?",
            language_code="en",
        )
    assert "Read: offload" not in text
    assert "does not fit" in text  # 167 GiB per GPU without offload
    assert "❓ Offload — you asked. Sized without offload." in text
    assert "the server needs ≥1.7 TB of RAM" in text
    assert "RTX A4000" not in text
