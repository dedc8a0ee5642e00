"""Plans a person can act on, through the real polling bot: each test is a conversation that
showed a false plan, a false price or a contradiction in an answer, in the words the user
typed and in other words.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from monitor.offers import Offer, StockState
from monitor.scrape import ScrapeResult
from storage import Store
from tests.bot.conftest import running_app
from tests.bot.test_e2e_fit import PHONE, press, reply_to
from tests.factories import make_offer, store_snapshot
from tests.fakes.telegram import FakeTelegram


async def seed(db_path: Path, offers: list[Offer]) -> None:
    store = await Store.open(db_path)
    fetched = datetime.now(UTC) - timedelta(minutes=3)
    by_provider: dict[str, list[Offer]] = {}
    for offer in offers:
        by_provider.setdefault(offer.provider, []).append(offer)
    for provider, items in by_provider.items():
        await store_snapshot(store, ScrapeResult(provider, tuple(items), fetched))
    await store.close()


def a100(sku: str, count: int, per_card: float, **extra: object) -> Offer:
    return make_offer(
        sku,
        per_card * count,
        provider=str(extra.pop("provider", "selectel")),
        gpu="A100 80GB SXM",
        gpu_count=count,
        vram_gb=80,
        **extra,  # type: ignore[arg-type]
    )


def h100(sku: str, count: int, rub: float, **extra: object) -> Offer:
    return make_offer(
        sku,
        rub,
        provider=str(extra.pop("provider", "selectel")),
        gpu="H100 SXM",
        gpu_count=count,
        vram_gb=80,
        **extra,  # type: ignore[arg-type]
    )


def hours_in(line: str) -> float:
    """The middle of the line's range of hours («~1,8–2,9 ч»)."""
    found = re.search(r"~([\d.,]+)(?:–([\d.,]+))? (ч|мин|сут)", line)  # a decimal comma
    assert found, line
    low = float(found.group(1).replace(",", "."))
    high = float((found.group(2) or found.group(1)).replace(",", "."))
    return {"ч": 1, "мин": 1 / 60, "сут": 24}[found.group(3)] * (low + high) / 2


async def test_an_eight_card_server_is_timed_on_eight_cards(telegram: FakeTelegram, db_path: Path):
    await seed(db_path, [a100("a100x4", 4, 251.6), a100("a100x8", 8, 251.6)])
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit 13b full dataset=20k tokens=1024")
    four = next(line for line in text.splitlines() if "A100 80GB SXM ×4" in line)
    eight = next(line for line in text.splitlines() if "A100 80GB SXM ×8" in line)
    # Twice the cards over NVLink: a little more than half the time, for about the same money.
    assert hours_in(eight) < 0.6 * hours_in(four)


async def test_a_card_count_that_does_not_fit_is_never_offered(
    telegram: FakeTelegram, db_path: Path
):
    await seed(
        db_path,
        [
            make_offer("4090x2", 160.0, provider="immers", gpu="RTX 4090", gpu_count=2),
            make_offer("3090x2", 110.0, provider="immers", gpu="RTX 3090", gpu_count=2),
            a100("a100x4", 4, 251.6),
        ],
    )
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit 13b full gpus=2 gpu=4090")
        words = await reply_to(telegram, "полное дообучение 13b на двух 4090 — влезет?")
    for answer in (text, words):
        assert "❌" in answer
        assert "RTX 3090 ×2" not in answer
        assert "RTX 4090 ×2 ·" not in answer


async def test_a_monthly_server_for_a_job_of_hours_says_what_it_is(
    telegram: FakeTelegram, db_path: Path
):
    await seed(db_path, [h100("h100x8-month", 8, 5000.0, provider="hostkey", monthly=True)])
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit llama 3 8b lora dataset=20k tokens=1024")
    line = next(line for line in text.splitlines() if "H100 SXM ×8" in line)
    assert "1 месяц аренды за ~" in line
    assert "месяц аренды ради часов работы" in line
    assert "Почасовых 8×H100 SXM сейчас нет" in text
    assert "(по часам вышло бы — ₽)" not in text
    assert "—  ₽" not in text


