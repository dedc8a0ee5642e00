"""The answer shows what it read and what a lever costs, in Russian and English: a question
about offload is answered with and without it, the run's own offload with its host RAM."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.fake_telegram.html import parse_telegram_html, utf16_len
from estimator.answer import FitAnswer, build_answer
from estimator.cost import PriceQuote
from estimator.gpus import load_gpus
from estimator.parse import parse_command
from estimator.sizing_text import render_details, render_short

OFFLOAD_QUESTION = "70b full gpus=8 gpu=h100"
QUOTES = [
    # The offer: a small card on a server with 32 GB of RAM.
    PriceQuote("RTX A4000", 1, "immers.cloud", 30.0, None, ram_gb=32),
    PriceQuote("H100 SXM", 8, "immers.cloud", 2800.0, None, ram_gb=1024),
    PriceQuote("H100 SXM", 8, "Selectel", 3100.0, None, ram_gb=2048),
    PriceQuote("H100 SXM", 8, "HOSTKEY", 3000.0, None),  # RAM not published
]


def answer_to(command: str, *asked: str) -> FitAnswer:
    return build_answer(replace(parse_command(command), asked_about=asked), load_gpus(), QUOTES)


def short_and_details(command: str, language: str, *asked: str) -> tuple[str, str]:
    answer = answer_to(command, *asked)
    short = parse_telegram_html(render_short(answer, language))
    assert utf16_len(short) < 900
    return short, parse_telegram_html(render_details(answer, language))


def offload_peaks(language: str, *asked: str) -> dict[str, str]:
    """The per-GPU peak of each offload way the answer sized, as the language writes it: the
    figures come from the memory model, so the texts are checked against the answer's own."""
    answer = answer_to(OFFLOAD_QUESTION, *asked)
    offload = next(c for c in answer.levers if c.lever == "offload")
    assert offload.current.peak_gib == answer.memory.peak
    comma = language == "ru"
    return {
        variant.setting: f"{variant.peak_gib:.1f}".replace(".", "," if comma else ".")
        for variant in (offload.current, *offload.others)
    }


def test_the_offload_question_in_russian() -> None:
    short, details = short_and_details(OFFLOAD_QUESTION, "ru", "offload")
    peak = offload_peaks("ru", "offload")
    assert "❌ 8× H100 PCIe (zero3): не помещается" in short  # the run as asked
    assert f"Пик видеопамяти: {peak['offload=none']} ГиБ" in short
    assert (
        f"❓ Offload — вы спросили. Считаю без offload. С offload=optimizer —"
        f" {peak['offload=optimizer']} ГиБ на GPU,"
        " помещается; на сервере нужно ≥1,7 ТБ ОЗУ, шаг оптимизатора на CPU ~42 с" in short
    )
    assert "медленнее" in short
    assert "RTX A4000" not in short
    assert "С ним и без" in details
    none = f"• offload=none (так считаю): {peak['offload=none']} ГиБ на GPU, не помещается"
    assert none in details
    assert (
        f"• offload=params: {peak['offload=params']} ГиБ на GPU, помещается;"
        " на сервере нужно ≥1,9 ТБ ОЗУ" in details
    )
    assert "gradient_accumulation_steps=1" in details


def test_the_offload_question_in_english() -> None:
    short, details = short_and_details(OFFLOAD_QUESTION, "en", "offload")
    peak = offload_peaks("en", "offload")
    assert "❌ 8× H100 PCIe (zero3): does not fit" in short
    assert (
        f"❓ Offload — you asked. Sized without offload. With offload=optimizer —"
        f" {peak['offload=optimizer']} GiB per GPU,"
        " fits; the server needs ≥1.7 TB of RAM, optimizer step on the CPU ~42 s" in short
    )
    assert (
        f"• offload=params: {peak['offload=params']} GiB per GPU, fits;"
        " the server needs ≥1.9 TB of RAM" in details
    )


