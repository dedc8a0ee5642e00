"""The rendered answer is valid Telegram HTML within limits; the CLI's text, JSON and exits."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bot.fake_telegram.html import parse_telegram_html, utf16_len
from estimator.__main__ import main
from estimator.answer import build_answer, to_json
from estimator.cost import PriceQuote
from estimator.fit import Verdict, judge_run
from estimator.fit_words import understand
from estimator.gpus import get, load_gpus
from estimator.parse import QueryError
from estimator.query import Sharding
from estimator.sizing_text import render, render_details, render_short, to_plain
from tests.in_process import Finished, run_entry

ROOT = Path(__file__).resolve().parents[2]

QUERIES = [
    "13b qlora ctx=4096",
    "70b full gpus=8",
    "llama 3 8b lora ctx=16k bs=4 rank=128 gpu=t4 dataset=20000 epochs=3",
    "mixtral 8x7b qlora ctx=8k gpu=h100",
    "405b qlora gpus=8 shard=fsdp",
    "qwen2.5 0.5b full ctx=512 dataset=1000",
]


QUOTES = [
    PriceQuote("RTX 4090", 1, "immers.cloud", rub_per_hour=83.0, rub_per_month=45_000),
    PriceQuote("A100 80GB SXM", 1, "Selectel", rub_per_hour=212.0, rub_per_month=120_000),
    PriceQuote("A100 80GB SXM", 8, "Selectel", rub_per_hour=1700.0, rub_per_month=None),
    PriceQuote("H100 SXM", 1, "HOSTKEY", rub_per_hour=None, rub_per_month=250_000),
    PriceQuote("H100 SXM", 8, "immers.cloud", rub_per_hour=2800.0, rub_per_month=1_800_000),
]


@pytest.mark.parametrize("text", QUERIES)
@pytest.mark.parametrize("language", ["ru", "en"])
@pytest.mark.parametrize("quotes", [[], QUOTES], ids=["no prices", "prices"])
def test_short_answers_fit_a_phone_and_details_fit_a_message(
    text: str, language: str, quotes: list[PriceQuote]
):
    parsed = understand(text)
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), quotes)
    short = render_short(answer, language)
    details = render_details(answer, language)
    short_plain = parse_telegram_html(short)  # raises on anything Telegram would reject
    assert 0 < utf16_len(short_plain) < 900
    assert 0 < utf16_len(parse_telegram_html(details)) <= 4096
    assert ("Пик" if language == "ru" else "Peak") in short_plain


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_verdict_is_on_nvidia_smi_and_the_details_show_all_three_figures(language: str):
    parsed = understand("8b qlora ctx=8k gpu=3090")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus())
    memory = answer.memory
    assert memory.allocated < memory.reserved < memory.peak
    assert answer.target is not None
    assert answer.target.peak_gib == memory.peak  # graded on the nvidia-smi figure
    short = parse_telegram_html(render_short(answer, language))

    def shown(value: float) -> str:  # Russian writes a decimal comma
        return f"{value:.1f}".replace(".", ",") if language == "ru" else f"{value:.1f}"

    assert "nvidia-smi" in short
    assert shown(memory.peak) in short
    details = parse_telegram_html(render_details(answer, language))
    figures = shown(memory.allocated), shown(memory.reserved), shown(memory.peak)
    # The figures line (a caution may also say "allocated"): it names all three metrics.
    unit = "ГиБ" if language == "ru" else "GiB"
    line = next(line for line in details.splitlines() if "allocated" in line and unit in line)
    assert "reserved" in line
    assert "nvidia-smi" in line
    positions = [line.index(figure) for figure in figures]
    assert positions == sorted(positions)  # allocated, reserved, nvidia-smi in that order


def test_the_details_time_is_the_asked_cards_and_names_it():
    """The table lists faster cards first; the details' time line is the card asked about."""
    parsed = understand("70b qlora dataset=100k gpu=a100-80")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus())
    assert answer.target is not None
    asked = answer.times[answer.target.gpu.id]
    assert any(t.tokens_per_second > asked.tokens_per_second for t in answer.times.values())
    details = parse_telegram_html(render_details(answer, "ru"))
    line = next(line for line in details.splitlines() if line.startswith("Время на "))
    assert line.startswith(f"Время на {answer.target.gpu.id}: ")
    assert f"{asked.tokens_per_second:,.0f}".replace(",", "\u202f") in line
    assert "e+" in line
    assert "." not in line.split("×")[1]  # 4,27e+11: a decimal comma


