"""The /watch words a notify-me question states (monitor.watch_question)."""

from __future__ import annotations

import pytest

from monitor.watch_question import watch_words_in_question
from monitor.watch_words import parse_watch


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("сообщи, когда 8×H100 будет дешевле 600 ₽", "count=8 H100 max=600"),
        ("notify me when H100 is under 300 rub", "H100 max=300"),
        ("сообщи когда появится a100 80gb", "A100 vram=80"),
        ("уведоми, когда 4090 будет до 60 руб/ч на селектеле", "RTX 4090 max=60 provider=selectel"),
        ("let me know when anything is under 100₽", "max=100"),
        # a count said with a space before the card, and «напиши, если…»
        ("сообщи, когда появится сервер с 8 h100", "count=8 H100"),
        ("напиши если появится h100 в selectel", "H100 provider=selectel"),
        ("сообщи когда h100 будет дешевле 300, у меня 2 задачи", "H100 max=300"),
        # a run named instead of a card: offers that hold it
        ("сообщи когда появится что-то для 70b qlora", "70b qlora"),
        ("notify me when something fits 13b lora ctx 4096", "13b lora ctx=4096"),
        ("сообщи, когда появится карта под 8b qlora дешевле 100 рублей", "8b qlora max=100"),
    ],
)
def test_the_question_becomes_watch_words(question: str, words: str) -> None:
    assert watch_words_in_question(question) == words
    parse_watch(words)  # and they always parse


@pytest.mark.parametrize(
    "question",
    ["какая H100 дешевле?", "сообщи мне что-нибудь", "notify me", "H100 under 300 rub"],
)
def test_not_a_notify_question_or_nothing_to_watch(question: str) -> None:
    assert watch_words_in_question(question) is None


def test_the_cap_is_per_gpu_hour_as_max_is() -> None:
    words = watch_words_in_question("сообщи, когда 8×H100 будет дешевле 600 ₽")
    assert words is not None
    watch = parse_watch(words)
    assert watch.max_rub_per_gpu_hour == 600
    assert watch.min_count == 8


def test_a_run_cost_question_is_not_a_card_price():
    from monitor.watch_question import run_budget_in_question, watch_words_in_question

    for text, budget in (
        ("сообщи, когда мой запуск будет стоить меньше 5 000 ₽", 5000),
        ("notify me when my run costs under 3000 rub", 3000),
        ("напиши, когда обучение обойдётся дешевле 2к ₽", 2000),
    ):
        assert run_budget_in_question(text) == budget
        assert watch_words_in_question(text) is None
    assert run_budget_in_question("сообщи, когда 8×H100 будет дешевле 600 ₽") is None
    assert run_budget_in_question("сколько стоит мой запуск?") is None  # not a notify-me


@pytest.mark.parametrize(
    ("question", "words"),
    [
        # A price per GPU-hour is a cap on offers even when the sentence names the run.
        ("alert me when 8x H100 is under 600 rub per GPU-hour", "count=8 H100 max=600"),
        (
            "alert me when 8x H100 is under 600 rub per GPU-hour for a 70b full fine-tune",
            "count=8 H100 max=600",
        ),
        ("notify me when 8x h100 drops under 600 rub/gpu-hour for my run", "count=8 H100 max=600"),
        (
            "сообщи, когда 8×H100 будет дешевле 600 ₽ за GPU-час для моего обучения",
            "count=8 H100 max=600",
        ),
        # A cap for the whole server is the server's price over its cards.
        ("сообщи когда 8x h100 будет дешевле 4800 ₽ в час за сервер", "count=8 H100 max=600"),
        ("alert me when 4x 4090 is under 250 rub per server-hour", "count=4 RTX 4090 max=62.5"),
    ],
)
def test_a_price_per_hour_is_a_cap_never_a_run_budget(question: str, words: str) -> None:
    from monitor.watch_question import run_budget_in_question

    assert run_budget_in_question(question) is None
    assert watch_words_in_question(question) == words
    parse_watch(words)