@pytest.mark.parametrize(
    ("language", "default"),
    [
        ("ru", "ℹ️ Считаю без offload — не указано. С offload=optimizer — {} ГиБ на GPU"),
        ("en", "ℹ️ Sized without offload — not stated. With offload=optimizer — {} GiB per GPU"),
    ],
)
def test_an_unstated_offload_that_decides_the_verdict_is_said(language: str, default: str) -> None:
    short, _ = short_and_details(OFFLOAD_QUESTION, language)
    assert default.format(offload_peaks(language)["offload=optimizer"]) in short


@pytest.mark.parametrize(
    ("language", "read", "offload"),
    [
        (
            "ru",
            "Прочитал: offload=params",
            "🧠 offload=params: на сервере нужно ≥1,9 ТБ ОЗУ; шаг оптимизатора на CPU ~42 с,"
            " подгрузка весов по PCIe ~1,7 с на micro-batch.",
        ),
        (
            "en",
            "Read: offload=params",
            "🧠 offload=params: the server needs ≥1.9 TB of RAM; optimizer step on the CPU ~42 s,"
            " weights streamed over PCIe ~1.7 s a micro-batch.",
        ),
    ],
)
def test_a_stated_offload_is_shown_with_its_ram_and_checked_against_the_servers(
    language: str, read: str, offload: str
) -> None:
    short, details = short_and_details(f"{OFFLOAD_QUESTION} offload=params", language)
    lines = short.splitlines()
    assert lines[1] == read  # right under the title, before the verdict
    assert offload in short
    # 1024 GB and 32 GB servers cannot take 1.9 TB; 2048 GB can; unpublished RAM is flagged.
    assert "Selectel" in short
    assert "immers.cloud" not in short + details
    hostkey = next(line for line in short.splitlines() if "HOSTKEY" in line)
    assert ("ОЗУ сервера не указано" if language == "ru" else "RAM not stated") in hostkey
    assert "CPU offload" in details


def test_no_server_with_enough_ram_is_said_plainly() -> None:
    parsed = parse_command(f"{OFFLOAD_QUESTION} offload=params")
    answer = build_answer(parsed, load_gpus(), QUOTES[:2])  # 32 GB and 1024 GB only
    assert answer.plans == []
    assert answer.ram_short
    short = parse_telegram_html(render_short(answer, "ru"))
    assert "мало ОЗУ для offload: нужно ≥1,9 ТБ" in short


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("ru", "Прочитал: optim=adamw8bit · gc=off · stack=unsloth · dataset=20000 · tokens=512"),
        ("en", "Read: optim=adamw8bit · gc=off · stack=unsloth · dataset=20000 · tokens=512"),
    ],
)
def test_the_header_names_every_setting_read_beyond_the_title(language: str, expected: str) -> None:
    command = "8b lora optim=adamw8bit gc=off stack=unsloth dataset=20k epochs=3 tokens=512"
    short, _ = short_and_details(command, language)
    assert short.splitlines()[1] == expected + " · epochs=3"


def test_the_header_has_nothing_to_add_for_a_default_run() -> None:
    short, _ = short_and_details("13b qlora ctx=4096", "ru")
    assert "Прочитал" not in short


def test_the_header_quotes_the_words_that_set_a_slot() -> None:
    parsed = parse_command("13b qlora ctx=51200")
    answer = replace(build_answer(parsed, load_gpus()), words={"ctx": "50к"})
    short = parse_telegram_html(render_short(answer, "ru"))
    assert "Прочитал: ctx=51200 («50к»)" in short


@pytest.mark.parametrize("language", ["ru", "en"])
def test_many_levers_asked_keep_the_first_in_a_phone_screen_and_all_in_details(
    language: str,
) -> None:
    levers = ("offload", "shard", "optimizer", "precision", "grad_checkpointing", "stack")
    short, details = short_and_details(OFFLOAD_QUESTION, language, *levers)  # < 900 inside
    assert "❓ Offload" in short
    assert "ℹ️" not in short  # the unstated defaults go first
    assert details.count("•") >= 2 * len(levers)
