"""The Mini App's API over real HTTP against a real SQLite store: who may do what to which
watch, and that the calculator answers as /fit does."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from pydantic import SecretStr

from bot.fields import FieldError
from bot.miniapp.app_api import MiniApp, calculator_run
from bot.miniapp.init_data import MAX_AGE
from bot.quotes import quotes_from
from estimator.answer import build_answer
from estimator.fit_words import command_for, understand
from estimator.gpus import load_gpus
from estimator.i18n import translators
from estimator.sizing_text import render_details, render_short, to_plain
from monitor.offers import StockState
from monitor.scrape import ScrapeResult
from monitor.watch_words import parse_watch
from storage import Store
from tests.factories import make_offer, store_snapshot
from tests.fakes.init_data import signed_init_data

TOKEN = "123456:TEST-token"
NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
ANNA, BORIS, CARL = 1001, 1002, 1003  # Carl has never written to the bot


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    store = await Store.open(tmp_path / "app.sqlite3")
    h100 = make_offer("h100", 600.0, StockState.IN_STOCK, provider="selectel", gpu="H100 SXM")
    await store_snapshot(store, ScrapeResult("selectel", (h100,), NOW - timedelta(minutes=5)))
    for chat_id in (ANNA, BORIS):
        await store.ensure_user(chat_id, language="ru", timezone="Europe/Moscow")
    yield store
    await store.close()


@pytest.fixture
async def app_server(store: Store, tmp_path: Path) -> AsyncIterator[TestServer]:
    static = tmp_path / "static"
    (static / "assets").mkdir(parents=True)
    (static / "index.html").write_text("<!doctype html><title>gpuradar</title>")
    (static / "assets" / "app-1a2b.js").write_text("console.log(1)")
    mini_app = MiniApp(
        store, SecretStr(TOKEN), translators(), "ru", static_dir=static, now=lambda: NOW
    )
    app = web.Application()
    mini_app.add_routes(app)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    yield server
    await server.close()


def auth(
    user_id: int,
    *,
    age: timedelta = timedelta(minutes=1),
    token: str = TOKEN,
    language_code: str = "ru",
) -> str:
    data = signed_init_data(
        token, user_id=user_id, auth_date=NOW - age, language_code=language_code
    )
    return "tma " + data


async def call(
    server: TestServer,
    method: str,
    path: str,
    authorization: str | None,
    body: Any = None,
) -> tuple[int, Any]:
    headers = {"Authorization": authorization} if authorization is not None else {}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, str(server.make_url(path)), headers=headers, json=body) as response,
    ):
        raw = await response.read()
        return response.status, json.loads(raw) if raw else None


async def test_the_app_and_its_bundle_are_served(app_server: TestServer):
    async with aiohttp.ClientSession() as session:
        async with session.get(str(app_server.make_url("/app/"))) as response:
            assert response.status == 200
            assert "gpuradar" in await response.text()
            assert response.headers["Cache-Control"] == "no-cache"
        async with session.get(str(app_server.make_url("/app/assets/app-1a2b.js"))) as response:
            assert response.status == 200
            assert "immutable" in response.headers["Cache-Control"]
        for missing in ("/app/assets/nothing.js", "/app/assets/..%2Findex.html"):
            async with session.get(str(app_server.make_url(missing))) as response:
                assert response.status == 404


async def test_texts_come_in_both_languages_from_the_fluent_files(app_server: TestServer):
    status, texts = await call(app_server, "GET", "/app/texts.json", None)
    assert status == 200
    assert set(texts) == {"ru", "en"}
    assert "app-tab-table = Таблица" in texts["ru"]
    assert "app-tab-table = Table" in texts["en"]


# Every authenticated route, with a body it would accept.
ROUTES: list[tuple[str, str, Any]] = [
    ("GET", "/app/api/me", None),
    ("GET", "/app/api/watches", None),
    ("PATCH", "/app/api/watches/1", {"paused": True}),
    ("DELETE", "/app/api/watches/1", None),
    ("POST", "/app/api/fit", {"model": "8b"}),
]


@pytest.mark.parametrize("kind", ["missing", "forged", "stale", "other scheme"])
async def test_missing_forged_or_stale_init_data_is_401_and_touches_nothing(
    app_server: TestServer, store: Store, kind: str
):
    watch = await store.add_subscription(ANNA, parse_watch("h100"))
    assert watch.id == 1
    authorization = {
        "missing": None,
        "forged": auth(ANNA, token="999:another-bot"),
        "stale": auth(ANNA, age=MAX_AGE + timedelta(minutes=1)),
        "other scheme": auth(ANNA).replace("tma ", "Bearer "),
    }[kind]
    for method, path, body in ROUTES:
        status, answer = await call(app_server, method, path, authorization, body)
        assert (method, path, status) == (method, path, 401)
        assert "initData" in answer["error"]
    [still] = await store.subscriptions_of(ANNA)
    assert still == watch


async def test_me_says_the_stored_language_else_telegrams(app_server: TestServer, store: Store):
    status, me = await call(app_server, "GET", "/app/api/me", auth(CARL, language_code="en"))
    assert (status, me) == (200, {"user_id": CARL, "language": "en"})
    await store.set_language(ANNA, "en")
    answer = await call(app_server, "GET", "/app/api/me", auth(ANNA, language_code="ru"))
    assert answer[1]["language"] == "en"  # the setting in the bot, over Telegram's


async def test_a_user_sees_and_changes_only_their_own_watches(app_server: TestServer, store: Store):
    annas = await store.add_subscription(ANNA, parse_watch("h100 max=650"))
    boris = await store.add_subscription(BORIS, parse_watch("a100"))
    status, listed = await call(app_server, "GET", "/app/api/watches", auth(ANNA))
    assert status == 200
    assert [(w["id"], w["paused"], w["max_rub_per_gpu_hour"]) for w in listed["watches"]] == [
        (annas.id, False, 650.0)
    ]
    assert "H100" in listed["watches"][0]["label"]
    # Boris's watch, by its id, from Anna: not found, and unchanged.
    for method, body in (("PATCH", {"paused": True}), ("DELETE", None)):
        status, _ = await call(app_server, method, f"/app/api/watches/{boris.id}", auth(ANNA), body)
        assert status == 404
    assert await store.subscriptions_of(BORIS) == [boris]


async def test_pause_cap_and_delete_change_the_stored_watch(app_server: TestServer, store: Store):
    watch = await store.add_subscription(ANNA, parse_watch("h100"))
    path = f"/app/api/watches/{watch.id}"
    status, paused = await call(app_server, "PATCH", path, auth(ANNA), {"paused": True})
    assert (status, paused["paused"]) == (200, True)
    status, capped = await call(
        app_server, "PATCH", path, auth(ANNA), {"max_rub_per_gpu_hour": 500}
    )
    assert (status, capped["max_rub_per_gpu_hour"], capped["paused"]) == (200, 500.0, True)
    [stored] = await store.subscriptions_of(ANNA)
    assert stored.paused
    assert stored.filter.max_rub_per_gpu_hour == 500.0
    uncapped = await call(app_server, "PATCH", path, auth(ANNA), {"max_rub_per_gpu_hour": None})
    assert uncapped[1]["max_rub_per_gpu_hour"] is None
    # The cap as typed in a Russian field: a decimal comma, a rouble sign.
    typed = await call(app_server, "PATCH", path, auth(ANNA), {"max_rub_per_gpu_hour": "599,5"})
    assert typed[1]["max_rub_per_gpu_hour"] == 599.5
    signed = await call(app_server, "PATCH", path, auth(ANNA), {"max_rub_per_gpu_hour": "600 ₽"})
    assert signed[1]["max_rub_per_gpu_hour"] == 600.0
    [stored] = await store.subscriptions_of(ANNA)
    assert stored.filter.max_rub_per_gpu_hour == 600.0
    assert (await call(app_server, "DELETE", path, auth(ANNA)))[0] == 204
    assert await store.subscriptions_of(ANNA) == []
    assert (await call(app_server, "DELETE", path, auth(ANNA)))[0] == 404


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"paused": "yes"},
        {"max_rub_per_gpu_hour": -5},
        {"max_rub_per_gpu_hour": "cheap"},
        {"colour": "red"},
        [1, 2],
    ],
)
async def test_a_bad_change_is_400_and_changes_nothing(
    app_server: TestServer, store: Store, body: Any
):
    watch = await store.add_subscription(ANNA, parse_watch("h100"))
    status, answer = await call(
        app_server, "PATCH", f"/app/api/watches/{watch.id}", auth(ANNA), body
    )
    assert status == 400
    assert answer["error"]
    assert await store.subscriptions_of(ANNA) == [watch]


@pytest.mark.parametrize("raw", ["³", "٣", "1²"])
async def test_a_watch_id_of_non_ascii_digits_is_not_found_not_a_crash(
    app_server: TestServer, store: Store, raw: str
):
    watch = await store.add_subscription(ANNA, parse_watch("h100"))
    for method in ("PATCH", "DELETE"):
        status, _ = await call(
            app_server, method, f"/app/api/watches/{raw}", auth(ANNA), {"paused": True}
        )
        assert status == 404, (method, raw)
    assert await store.subscriptions_of(ANNA) == [watch]


async def test_a_cap_that_cannot_be_read_is_refused_in_russian(
    app_server: TestServer, store: Store
):
    watch = await store.add_subscription(ANNA, parse_watch("h100 max=300"))
    path = f"/app/api/watches/{watch.id}"
    status, answer = await call(
        app_server, "PATCH", path, auth(ANNA), {"max_rub_per_gpu_hour": "дёшево"}
    )
    assert status == 400
    assert answer["error"].startswith("Потолок — цена в ₽ за GPU-час")
    assert answer["field"] == "cap"
    assert (await store.get_subscription(watch.id)) == watch


async def test_the_calculator_answers_what_fit_answers_for_the_same_run(
    app_server: TestServer, store: Store
):
    fields = {"model": "13b", "method": "qlora", "ctx": 4096, "bs": 2, "gpu": "4090"}
    status, answer = await call(app_server, "POST", "/app/api/fit", auth(ANNA), fields)
    assert status == 200
    assert answer["command"] == "13b qlora ctx=4096 bs=2 gpu=RTX-4090"
    parsed = understand(answer["command"])
    assert parsed is not None
    expected = build_answer(parsed, load_gpus(), quotes_from(await store.observed_offers()))
    assert answer["text"] == to_plain(render_short(expected, "ru"))
    assert answer["details"] == to_plain(render_details(expected, "ru"))


@pytest.mark.parametrize(
    ("fields", "command"),
    [
        # What the chat accepts, the calculator accepts: names with spaces, units, commas.
        ({"model": "Llama 3 8B", "method": "lora"}, "Llama-3.1-8B lora"),
        ({"model": "13b", "dataset": "2 гб"}, "13b ds=363636364tok"),  # 5.5 bytes a token
        ({"model": "13b", "dataset": "20k примеров"}, "13b ds=20k"),
        ({"model": "13b", "dataset": "50m токенов"}, "13b ds=50000000tok"),
        ({"model": "13b", "gpu": "a100 80gb"}, "13b gpu=A100-80GB-PCIe"),
        ({"model": "13b", "gpu": "rtx 4090"}, "13b gpu=RTX-4090"),
        ({"model": "13b", "ctx": "4k", "bs": "2"}, "13b ctx=4096 bs=2"),
    ],
)
def test_calculator_fields_are_read_as_the_chat_reads_them(
    fields: dict[str, Any], command: str
) -> None:
    parsed = calculator_run(fields, "ru")
    assert command_for(parsed) == command


def test_a_text_size_dataset_is_tokens_at_the_users_language() -> None:
    russian = calculator_run({"model": "13b", "dataset": "2 гб"}, "ru")
    english = calculator_run({"model": "13b", "dataset": "2 гб"}, "en")
    assert russian.query.dataset_tokens == round(2e9 / 5.5)
    assert english.query.dataset_tokens == round(2e9 / 4.0)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"method": "qlora"}, "model"),
        ({"model": "13b ctx=1"}, "model"),  # nothing smuggled in behind a model
        ({"model": "13b", "method": "dpo"}, "method"),
        ({"model": "13b", "ctx": 0}, "ctx"),
        ({"model": "13b", "bs": True}, "bs"),
        ({"model": "13b", "dataset": "lots"}, "dataset"),
        ({"model": "13b", "gpu": "a100; rm"}, "gpu"),
        ({"model": "13b", "epochs": 3}, "epochs"),
    ],
)
def test_a_field_that_cannot_be_read_is_named(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(FieldError) as caught:
        calculator_run(fields, "ru")
    assert caught.value.field == field


async def test_calculator_errors_are_in_the_users_language(app_server: TestServer):
    gpu = await call(
        app_server, "POST", "/app/api/fit", auth(ANNA), {"model": "13b", "gpu": "h1000"}
    )
    model = await call(app_server, "POST", "/app/api/fit", auth(ANNA), {"model": "llama 9 9b"})
    assert gpu == (
        400,
        {"error": "Не знаю видеокарту «h1000». Может быть, H100?", "field": "gpu"},
    )
    assert model[0] == 400
    assert model[1]["error"].startswith("Не знаю модель «llama 9 9b»")


async def test_a_model_the_estimator_does_not_know_is_a_400_with_its_reason(
    app_server: TestServer,
):
    status, answer = await call(
        app_server, "POST", "/app/api/fit", auth(ANNA), {"model": "no-such-model-xyz"}
    )
    assert status == 400
    assert answer["error"]