async def test_hourly_is_cheaper_around_the_clock_is_said_so(telegram: FakeTelegram, db_path: Path):
    await seed(
        db_path,
        [
            make_offer("4090", 60.0, provider="immers"),
            # 986 hours of the hourly rate: a month never pays off.
            make_offer("4090-month", 60.0 * 986 / 720, provider="hostkey", monthly=True),
        ],
    )
    async with running_app(telegram, db_path):
        rent = await reply_to(telegram, "почасовая или помесячная?")
        english = await reply_to(telegram, "rtx 4090: hourly or monthly?")
    assert "почасовая дешевле даже круглосуточно" in rent
    assert "986" not in rent
    assert "hourly is cheaper even around the clock" in english


async def test_a_server_month_is_never_split_into_one_card(telegram: FakeTelegram, db_path: Path):
    await seed(
        db_path,
        [
            h100("h100", 1, 342.0),
            h100("h100x8-month", 8, 3_600_000 / 720, provider="hostkey", monthly=True),
        ],
    )
    async with running_app(telegram, db_path):
        rent = await reply_to(telegram, "h100 почасовая или помесячная?")
        cheap = await reply_to(telegram, "где дешевле h100?")
    assert "450\u202f000" not in rent  # 1/8 of a server nobody rents by the card
    assert "сравнить не с чем" in rent
    assert "H100 SXM ×8 — 3\u202f600\u202f000 ₽/мес за весь сервер" in cheap


async def test_a_four_card_price_is_not_one_card_s(telegram: FakeTelegram, db_path: Path):
    await seed(
        db_path,
        [
            a100("a100x4", 4, 251.6),
            make_offer("l40s", 150.0, provider="immers", gpu="L40S", vram_gb=48),
        ],
    )
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "l40s или a100")
    assert "A100: от 251,60 ₽/ч за карту (Selectel, сервер ×4 — 1\u202f006 ₽/ч)" in text
    assert "A100: от 1\u202f006" not in text


async def test_stock_is_in_stock_only_when_the_provider_says_so(
    telegram: FakeTelegram, db_path: Path
):
    await seed(
        db_path,
        [
            h100("h100-a", 1, 300.0, provider="immers", stock=StockState.UNKNOWN),
            h100("h100-b", 1, 320.0, provider="immers", stock=StockState.UNKNOWN),
            h100("h100-c", 1, 342.0),
        ],
    )
    async with running_app(telegram, db_path):
        stock = await reply_to(telegram, "есть ли сейчас h100?")
        english = await reply_to(telegram, "is h100 in stock?")
    assert stock.startswith("H100 сейчас в наличии: 1 предложение")
    assert "Ещё 2 предложения — наличие не публикуется" in stock
    assert "1 more" not in english
    assert "2 more offers have no published stock" in english


async def test_the_smallest_card_agrees_with_the_offers(telegram: FakeTelegram, db_path: Path):
    await seed(
        db_path,
        [
            make_offer("a4000", 35.0, provider="immers", gpu="RTX A4000", vram_gb=16),
            make_offer("3090", 55.0, provider="immers", gpu="RTX 3090"),
        ],
    )
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit llama 2 7b qlora")
    verdict = next(line for line in text.splitlines() if "Наименьшая" in line)
    assert "RTX A4000" in verdict
    assert "RTX 3090" not in verdict


async def test_unsloth_is_not_promised_on_a_pascal_card(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "влезет ли 8b qlora в 1080 ti?")
    assert "С Unsloth поместится" not in text
    assert "Unsloth" not in text.split("Пик")[0]