def short_ru(question: str) -> str:
    parsed = understand(question)
    assert parsed is not None
    return parse_telegram_html(render_short(build_answer(parsed, load_gpus()), "ru"))


def test_a_ddp_set_too_small_says_fsdp_is_what_more_cards_need():
    """Under DDP every card holds the whole model: the count that fits is FSDP's, and the
    answer says so with the settings to ask for it, not «мало — нужно 3 шт.»."""
    run = "mixtral 8x7b qlora ctx=8192 gpu=4090"
    two = short_ru(f"{run} gpus=2")
    assert "каждая карта держит всю модель" in two
    # The count that fits with room: one card fewer would hold it only «впритык».
    advised = re.search(r"gpus=(\d+) shard=fsdp", two)
    assert advised is not None
    count = int(advised.group(1))
    assert count > 2
    assert "⚠️" in short_ru(f"{run} gpus={count - 1} shard=fsdp").splitlines()[1]
    enough = short_ru(f"{run} gpus={count}")
    assert "с FSDP поместится: shard=fsdp" in enough
    sharded = short_ru(f"{run} gpus={count} shard=fsdp")
    assert "✅" in sharded.splitlines()[1]  # the advice, followed, holds with room


def test_a_single_cards_peak_is_said_to_be_on_one_card():
    alone = short_ru("llama 3 70b full")
    assert "Одной карты мало" in alone
    # The whole run, not each card of the set suggested (after the peak and its range).
    assert re.search(r"ГиБ \(вероятно [^)]+\) на одной GPU", alone)
    each = short_ru("llama 3 70b full gpus=8 stack=torchtune")
    assert re.search(r"ГиБ \(вероятно [^)]+\) на каждой GPU", each)


def test_a_number_the_reader_did_not_place_is_said_not_counted():
    assert "Не учёл «64 гб»" in short_ru("8b lora, контекст 4к, RAM 64 гб")
    assert "Не учёл «20000»" in short_ru("8b lora, а если 20000?")
    # A small count, a year or a version of the person's life is no setting left out.
    for text in ("8b lora, ctx 4096, я студент и у меня 2 собаки", "8b lora, в 2024 году"):
        assert "Не учёл" not in short_ru(text)


def test_each_card_compared_is_judged_at_the_count_named_with_it():
    """«сравни 2x a100 и 1x h100» judged the H100 as two as well and left «1x» unread."""
    answer = short_ru("сравни 2x a100 и 1x h100 для 70b qlora")
    assert "Не учёл" not in answer
    lines = answer.splitlines()
    assert any(line.startswith("❌ 2× A100 40GB PCIe (ddp)") for line in lines)
    assert any(line.startswith("✅ H100 PCIe: помещается") for line in lines)
    # With no count of its own a compared card is judged at the run's count, as before.
    same = short_ru("сравни 2x a100 и h100 для 70b qlora").splitlines()
    assert any(line.startswith("✅ 2× H100 PCIe (ddp)") for line in same)


def test_a_model_named_by_another_of_its_names_says_which_model_is_sized():
    """ "Llama 3.1 70B" was titled Llama-3.3-70B with nothing said: another model's name."""
    assert "Llama-3.1-70B считаю как Llama-3.3-70B" in short_ru("Llama 3.1 70B qlora")
    assert "T-lite считаю как Qwen2.5-7B" in short_ru("t-lite lora")
    # The model's own name, or a shorter spelling of it, says nothing more.
    for text in ("llama 3.3 70b qlora", "mixtral 8x7b lora", "llama 70b qlora"):
        assert "считаю как" not in short_ru(text)


