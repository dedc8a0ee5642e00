"""/fit, its button wizard, free-text sizing and general questions, through the real polling
bot. Each issue-12 /fit defect has its test here: the 900-character first answer, «Подробнее»,
«32 слоя» plurals, `gpus=2 shard=fsdp` wording, compare, budget, break-even, checkpoint size.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from monitor.offers import Offer, StockState
from monitor.scrape import ScrapeResult
from storage import Store
from tests.bot.conftest import CHAT, running_app
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram

PHONE = 900  # characters a first answer may take (a phone screen: under 900 characters)


async def reply_to(telegram: FakeTelegram, text: str, **user: object) -> str:
    after = telegram.mark()
    telegram.push_message(CHAT, text, **user)  # type: ignore[arg-type]
    call = await telegram.wait_for_call("sendMessage", after=after)
    assert call.ok, call.description
    return str(call.result["text"])


async def press(telegram: FakeTelegram, label: str) -> str:
    after = telegram.mark()
    telegram.press(CHAT, label)
    edit = await telegram.wait_for_call("editMessageText", after=after)
    assert edit.ok, edit.description
    return str(edit.result["text"])


async def seed_prices(db_path: Path) -> None:
    """Live offers: hourly cloud cards and one monthly-only dedicated server."""
    store = await Store.open(db_path)
    fetched = datetime.now(UTC) - timedelta(minutes=3)
    offers = [
        make_offer("4090", 83.0, provider="immers"),
        make_offer("3090", 55.0, provider="immers", gpu="RTX 3090"),
        make_offer("a100", 212.0, provider="selectel", gpu="A100 80GB SXM"),
        make_offer("a100-month", 140.0, provider="hostkey", gpu="A100 80GB SXM", monthly=True),
        make_offer("h100", 342.0, provider="selectel", gpu="H100 SXM"),
        make_offer("h100-nvl", 300.0, StockState.OUT_OF_STOCK, provider="immers", gpu="H100 NVL"),
    ]
    by_provider: dict[str, list[Offer]] = {}
    for offer in offers:
        by_provider.setdefault(offer.provider, []).append(offer)
    for provider, items in by_provider.items():
        await store_snapshot(store, ScrapeResult(provider, tuple(items), fetched))
    await store.close()


async def test_first_answer_is_short_and_details_open_on_a_button(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit 13b qlora ctx=4096 dataset=20k")
        buttons = telegram.last_message(CHAT).buttons()
        labels = [button.text for button in buttons]
        details = await press(telegram, "Подробнее")
        back = await press(telegram, "Кратко")
        # The share sheet carries a /start link that opens the same sizing for anyone.
        shared = parse_qs(urlsplit(str(buttons[-1].raw["url"])).query)
        link = urlsplit(shared["url"][0])
        assert link.netloc == "t.me"
        opened = await reply_to(telegram, f"/start {parse_qs(link.query)['start'][0]}")
    assert len(text) < PHONE
    assert text.startswith("13B · QLoRA · ctx 4096 · bs 1")
    assert "Размер 13B — считаю на Llama-подобной архитектуре (Llama-2-13B)." in text
    assert "Пик: " in text
    assert "с HF Trainer + PEFT (если стек не указан)" in text
    best = text.split("Лучшие варианты сейчас")[1].splitlines()[1:4]
    assert len(best) == 3
    assert all("₽" in line and "≈" in line for line in best)  # live ₽ and the time
    assert labels == ["Подробнее", "🔔 Следить за подходящими", "↗️ Поделиться"]
    assert opened == text
    assert "Разбивка на GPU: веса" in details
    assert "Как уменьшить память" in details
    assert "Какие GPU подойдут" in details
    assert "Чекпоинт: адаптер LoRA" in details  # adapter against the full model
    assert back == text


async def test_details_say_40_layers_with_the_right_russian_plural(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/fit llama 2 7b lora")
        seven = await press(telegram, "Подробнее")
        await reply_to(telegram, "/fit gemma 3 27b qlora")
        gemma = await press(telegram, "Подробнее")
        await reply_to(telegram, "/fit llama 3.1 405b qlora gpus=8")
        big = await press(telegram, "Подробнее")
    assert "32 слоя" in seven
    assert "62 слоя" in gemma
    assert "126 слоёв" in big
    assert "слоёв" not in seven + gemma


async def test_two_gpus_with_fsdp_are_judged_as_two(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        plain = await reply_to(telegram, "/fit 70b qlora gpus=2 shard=fsdp")
        on_4090 = await reply_to(telegram, "/fit 70b qlora gpus=2 shard=fsdp gpu=4090")
        on_a100 = await reply_to(telegram, "/fit 70b qlora gpus=2 shard=fsdp gpu=a100-80")
    for text in (plain, on_4090, on_a100):
        assert "на одной не помещается" not in text
    assert "Наименьшая подходящая карта: 2× " in plain
    assert "2× RTX 4090 (fsdp)" in on_4090
    assert "2× A100 80GB PCIe (fsdp): помещается, на каждой запас" in on_a100


async def test_free_text_question_answers_in_its_own_language(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        russian = await reply_to(telegram, "хватит ли 4090 для 13b qlora на 4k контексте?")
        english = await reply_to(telegram, "does 13b qlora fit on a 4090 with 4k context?")
    assert "ctx 4096" in russian
    assert russian.splitlines()[2].startswith("✅ RTX 4090: помещается")
    assert "fits" in english
    assert "Peak" in english
    assert "Пик" not in english


async def test_which_model_a_card_holds_is_answered_in_the_run_asked(
    telegram: FakeTelegram, db_path: Path
):
    """«на rtx 3060 что можно дообучить?» got prices and "…on a 24gb card?" the help text; a
    context or a card count asked was dropped."""
    async with running_app(telegram, db_path):
        own = await reply_to(telegram, "на rtx 3060 12gb что можно дообучить?")
        by_memory = await reply_to(
            telegram, "what is the biggest model I can qlora on a 24gb card?"
        )
        two = await reply_to(telegram, "какую модель можно дообучить на двух 4090 с контекстом 8к?")
    assert own.startswith("Какую модель можно дообучить на RTX 3060")
    assert by_memory.startswith("What you can fine-tune on a 24 GB card")
    assert "2 карты (ddp), ctx 8192" in two


async def test_a_bare_command_answers_in_the_users_language(telegram: FakeTelegram, db_path):
    async with running_app(telegram, db_path):
        english = await reply_to(telegram, "/fit 70b full gpus=8", language_code="en")
    assert "Peak" in english  # a bare command: the user's setting
    assert "8× GPU (zero3)" in english


async def test_full_fine_tune_phrasings_are_not_sized_as_qlora(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        on_a100 = await reply_to(telegram, "13b full на a100")
        on_h100 = await reply_to(telegram, "7b full on h100")
        whole = await reply_to(telegram, "дообучить 7b целиком на h100")
    assert "13B · full" in on_a100
    assert "❌ A100 40GB PCIe: на одной не помещается" in on_a100  # "A100": the smaller one
    assert "🔸 А A100 80GB" not in on_a100  # 13B full in AMP needs ~250 GB: no A100 holds it
    assert "7B · full" in on_h100
    assert "H100 NVL" not in on_h100  # "H100" is the 80 GB card on offer
    assert "H100 PCIe" in on_h100
    assert "7B · full" in whole


async def test_compare_shows_full_lora_and_qlora(telegram: FakeTelegram, db_path: Path):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit compare 13b")
    lines = text.splitlines()
    assert lines[0].startswith("13B: full, LoRA и QLoRA")
    assert lines[1].startswith("full —") or lines[1].startswith("full ")
    assert any(line.startswith("LoRA — ") for line in lines)
    assert any(line.startswith("QLoRA — ") and "₽/ч" in line for line in lines)


async def test_budget_question_names_the_cheapest_run_within_it(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        yes = await reply_to(telegram, "уложусь в 5000 ₽? 8b qlora, датасет 10k примеров")
        no = await reply_to(telegram, "уложусь в 50 ₽? 8b qlora, датасет 100k примеров")
        hours = await reply_to(telegram, "13b qlora, бюджет 1000 ₽")
    assert "💰 В 5\u202f000 ₽ укладываетесь:" in yes
    assert "💰 В 50 ₽ не уложиться: дешевле всего" in no
    assert "💰 На 1\u202f000 ₽ — ~" in hours


async def test_details_show_hourly_against_monthly_at_live_prices(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/fit 8b full dtype=bf16 opt=adamw8bit dataset=200k")
        details = await press(telegram, "Подробнее")
    assert "Почасовая или помесячная (A100 80GB SXM ×1): месяц у HOSTKEY (100 800 ₽)" in details
    assert "выгоднее, если работать больше 475 ч в месяц" in details
    assert "почасово — 212 ₽/ч у Selectel" in details
    assert "Этот запуск — ~" in details
    assert " сут ч" not in details  # the unit once


async def test_wizard_walks_size_method_ctx_then_answers(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        assert await reply_to(telegram, "/fit") == "🧮 Какого размера модель?"
        assert (await press(telegram, "7–8B")).startswith("Модель 8b. Как дообучаем?")
        assert (await press(telegram, "LoRA")).startswith("Какая длина контекста")
        answer = await press(telegram, "8k")
    assert answer.startswith("8B · LoRA · ctx 8192 · bs 1")
    assert "Пик" in answer
    assert len(answer) < PHONE


async def test_menu_button_opens_the_wizard(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/start")
        assert await press(telegram, "🧮 Подобрать GPU") == "🧮 Какого размера модель?"


async def test_bad_queries_get_a_clear_answer(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        bad_value = await reply_to(telegram, "/fit 13b qlora ctx=<много>")
        letters = await reply_to(telegram, "/fit 13b qlora ctx=abc")
        unknown_key = await reply_to(telegram, "/fit 13b qlora cxt=8192")
        no_model = await reply_to(telegram, "/fit qlora ctx=4096")
        bad_gpu = await reply_to(telegram, "/fit 13b qlora gpu=voodoo5")
        too_long = await reply_to(telegram, "/fit " + "13b " * 300)  # over MAX_ARGS (1000)
        # Forged buttons must not crash anything.
        await reply_to(telegram, "/fit")
        menu = telegram.last_message(CHAT)
        after = telegram.mark()
        telegram.push_callback(CHAT, menu.message_id, "f:999999b:qlora:4096")
        forged = await telegram.wait_for_call("editMessageText", after=after)
        after = telegram.mark()
        telegram.push_callback(CHAT, menu.message_id, "d:ru:1:gpt5 banana")
        stale = await telegram.wait_for_call("editMessageText", after=after)
    assert "ctx=<много>" in bad_value
    assert "Не понял значение" in bad_value
    assert "Можно: 512, 4096, 8k, 32k" in letters  # never an empty "Можно: ."
    assert "Не знаю параметр cxt — может быть, ctx?" in unknown_key
    assert "Не вижу модели или размера" in no_model
    assert "voodoo5" in bad_gpu
    assert "4090" in bad_gpu
    assert "Слишком длинный запрос" in too_long
    assert forged.ok
    assert "Пик" not in forged.result["text"]
    assert "устарела" in stale.result["text"]


async def test_general_questions_are_answered_from_live_prices(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    async with running_app(telegram, db_path):
        faster = await reply_to(telegram, "что быстрее h100 или a100?")
        cheaper = await reply_to(telegram, "где дешевле h100?")
        stock = await reply_to(telegram, "есть ли сейчас h100?")
        rent = await reply_to(telegram, "почасовая или помесячная?")
        price = await reply_to(telegram, "сколько стоит a100?")
        chatter = await reply_to(telegram, "привет! что ты умеешь?")
    for text in (faster, cheaper, stock, rent, price, chatter):
        assert "Не понял" not in text
    assert "H100 быстрее A100 примерно в" in faster
    assert "от 342 ₽/ч за карту (Selectel)" in faster
    assert cheaper.startswith("H100 дешевле всего сейчас")
    assert "H100 SXM ×1 — 342 ₽/ч · Selectel" in cheaper
    assert "H100 NVL" not in cheaper  # out of stock, and not what "H100" means
    assert stock.startswith("H100 сейчас в наличии: 1 предложение")
    assert "Почасовая или помесячная?" in rent
    assert "A100 ×1: месяц 100\u202f800 ₽ (HOSTKEY) против 212 ₽/ч (Selectel)" in rent
    assert "выгоднее, если работать больше 475 ч в месяц" in rent
    assert "A100 80GB SXM ×1 — 212 ₽/ч · Selectel" in price
    assert "/fit" in chatter
    assert "/prices" in chatter


async def test_a_run_too_long_for_a_button_still_gets_a_short_answer_and_details(
    telegram: FakeTelegram, db_path: Path
):
    await seed_prices(db_path)
    long_run = (
        "/fit qwen2.5 coder 14b qlora ctx=16k dataset=50k tokens=700 epochs=3 "
        "gpu=a100-80 budget=5000"
    )
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, long_run)
        first = telegram.last_message(CHAT)
        labels = [button.text for button in first.buttons()]
        details = await press(telegram, "Подробнее")
        back = await press(telegram, "Кратко")
        # A later question replaces the remembered run: the old button says it is outdated.
        await reply_to(telegram, "/fit 7b qlora")
        stale_after = telegram.mark()
        telegram.press(CHAT, "Подробнее", message=first)
        stale = await telegram.wait_for_call("editMessageText", after=stale_after)
    # The command does not fit in 64 bytes of callback data: the button refers to the run.
    assert "Подробнее" in labels
    assert len(text) < PHONE
    assert "Разбивка на GPU" not in text
    assert "Разбивка на GPU" in details
    assert back == text
    assert "устарела" in stale.result["text"]