async def test_compare_recommends_only_cards_people_rent(telegram: FakeTelegram, db_path: Path):
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit compare 13b")
        english = await reply_to(telegram, "/fit compare 70b")
    for answer in (text, english):
        assert "B300" not in answer
        assert " A2 " not in answer
    full = next(line for line in text.splitlines() if line.startswith("full"))
    assert "×" in full  # a 13B full fine-tune takes several cards: it says how many


async def test_a_foreign_location_is_shown_in_fit(telegram: FakeTelegram, db_path: Path):
    await seed(
        db_path, [make_offer("4090-nl", 40.0, provider="hostkey", location="NL", monthly=True)]
    )
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "/fit llama 2 7b qlora")
    assert "RTX 4090 ×1 · HOSTKEY (NL)" in text


async def test_a_comparison_answers_every_side(telegram: FakeTelegram, db_path: Path):
    await seed(db_path, [make_offer("4090", 60.0, provider="immers")])
    async with running_app(telegram, db_path):
        sizing = await reply_to(telegram, "a6000 или 4090 для лоры 13b?")
        market = await reply_to(telegram, "что быстрее a6000 или 4090?")
    assert "RTX A6000:" in sizing
    assert "RTX 4090:" in sizing
    assert len(sizing) < PHONE
    assert "RTX A6000: почасовых предложений сейчас нет" in market
    assert "RTX 4090: от 60 ₽/ч" in market


async def test_a_tight_fit_is_flagged_where_it_is_offered(telegram: FakeTelegram, db_path: Path):
    await seed(db_path, [make_offer("4090", 60.0, provider="immers")])
    async with running_app(telegram, db_path):
        # 8B LoRA at ctx 3072 leaves ~1.3 GiB of a 24 GB card: under the 10 % margin.
        text = await reply_to(telegram, "/fit llama 3 8b lora ctx=3072 gpu=4090")
        roomy = await reply_to(telegram, "/fit llama 2 7b qlora gpu=4090")
    assert "впритык" in text.split("\n\n")[0]
    offered = next(line for line in text.splitlines() if "RTX 4090 ×1 · immers" in line)
    assert "⚠️ впритык" in offered
    assert "впритык" not in roomy


async def test_a_card_without_bf16_says_so_in_the_first_answer(
    telegram: FakeTelegram, db_path: Path
):
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "а потянет ли 2080 ti 8b qlora?")
        command = await reply_to(telegram, "/fit llama 2 7b qlora gpu=t4")
    assert "RTX 2080 Ti: нет bf16 — только fp16/fp32" in text
    assert "T4: нет bf16" in command.split("\n\n")[0]


async def test_a_memory_floor_is_kept(telegram: FakeTelegram, db_path: Path):
    await seed(
        db_path,
        [
            make_offer("t4", 30.0, provider="selectel", gpu="T4", vram_gb=16),
            make_offer("a2", 25.0, provider="selectel", gpu="A2", vram_gb=16),
            make_offer("a5000", 50.0, provider="immers", gpu="RTX A5000", vram_gb=24),
            make_offer("a6000", 95.0, provider="immers", gpu="RTX A6000", vram_gb=48),
            make_offer("l40s", 150.0, provider="immers", gpu="L40S", vram_gb=48),
        ],
    )
    async with running_app(telegram, db_path):
        text = await reply_to(telegram, "самая дешевая карта с 48 гигами")
        english = await reply_to(telegram, "cheapest gpu with at least 48gb?")
    for answer in (text, english):
        assert "RTX A6000" in answer
        assert "L40S" in answer
        for small in ("T4", "A2 ", "RTX A5000"):
            assert small not in answer


async def test_hours_a_month_decide_hourly_or_monthly(telegram: FakeTelegram, db_path: Path):
    await seed(
        db_path,
        [
            a100("a100", 1, 250.0),
            a100("a100-month", 1, 120_000 / 720, provider="hostkey", monthly=True),  # 480 h
        ],
    )
    async with running_app(telegram, db_path):
        light = await reply_to(telegram, "a100: почасовая или помесячная, если 60 часов в месяц?")
        heavy = await reply_to(telegram, "a100 почасовая или помесячная при 600 часах в месяц")
    assert "При 60 ч в месяц выгоднее почасовая" in light
    assert "При 600 ч в месяц выгоднее помесячная" in heavy