def test_a_sum_in_another_currency_is_said_not_counted_and_never_read_as_roubles():
    """«бюджет 300 евро» was a budget of 300 ₽; "$500" got the generic «не понял»."""
    for text, words in (("8b qlora бюджет 300 евро", "«300 евро»"), ("8b qlora, $500", "«$500»")):
        answer = short_ru(text)
        assert f"Не учёл {words}: цены и бюджет — в рублях" in answer
        assert "Бюджет" not in answer


def test_several_cards_of_a_memory_size_are_judged_as_the_set_with_fsdp_when_it_helps():
    """«70b qlora на 2 картах по 48 гб» was judged as one 48 GB card, with no word of the
    second or of sharding."""
    answer = short_ru("70b qlora на 2 картах по 48 гб")
    assert "❌ 2 карты на 48 ГБ (ddp)" in answer
    assert "с FSDP на тех же картах — пик до" in answer
    assert "shard=fsdp" in answer
    assert "Карте на 48 ГБ" not in answer


def test_how_many_epochs_a_time_limit_holds_is_answered_per_card():
    """«сколько эпох успею за 10 часов?» was told which card finishes one epoch in time."""
    parsed = understand("8b lora на 100к примеров на h100, сколько эпох успею за 10 часов?")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), [])
    line = next(
        line for line in to_plain(render_short(answer, "ru")).splitlines() if line.startswith("⏱")
    )
    time = answer.times[answer.target.gpu.id] if answer.target else None
    assert time is not None
    low, high = (f"{10 / t:.1f}".replace(".", ",") for t in (time.band.high, time.band.low))
    assert line == f"⏱ За 10 ч успеете: H100 PCIe — ~{low}–{high} эпохи."


def test_a_second_value_model_or_method_is_said_not_counted():
    """«ctx 4096, контекст 8к» sized 4096 and said nothing of 8k; a second model or method
    named was dropped in silence too."""
    twice = short_ru("8b qlora ctx 4096, контекст 8к")
    assert "❓ ctx назван дважды — считаю первое значение (ctx=4096), второе не учёл." in twice
    two = short_ru("8b qlora и 13b lora")
    assert "❓ Вторую модель (13B) не считаю" in two
    assert "❓ Второй метод (lora) не считаю" in two
    # /fit keeps the last of a key given twice, as a config file would, and says so.
    assert "❓ ctx задан дважды — считаю последнее значение (ctx=8192)" in short_ru(
        "8b qlora ctx=4096 ctx=8192"
    )
    # Two methods compared are answered as such, not said to be dropped.
    assert "Второй метод" not in short_ru("сравни lora и qlora для 13b")


def test_more_servers_are_advised_only_where_they_hold_the_run_with_room() -> None:
    """A 14B QLoRA at bs 8 × 4096 was told «хватит 32 шт. … на 4 серверах»: only tight there,
    since sharding splits the weights and not a card's activations; a smaller batch is the
    fix, and the answer now says how far over the card the run is."""
    parsed = understand("qwen2.5 14b qlora ctx=4096 bs=8 gpu=h100")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), [])
    assert answer.across_servers is None
    # Within one server a count that holds the run only tightly is said to be tight.
    tight = short_ru("8b qlora ctx=8192 gpu=4090")
    assert "впритык на 2 шт. с шардированием" in tight
    assert "хватит 2 шт." not in tight
    big = understand("How many H100s do I need to full fine-tune Llama 3.1 70B?")
    assert big is not None
    across = build_answer(big, load_gpus(), []).across_servers
    assert across is not None
    sharded = replace(big.query, gpus=across, shard=Sharding.FSDP)
    assert judge_run(sharded, big.model, get("H100 PCIe").usable_gib).verdict is Verdict.FITS


def test_a_value_outside_its_range_is_said_not_counted_with_the_range():
    """«бюджет 0 рублей» was dropped in silence: the answer looked as if it had no budget."""
    assert "Не учёл budget: значение вне допустимого (1…1\u202f000\u202f000\u202f000)" in short_ru(
        "8b qlora бюджет 0 рублей"
    )
    assert "Не учёл epochs" in short_ru("8b qlora, 0 эпох")
    assert "Не учёл" not in short_ru("8b qlora, бюджет 5000 рублей, 2 эпохи")


