"""A model from its config.json in chat, pasted or sent as a file, through the real polling
bot and the fake Bot API (documents, getFile and the download path included)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bot.conftest import CHAT, running_app
from tests.bot.test_e2e_fit import press, reply_to
from tests.estimator.test_model_config import CONFIGS
from tests.fakes.telegram import FakeTelegram


async def _reply(telegram: FakeTelegram, push: object) -> str:
    after = telegram.mark()
    assert callable(push)
    push()
    call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.ok, call.description
    return str(call.result["text"])


async def test_pasted_config_is_sized_like_the_catalog_model(
    telegram: FakeTelegram, db_path: Path
) -> None:
    config = json.dumps(CONFIGS["Mixtral-8x7B-v0.1"], indent=2)
    async with running_app(telegram, db_path):
        pasted = await _reply(telegram, lambda: telegram.push_message(CHAT, config))
        named = await _reply(telegram, lambda: telegram.push_message(CHAT, "/fit mixtral 8x7b"))
    assert "config.json" in pasted
    assert "46.7" in pasted  # billions of parameters, from the shapes
    assert "8 экспертов, 2 на токен" in pasted
    # The same peak as the catalog's row: the answer past the first line reads the same.
    peak = next(line for line in named.splitlines() if line.startswith("Пик:"))
    assert peak in pasted


async def test_words_around_a_pasted_config_say_the_run(
    telegram: FakeTelegram, db_path: Path
) -> None:
    message = "lora ctx=8192 " + json.dumps(CONFIGS["Llama-3.1-8B"])
    async with running_app(telegram, db_path):
        text = await _reply(telegram, lambda: telegram.push_message(CHAT, message))
    assert "LoRA" in text
    assert "8192" in text


async def test_config_document_with_a_caption(telegram: FakeTelegram, db_path: Path) -> None:
    data = json.dumps(CONFIGS["Qwen3-30B-A3B"]).encode()
    async with running_app(telegram, db_path):
        text = await _reply(
            telegram,
            lambda: telegram.push_document(CHAT, data, "config.json", caption="lora ctx=4096"),
        )
    assert len(telegram.files.downloads) == 1
    assert "128 экспертов, 8 на токен" in text
    assert "LoRA" in text


async def test_bad_config_names_the_missing_field(telegram: FakeTelegram, db_path: Path) -> None:
    broken = {k: v for k, v in CONFIGS["Llama-3.1-8B"].items() if k != "num_hidden_layers"}
    async with running_app(telegram, db_path):
        pasted = await _reply(telegram, lambda: telegram.push_message(CHAT, json.dumps(broken)))
        sent = await _reply(
            telegram,
            lambda: telegram.push_document(CHAT, json.dumps(broken).encode(), "config.json"),
        )
        garbage = await _reply(
            telegram, lambda: telegram.push_document(CHAT, b"{not json", "config.json")
        )
    assert "num_hidden_layers" in pasted
    assert "num_hidden_layers" in sent
    assert "не config.json" in garbage


async def test_a_big_file_is_not_downloaded(telegram: FakeTelegram, db_path: Path) -> None:
    big = b"{" + b" " * 70_000 + b"}"
    async with running_app(telegram, db_path):
        text = await _reply(telegram, lambda: telegram.push_document(CHAT, big, "config.json"))
    assert "64" in text
    assert telegram.files.downloads == []


def _title(answer: str) -> str:
    """The sizing's title line: «<model> · QLoRA · ctx 4096 · bs 1»."""
    return next(line for line in answer.splitlines() if " · " in line)


async def test_a_config_answer_has_buttons_and_follow_ups_keep_its_model(
    telegram: FakeTelegram, db_path: Path
) -> None:
    config = dict(CONFIGS["Llama-3.1-8B"], num_hidden_layers=40)  # a model the catalog lacks
    async with running_app(telegram, db_path) as application:
        pasted = await _reply(telegram, lambda: telegram.push_message(CHAT, json.dumps(config)))
        labels = [button.text for button in telegram.last_message(CHAT).buttons()]
        details = await press(telegram, "Подробнее")
        longer = await reply_to(telegram, "а с ctx 8192?")
        lora = await reply_to(telegram, "а на lora?")
        after = telegram.mark()
        telegram.press(CHAT, "🔔 Следить за подходящими", message=telegram.last_message(CHAT))
        created = await telegram.wait_for_call("sendMessage", after=after)
        (sub,) = await application.store.subscriptions_of(CHAT)
        sent = await _reply(
            telegram,
            lambda: telegram.push_document(CHAT, json.dumps(config).encode(), "config.json"),
        )
        sent_labels = [button.text for button in telegram.last_message(CHAT).buttons()]
        qlora = await reply_to(telegram, "а с qlora?")
    model = _title(pasted).split(" · ")[0]
    assert labels == ["Подробнее", "🔔 Следить за подходящими"]
    assert "Разбивка на GPU: веса" in details
    assert details.startswith(model)
    # Each follow-up changes only what it names: the config's model stays.
    assert _title(longer).startswith(f"{model} · QLoRA · ctx 8192")
    assert _title(lora).startswith(f"{model} · LoRA · ctx 8192")
    assert str(created.result["text"]).startswith("✅ Подписка")
    assert sub.filter.fit_query is not None
    assert model in sub.filter.fit_query
    assert sub.filter.fit_need
    assert model in sent
    assert sent_labels == labels
    assert _title(qlora).startswith(f"{model} · QLoRA")
