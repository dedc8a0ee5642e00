"""Cards and models as people name them, through the real polling bot: every card
the providers list and its common spellings, an unknown card named as unknown, and one short
question with buttons where two readings of a bare size or a family give different verdicts.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from monitor.scrape import ScrapeResult
from storage import Store
from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_fit import press, reply_to
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram


def labels(telegram: FakeTelegram) -> list[str]:
    return [button.text for button in telegram.last_message(CHAT).buttons()]


async def press_starting(telegram: FakeTelegram, prefix: str) -> str:
    """Press the last message's button whose label starts with `prefix` (labels carry
    figures: «Qwen2.5-14B — пик 21,7 ГиБ»)."""
    found = [n for n, label in enumerate(labels(telegram)) if label.startswith(prefix)]
    assert len(found) == 1, (prefix, labels(telegram))
    return await press(telegram, found[0])  # type: ignore[arg-type]


async def answer_alone(telegram: FakeTelegram, db_path: Path, question: str) -> str:
    """The bot's answer to one message in a fresh chat."""
    async with running_app(telegram, db_path):
        return await reply_to(telegram, question)


def peak(answer: str) -> float:
    line = next(line for line in answer.splitlines() if line.startswith("Пик"))
    return float(line.split("Пик: ")[1].split(" ГиБ")[0].replace(",", "."))


async def test_a_bare_14b_asks_which_model_and_each_button_sizes_it(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        question = await reply_to(telegram, "/fit 14b qlora ctx=4096")
        buttons = labels(telegram)
        qwen = await press_starting(telegram, "Qwen2.5-14B")
        again = await reply_to(telegram, "сколько памяти нужно для 14b с qlora и контекстом 4096?")
        phi = await press_starting(telegram, "Phi-4")
    # One short question, never a wall of text: a button per model people tune at 14B.
    assert question == "Модель 14B не названа, а от неё зависит ответ. Какую считать?"
    assert [label.split(" — ")[0] for label in buttons] == ["Qwen2.5-14B", "Qwen3-14B", "Phi-4"]
    assert all(" ГиБ" in label for label in buttons)  # each reading's peak on its button
    # The 14B people tune, at 4k tokens, needs more than Llama-2-13B's 12.5 GiB at 2k
    # («fits 16 GB») and more than Phi-4, whose vocabulary is two thirds of Qwen's.
    assert peak(qwen) > max(20, peak(phi))
    assert "RTX A4000" not in qwen.split("\n\n")[0]
    assert again.startswith("Модель 14B не названа")
    assert phi.startswith("Phi-4 · QLoRA")


async def test_a_chosen_reading_is_the_run_the_follow_ups_change(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/fit 14b qlora ctx=4096")
        await press_starting(telegram, "Phi-4")
        lora = await reply_to(telegram, "а с lora?")
    assert lora.startswith("Phi-4 · LoRA")  # a follow-up never asks again


async def test_a_family_asks_for_its_memory_only_when_it_changes_the_verdict(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        question = await reply_to(telegram, "/fit 34b lora gpu=a100")
        buttons = labels(telegram)
        eighty = await press_starting(telegram, "A100 80GB")
        both_fit = await reply_to(telegram, "/fit 13b qlora gpu=a100")
    assert question.startswith("A100 бывает с разной памятью")
    assert buttons == ["A100 40GB PCIe — не помещается", "A100 80GB PCIe — помещается"]
    assert "A100 80GB PCIe: " in eighty.split("\n\n")[0]
    assert "A100 80GB PCIe: на одной не" not in eighty
    # Both A100s hold a 13B QLoRA: nothing to ask, the answer comes at once.
    assert both_fit.startswith("13B · QLoRA")


@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("/fit 13b qlora gpu=3060", "RTX 3060"),
        ("/fit 13b qlora gpu=a100-80gb", "A100 80GB PCIe"),
        ("хватит ли 3060 12гб для llama 3 8b с qlora?", "RTX 3060"),
        ("хватит ли a100 80 гб для 70b qlora?", "A100 80GB PCIe"),
        ("хватит ли a100 80gb для 70b qlora?", "A100 80GB PCIe"),
        ("хватит ли h100 sxm для 13b lora?", "H100 SXM"),
        ("хватит ли rtx 4090 для 13b qlora?", "RTX 4090"),
        ("ртх 3090 потянет 13b qlora?", "RTX 3090"),
    ],
)
async def test_cards_as_people_write_them(
    telegram: FakeTelegram, db_path: Path, question: str, card: str
):
    answer = await answer_alone(telegram, db_path, question)
    verdict = answer.split("\n\n")[0]
    assert f"{card}: " in verdict, answer  # graded as that card: fits, tight or not


async def test_the_48gb_4090_a_provider_rents_is_planned(telegram: FakeTelegram, db_path: Path):
    """Selectel's «GPU RTX 4090 48GB» is a card of its own: planned as 48 GB, never as the
    24 GB card, and never what a bare «4090» means."""
    store = await Store.open(db_path)
    fetched = datetime.now(UTC) - timedelta(minutes=3)
    offers = (
        make_offer("4090", 83.0, provider="immers"),
        make_offer("4090-48", 120.0, provider="selectel", gpu="RTX 4090 48GB", vram_gb=48),
    )
    await store_snapshot(store, ScrapeResult("immers", offers[:1], fetched))
    await store_snapshot(store, ScrapeResult("selectel", offers[1:], fetched))
    await store.close()
    async with running_app(telegram, db_path):
        big = await reply_to(telegram, "хватит ли 4090 48gb для 13b lora с контекстом 8к?")
        plain = await reply_to(telegram, "хватит ли 4090 для 13b lora с контекстом 8к?")
    assert "✅ RTX 4090 48GB: помещается" in big
    assert "RTX 4090 48GB ×1 · Selectel — 120 ₽/ч" in big
    assert "❌ RTX 4090: на одной не помещается" in plain


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("хватит ли rtx 3050 для 13b qlora?", "Не знаю видеокарту «rtx 3050»"),
        ("хватит ли 5080 super для 13b qlora?", "Не знаю видеокарту «5080 super»"),
        ("13b qlora на h1000", "Не знаю видеокарту «h1000». Может быть, H100?"),
        ("/fit 13b qlora gpu=h1000", "Не знаю видеокарту «h1000». Может быть, H100?"),
    ],
)
async def test_an_unknown_card_is_named_never_swapped(
    telegram: FakeTelegram, db_path: Path, question: str, reply: str
):
    answer = await answer_alone(telegram, db_path, question)
    assert answer.startswith(reply)
    assert "Пик" not in answer  # not sized as some other card, nor without it


async def test_a_card_of_two_words_after_gpu_is_read(telegram: FakeTelegram, db_path: Path):
    answer = await answer_alone(telegram, db_path, "/fit 13b qlora gpu=rtx 4090")
    assert "RTX 4090: помещается" in answer


async def test_the_answer_says_which_model_a_bare_size_took(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/fit 14b qlora ctx=4096")
        qwen = await press_starting(telegram, "Qwen2.5-14B")
    assert "Qwen2.5-14B" in qwen.split("\n\n")[0]