def test_an_8_bit_base_is_said_to_be_sized_as_16_bit():
    assert "8-битную базу (load_in_8bit) не считаю" in short_ru("8b lora load_in_8bit на 4090")
    assert "8-битную базу" not in short_ru("8b lora, оптимизатор 8 бит")


def test_a_cards_memory_asked_by_its_size_is_judged_on_the_least_such_cards_give() -> None:
    no = short_ru("хватит ли 24 гб для 13b lora?")
    assert "❌ Карте на 24 ГБ не хватит" in no
    assert "Не учёл" not in no
    assert "✅ Карте на 48 ГБ" in short_ru("хватит ли 48 гб для 8b qlora?")


def test_a_time_limit_is_judged_on_the_high_end_of_the_hours() -> None:
    on_card = short_ru("8b qlora на 4090, датасет 20к, успею за 3 часа?")
    assert "⏱ В 3 ч не уложитесь: быстрее всего RTX 4090" in on_card
    anywhere = short_ru("8b qlora, датасет 20к, хочу уложиться в 5 часов")
    assert "⏱ В 5 ч уложитесь:" in anywhere
    assert "датасет" in short_ru("8b qlora, успею за 5 часов?").split("⏱")[1]


def test_the_asked_card_keeps_a_line_among_the_best_plans():
    """Cheaper cards may fill every place; the card asked about still gets its time and
    cost, last."""
    quotes = [
        PriceQuote("RTX 3090", 1, "immers.cloud", rub_per_hour=55.0, rub_per_month=None),
        PriceQuote("RTX 4090", 1, "immers.cloud", rub_per_hour=83.0, rub_per_month=None),
        PriceQuote("RTX A6000", 1, "immers.cloud", rub_per_hour=95.0, rub_per_month=None),
        PriceQuote("A100 80GB SXM", 1, "Selectel", rub_per_hour=212.0, rub_per_month=None),
        # Dear enough that three cheaper runs come first.
        PriceQuote("H100 SXM", 1, "Selectel", rub_per_hour=1500.0, rub_per_month=None),
    ]
    parsed = understand("llama 3 8b qlora dataset=10k tokens=512 epochs=3 gpu=h100")
    assert parsed is not None
    best = to_plain(render_short(build_answer(parsed, load_gpus(), quotes), "ru"))
    lines = [line for line in best.splitlines() if line[:2] in ("1.", "2.", "3.", "4.")]
    assert len(lines) == 3
    assert lines[-1].startswith("3. H100 SXM ×1 · Selectel — ")
    assert "≈" in lines[-1]  # its time and cost: what was asked
    plain = understand("llama 3 8b qlora dataset=10k tokens=512 epochs=3")
    assert plain is not None
    assert "H100" not in to_plain(render_short(build_answer(plain, load_gpus(), quotes), "ru"))


def test_an_h100_that_is_too_small_gets_the_h200_advice_and_advice_with_savings():
    parsed = understand("70b qlora ctx=16k gpu=h100")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus())
    assert answer.target is not None
    assert answer.target.gpu.family == "H100"
    codes = [item.code for item in answer.advice]
    assert codes[0] == "h200"
    assert "unsloth" in codes
    assert all(item.saves_gib > 0 for item in answer.advice[1:])
    message = render(answer, "ru")
    assert "H200 (141 ГБ) вместо H100" in message


def test_warnings_from_the_guides():
    parsed = understand("7b lora rank=128 gpu=t4 precision=bf16 dataset=5000")
    assert parsed is not None
    codes = {caution.code for caution in build_answer(parsed, load_gpus()).cautions}
    assert {"no_bf16", "high_rank", "dataloader_workers"} <= codes