async def test_the_break_even_in_details_is_the_job_s_own_card(
    telegram: FakeTelegram, db_path: Path
):
    await seed(
        db_path,
        [
            make_offer("4090", 60.0, provider="immers"),
            make_offer("4090-month", 50.0, provider="hostkey", monthly=True),
            make_offer("a2", 20.0, provider="selectel", gpu="A2", vram_gb=16),
            make_offer("a2-month", 10.0, provider="hostkey", gpu="A2", vram_gb=16, monthly=True),
        ],
    )
    async with running_app(telegram, db_path):
        await reply_to(telegram, "/fit 13b qlora gpu=4090 dataset=20k tokens=1024")
        details = await press(telegram, "Подробнее")
    line = next(line for line in details.splitlines() if "Почасовая или помесячная" in line)
    assert "RTX 4090 ×1" in line
    assert "A2" not in line


async def test_a_count_named_with_the_card_does_not_narrow_the_best_options(
    telegram: FakeTelegram, db_path: Path
):
    await seed(
        db_path,
        [
            make_offer(
                "h200nvl-x2",
                1_290_000 / 720,
                provider="selectel",
                gpu="H200 NVL",
                gpu_count=2,
                vram_gb=141,
                monthly=True,
            ),
            make_offer("a100", 229.5, provider="immers", gpu="A100 80GB PCIe", vram_gb=80),
            make_offer("6000ada", 134.5, provider="immers", gpu="RTX 6000 Ada", vram_gb=48),
            make_offer("4090x4", 318.4, provider="immers", gpu="RTX 4090", gpu_count=4),
        ],
    )
    async with running_app(telegram, db_path):
        epoch = await reply_to(
            telegram, "70b qlora на 2x 4090 с fsdp сколько будет идти эпоха на 20к примеров?"
        )
        mixtral = await reply_to(telegram, "mixtral 8x7b qlora влезет в 2x 4090?")
    for text in (epoch, mixtral):
        assert "2× RTX 4090" in text  # the verdict is about the cards asked
        assert "A100 80GB PCIe" in text
        assert "число карт" not in text
    assert "RTX 6000 Ada" in mixtral
    assert "RTX 4090 ×4" in epoch


async def test_a_month_question_is_answered_in_months(telegram: FakeTelegram, db_path: Path):
    await seed(
        db_path,
        [
            h100("h100-a", 1, 456.27),
            h100("h100-b", 1, 459.87, provider="immers"),
            h100("h100x8-month", 8, 3_600_000 / 720, provider="hostkey", monthly=True),
        ],
    )
    async with running_app(telegram, db_path):
        month = await reply_to(telegram, "сколько стоит h100 в месяц?")
        monthly = await reply_to(telegram, "h100 помесячно сколько стоит?")
        english = await reply_to(telegram, "how much is h100 per month?")
        hour = await reply_to(telegram, "сколько стоит h100?")
    lines = [line for line in month.splitlines() if line.startswith("•")]
    # 456,27 ₽/h × the 720-hour month providers bill; ranked by month per GPU.
    assert "≈328\u202f514 ₽/мес при аренде 24/7" in lines[0]
    assert "≈331\u202f106 ₽/мес при аренде 24/7" in lines[1]
    assert "450\u202f000 ₽/мес за GPU, 3\u202f600\u202f000 ₽ за сервер" in lines[2]
    assert not any("₽/ч" in line for line in lines)
    assert "450\u202f000 ₽/мес за GPU" in monthly
    assert "per GPU" in english
    assert "24/7" in english
    # An hourly question is answered as before.
    assert "456,27 ₽/ч" in hour
    assert "3\u202f600\u202f000 ₽/мес за весь сервер" in hour