def test_prices_are_turned_into_costs_with_the_monthly_tip():
    parsed = understand("8b lora dataset=200000 tokens=1024 epochs=3")
    assert parsed is not None
    quotes = [
        PriceQuote("RTX 4090", 1, "immers", rub_per_hour=90.0, rub_per_month=None),
        PriceQuote("RTX 4090", 1, "hostkey", rub_per_hour=None, rub_per_month=40_000),
        PriceQuote("A100 80GB SXM", 1, "selectel", rub_per_hour=250.0, rub_per_month=None),
    ]
    answer = build_answer(parsed, load_gpus(), quotes)
    assert answer.plans
    # The cheapest first among the plans with room, then the tight ones.
    for verdict in (Verdict.FITS, Verdict.TIGHT):
        costs = [plan.cost_rub for plan in answer.plans if plan.verdict is verdict]
        assert costs == sorted(costs)  # type: ignore[type-var]
    verdicts = [plan.verdict for plan in answer.plans]
    assert verdicts == sorted(verdicts, key=[Verdict.FITS, Verdict.TIGHT].index)
    assert answer.break_even is not None
    assert answer.break_even.hourly.provider == "immers"
    assert "₽" in render(answer, "ru")


def test_json_has_the_documented_keys():
    parsed = understand("13b qlora ctx=4096 dataset=10000")
    assert parsed is not None
    data = to_json(build_answer(parsed, load_gpus()))
    assert set(data) >= {
        "query",
        "target_gpu",
        "peak_gb",
        "breakdown",
        "fits",
        "hours",
        "assumptions",
        "warnings",
    }
    assert set(data["query"]) >= {
        "model",
        "params_b",
        "method",
        "ctx",
        "micro_batch",
        "lora_rank",
        "targets",
        "optimizer",
        "precision",
        "grad_checkpointing",
        "gpus",
        "shard",
    }
    assert set(data["breakdown"]) == {
        "weights",
        "adapters",
        "gradients",
        "optimizer",
        "activations",
        "overhead",
    }
    assert data["peak_gb"] == pytest.approx(sum(data["breakdown"].values()), abs=0.05)
    assert {"gpu", "vram_gb", "headroom_gb", "verdict"} <= set(data["fits"][0])
    assert data["hours"]


def test_command_mistakes_are_errors_and_chatter_is_none():
    with pytest.raises(QueryError):
        understand("13b qlora ctx=lots")
    assert understand("привет, как дела?") is None


def run_cli(*args: str) -> Finished:
    """`python -m estimator ARGS`, its main() run in this process (tests/in_process.py)."""
    return run_entry(lambda: main(list(args)), env={}, cwd=ROOT, argv=("-m", *args))


def test_cli_prints_the_answer_and_json():
    text = run_cli("13b qlora ctx=4096")
    assert text.returncode == 0, text.stderr
    assert "Peak: " in text.stdout
    assert "<b>" not in text.stdout
    as_json = run_cli("--json", "хватит ли 4090 для 13b qlora на 4k контексте?")
    data = json.loads(as_json.stdout)
    assert data["target_gpu"] == "RTX 4090"
    assert data["query"]["ctx"] == 4096


@pytest.mark.parametrize("text", ["13b ctx=abc", "добрый вечер"])
def test_cli_exits_2_with_one_line_on_unreadable_input(text: str):
    result = run_cli(text)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_the_cli_is_quiet_when_its_reader_goes_away():
    """`python -m estimator … | head -1`: the closed pipe ends it without a traceback."""
    process = subprocess.Popen(
        [sys.executable, "-m", "estimator", "8b qlora"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    process.stdout.close()  # the reader is gone before the answer is written
    _, stderr = process.communicate(timeout=60)
    assert b"Traceback" not in stderr
    assert process.returncode in (0, 1)


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("сколько часов на h100 для 8b lora на 1 млрд токенов", "H100 PCIe"),
        ("70b qlora on 2 h100, 1 epoch over 10k samples", "H100 PCIe"),
    ],
)
def test_the_card_asked_about_carries_its_time_beside_its_verdict(text: str, card: str) -> None:
    parsed = understand(text)
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), [])
    assert answer.target is not None
    assert answer.target.gpu.id == card
    verdict = next(
        line for line in to_plain(render_short(answer, "ru")).splitlines() if card in line
    )
    timing = answer.times[card]
    assert verdict.startswith("✅")
    assert verdict.endswith(("ч", "сут", "мин"))
    assert timing.hours > 0


def test_a_card_of_the_same_family_that_is_only_tight_is_not_said_to_fit() -> None:
    parsed = understand("3080 13b qlora")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), [])
    assert answer.also is not None
    assert answer.also.verdict is Verdict.TIGHT
    for language, tight in (("ru", "впритык"), ("en", "tight")):
        line = next(
            line
            for line in to_plain(render_short(answer, language)).splitlines()
            if line.startswith("🔸")
        )
        assert tight in line
        assert "-" not in line.replace("—", "")


def test_a_setting_that_changes_neither_memory_nor_time_is_said_not_refused() -> None:
    parsed = understand("обучаю gemma 3 12b, контекст 8к, батч 2, lora r=16 alpha=32")
    assert parsed is not None
    short = to_plain(render_short(build_answer(parsed, load_gpus(), []), "ru"))
    assert "alpha=32: не влияет ни на память, ни на время" in short


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("нужно 2 эпохи на датасете в 300 мб текста, модель 14b, qlora", "dataset≈54545455tok"),
        ("8b lora на 1 млрд токенов", "dataset=1000000000tok"),
    ],
)
def test_a_dataset_in_tokens_or_text_is_shown_as_read(text: str, read: str) -> None:
    parsed = understand(text)
    assert parsed is not None
    short = to_plain(render_short(build_answer(parsed, load_gpus(), []), "ru"))
    line = next(line for line in short.splitlines() if line.startswith("Прочитал:"))
    assert read in line


def test_how_many_cards_beyond_one_server_is_answered_in_whole_servers() -> None:
    parsed = understand("How many H100s do I need to full fine-tune Llama 3.1 70B?")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), [])
    assert answer.across_servers is not None
    assert answer.across_servers % 8 == 0
    assert answer.across_servers > 8
    short = to_plain(render_short(answer, "en"))
    line = next(line for line in short.splitlines() if line.startswith("❌ H100"))
    servers = answer.across_servers // 8
    assert f"{answer.across_servers} of them sharded across {servers} servers" in line
    small = understand("8b qlora on h100")
    assert small is not None
    assert build_answer(small, load_gpus(), []).across_servers is None  # one card holds it


def test_a_reverse_question_on_a_card_of_a_size_is_solved_on_that_size() -> None:
    parsed = understand("what batch size can I use for 7b qlora on a 24gb card?")
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), [])
    assert answer.solved is not None
    assert answer.solved.value is not None
    first = to_plain(render_short(answer, "en")).splitlines()[0]
    assert first.startswith("📐 Max micro-batch on 1× 24 GB card:")


def test_a_time_limit_on_a_card_that_cannot_hold_the_run_is_answered_on_cards_that_can() -> None:
    text = "qwen3 4b lora, контекст 2к, батч 8, на 4090 — уложусь за 3 часа на 30к примерах?"
    parsed = understand(text)
    assert parsed is not None
    answer = build_answer(parsed, load_gpus(), [])
    assert answer.target is not None
    assert answer.target.verdict is Verdict.NO
    lines = to_plain(render_short(answer, "ru")).splitlines()
    budget = next(line for line in lines if line.startswith("⏱"))
    assert "нужен размер датасета" not in budget  # the dataset was said: 30 000 examples
    assert "RTX 4090" not in budget


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("8b qlora без unsloth", "stack=hf"),
        ("8b qlora, градиентный чекпоинтинг", "gc=on"),
        ("/fit 8b lora rank=16", "rank=16"),
    ],
)
def test_a_lever_said_at_its_default_is_shown_as_read(text: str, read: str) -> None:
    parsed = understand(text)
    assert parsed is not None
    short = to_plain(render_short(build_answer(parsed, load_gpus(), []), "ru"))
    assert f"Прочитал: {read}" in short
    unsaid = understand("8b qlora")
    assert unsaid is not None
    assert "Прочитал:" not in to_plain(render_short(build_answer(unsaid, load_gpus(), []), "ru"))
