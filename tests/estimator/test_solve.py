"""Reverse questions (estimator.solve): ctx=max, bs=max, rank=max and their free questions.

The property: over models (catalogue entries and bare sizes), every GPU of the catalogue,
methods and card counts, the solved value fits with headroom by the answer's own verdict
(Verdict.FITS) and the next step up (ctx +25 %, bs +1, rank ×2) does not, unless the solved
value is the lever's cap; when nothing fits with headroom, not even the smallest value does.
The tight value reported beside it is graded tight, and the grid's next value after it is
over the card.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from estimator.__main__ import main
from estimator.answer import build_answer, to_json
from estimator.cost import PriceQuote
from estimator.fit import Verdict, judge_run
from estimator.fit_words import command_for, understand
from estimator.followup import apply_followup
from estimator.gpus import load_gpus
from estimator.models import get_model, model_for_size
from estimator.parse import QueryError, parse_command, parse_question
from estimator.query import FitQuery, Method, Sharding, Stack
from estimator.sizing_text import render_short, to_plain
from estimator.solve import (
    CTX_STEP,
    Lever,
    Outcome,
    ctx_cap,
    fits,
    grid,
    holds_at_all,
    largest,
    next_step,
    solve_for,
    verdict,
    with_value,
)
from estimator.solve_text import model_example, unnamed_reverse
from estimator.specs import GpuSpec, ModelSpec

GPUS = load_gpus()
MODELS = (
    "Llama-3.1-8B",
    "Llama-2-13B",
    "Qwen2.5-7B",
    "Mistral-7B-v0.3",
    "Gemma-2-9B",
    "Phi-3-mini",
    "Mixtral-8x7B-v0.1",
    "Llama-3.3-70B",
)
SIZES = (0.5, 3.0, 8.0, 13.0, 34.0)


def _model(name: str | float) -> ModelSpec:
    return model_for_size(name) if isinstance(name, float) else get_model(name)


runs = st.builds(
    lambda model, method, gpus, stack, ctx, bs: (model, method, gpus, stack, ctx, bs),
    st.one_of(st.sampled_from(MODELS), st.sampled_from(SIZES)),
    st.sampled_from(list(Method)),
    st.sampled_from((1, 1, 2, 8)),
    st.sampled_from((Stack.HF, Stack.UNSLOTH, Stack.TORCHTUNE)),
    st.sampled_from((512, 2048, 4096)),
    st.sampled_from((1, 2)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=runs, gpu=st.sampled_from(GPUS), lever=st.sampled_from(list(Lever)))
def test_the_solved_value_fits_and_the_next_step_does_not(
    run: tuple[str | float, Method, int, Stack, int, int], gpu: GpuSpec, lever: Lever
) -> None:
    name, method, count, stack, ctx, bs = run
    if lever is Lever.RANK and method is Method.FULL:
        return  # a full fine-tune has no rank (the parser refuses rank=max for it)
    model = _model(name)
    shard = Sharding.DDP if count == 1 or method is not Method.FULL else Sharding.ZERO3
    query = FitQuery(
        model=model.id,
        method=method,
        ctx=ctx,
        micro_batch=bs,
        gpus=count,
        shard=shard,
        stack=stack,
    )
    solution = solve_for(lever, query, model, gpu)
    assert solution.value is not None
    at = with_value(query, lever, solution.value)
    values = list(grid(lever, model))
    tight = solution.tight_value
    if tight is not None:
        assert tight >= solution.value
        assert verdict(with_value(query, lever, tight), model, gpu) is Verdict.TIGHT
        after_tight = values.index(tight) + 1
        if after_tight < len(values):
            assert not holds_at_all(with_value(query, lever, values[after_tight]), model, gpu)
    if solution.outcome is Outcome.NONE_FITS:
        assert solution.value == values[0]
        assert not fits(at, model, gpu)
        assert solution.over_gib is not None
        assert (solution.over_gib > 0) is (tight is None)
        return
    assert verdict(at, model, gpu) is Verdict.FITS
    assert tight is None or tight > solution.value
    if solution.outcome is Outcome.AT_CAP:
        assert solution.value == solution.cap
        assert solution.next_value is None
        return
    assert solution.next_value is not None
    assert not fits(with_value(query, lever, solution.next_value), model, gpu)
    assert solution.over_gib is not None
    if tight is None:  # no tight value: the next step is over the card
        assert solution.over_gib > 0
    if lever is Lever.CTX:
        assert solution.value % CTX_STEP == 0
        assert solution.next_value >= solution.value * 1.25 or solution.next_value == solution.cap
    elif lever is Lever.BS:
        assert solution.next_value == solution.value + 1
    else:
        assert solution.next_value == solution.value * 2


@settings(max_examples=40, deadline=None)
@given(
    edge=st.integers(min_value=-1, max_value=1100), size=st.integers(min_value=1, max_value=1100)
)
def test_largest_finds_the_edge_of_any_monotone_predicate(edge: int, size: int) -> None:
    values = range(size)
    found = largest(lambda value: value <= edge, values)
    if edge < 0:
        assert found is None
    else:
        assert found == min(edge, size - 1)


def test_next_steps_and_caps() -> None:
    model = get_model("Llama-3.1-8B")
    assert ctx_cap(model) == 131_072
    assert ctx_cap(get_model("Llama-2-7B")) == 4096
    assert next_step(Lever.CTX, 12_288, 131_072) == 15_360  # +25 %
    assert next_step(Lever.CTX, 256, 131_072) == 512  # rounded up onto the 256 grid
    assert next_step(Lever.CTX, 4096, 4096) is None  # the model's native window
    assert next_step(Lever.BS, 7, 1024) == 8
    assert next_step(Lever.RANK, 64, 1024) == 128
    assert list(grid(Lever.RANK, model)) == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


def test_the_answer_is_sized_at_the_solved_value_and_its_verdict_agrees() -> None:
    for text in (
        "8b qlora ctx=max gpu=3090",
        "13b lora bs=max gpu=a100-80",
        "8b lora r=max gpu=5090",
    ):
        answer = build_answer(understand(text), GPUS)  # type: ignore[arg-type]
        solved = answer.solved
        assert solved is not None
        assert solved.outcome in (Outcome.SOLVED, Outcome.AT_CAP)
        field = {Lever.CTX: "ctx", Lever.BS: "micro_batch", Lever.RANK: "lora_rank"}[solved.lever]
        assert getattr(answer.query, field) == solved.value
        assert answer.target is not None
        assert answer.target.verdict is Verdict.FITS  # with headroom, never «впритык»


@pytest.mark.parametrize(
    ("text", "lever"),
    [
        ("какой максимальный контекст влезет для llama 3 8b qlora на 4090?", Lever.CTX),
        ("какой batch влезет для 7b лора на 4090 ctx 2048?", Lever.BS),
    ],
)
def test_the_maximum_leaves_the_verdicts_headroom_and_names_the_tight_values(
    text: str, lever: Lever
) -> None:
    """The largest value the answer itself grades «впритык» is no maximum to promise: the
    maximum is the largest graded «помещается», the tight ones above it are named."""
    parsed = parse_question(text)
    assert parsed is not None
    answer = build_answer(parsed, GPUS)
    solved = answer.solved
    assert solved is not None
    assert solved.lever is lever
    assert solved.outcome is Outcome.SOLVED
    assert answer.target is not None
    assert answer.target.verdict is Verdict.FITS
    assert solved.tight_value is not None
    assert solved.tight_value > (solved.value or 0)
    tight = with_value(answer.query, lever, solved.tight_value)
    assert verdict(tight, parsed.model, answer.target.gpu) is Verdict.TIGHT
    ru = to_plain(render_short(answer, "ru")).splitlines()[0]
    shown = f"{solved.tight_value:,}".replace(",", "\u202f")
    assert ru.endswith(f"; до {shown} — впритык")


# --- the grammar --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lever"),
    [
        ("8b qlora ctx=max gpu=3090", "ctx"),
        ("8b qlora bs=max gpu=3090", "bs"),
        ("8b lora rank=max gpu=4090", "rank"),
        ("8b lora r=max gpu=4090", "rank"),
        ("8b qlora context=MAX gpu=3090", "ctx"),
    ],
)
def test_the_command_reads_max(text: str, lever: str) -> None:
    parsed = parse_command(text)
    assert parsed.solve == lever
    # The solved lever is not assumed: the answer says the value found.
    key = {"ctx": "ctx", "bs": "micro_batch", "rank": "lora_rank"}[lever]
    assert parsed.assumed(key) is None
    assert understand(command_for(parsed)) == parsed  # round-trips as ctx=max


def test_the_command_refuses_two_levers_and_a_rank_for_full() -> None:
    with pytest.raises(QueryError) as two:
        parse_command("8b qlora ctx=max bs=max gpu=3090")
    assert two.value.code == "conflict"
    with pytest.raises(QueryError) as full:
        parse_command("8b full rank=max gpu=h100")
    assert full.value.code == "conflict"


@pytest.mark.parametrize(
    ("text", "lever", "gpu", "family"),
    [
        ("какой максимальный контекст влезет на 3090 для 8b qlora?", "ctx", "RTX 3090", None),
        ("максимальный batch на 4090 для 13b lora", "bs", "RTX 4090", None),
        ("какой batch поставить на a100 для 8b?", "bs", None, "A100"),
        ("какой максимальный ранг лоры влезет для 8b lora на 4090", "rank", "RTX 4090", None),
        ("max context on a 3090 for 8b qlora", "ctx", "RTX 3090", None),
        ("what batch size fits an a100 for 8b qlora", "bs", None, "A100"),
        ("largest lora rank for 8b lora on a 4090", "rank", "RTX 4090", None),
    ],
)
def test_free_questions_ask_for_the_largest(
    text: str, lever: str, gpu: str | None, family: str | None
) -> None:
    parsed = parse_question(text)
    assert parsed is not None
    assert parsed.solve == lever
    assert (parsed.target_gpu, parsed.target_family) == (gpu, family)


@pytest.mark.parametrize(
    "text",
    [
        "8b qlora max context 8k on a 3090",  # a value: it sets ctx
        "максимальная длина 4096 для 8b на 3090",
        "хватит ли 4090 для 13b на 4k контексте?",
        "13b lora batch 4 на 4090",
    ],
)
def test_a_value_after_the_word_is_no_reverse_question(text: str) -> None:
    parsed = parse_question(text)
    assert parsed is not None
    assert parsed.solve is None


def test_a_reverse_follow_up_changes_the_last_sizing() -> None:
    last = understand("8b qlora gpu=3090")
    assert last is not None
    asked = apply_followup(last, "какой batch поставить на a100?")
    assert asked is not None
    assert asked.solve == "bs"
    assert asked.target_family == "A100"
    # After ctx=max, «а какой batch?» solves for the batch alone.
    again = apply_followup(understand("8b qlora ctx=max gpu=3090"), "а какой batch?")  # type: ignore[arg-type]
    assert again is not None
    assert again.solve == "bs"


# --- the answers --------------------------------------------------------------------------


def test_the_short_answer_says_the_value_and_the_next_step_in_both_languages() -> None:
    # At ctx 32k a second sample of a 1B LoRA (its 128k-entry vocabulary's logits) is over an
    # H100 outright: no tight value, the next step's miss.
    answer = build_answer(understand("1b lora bs=max ctx=32k gpu=h100"), GPUS)  # type: ignore[arg-type]
    solved = answer.solved
    assert solved is not None
    assert solved.value is not None
    assert solved.next_value is not None
    assert solved.tight_value is None
    ru = to_plain(render_short(answer, "ru")).splitlines()
    assert ru[0].startswith(f"📐 Максимальный micro-batch на 1× H100 PCIe: {solved.value}")
    assert f"следующий шаг ({solved.next_value}) не влезет на " in ru[0]
    assert f"bs {solved.value}" in ru[1]  # then the normal answer, sized at the solved value
    en = to_plain(render_short(answer, "en")).splitlines()
    assert en[0].startswith(f"📐 Max micro-batch on 1× H100 PCIe: {solved.value}")
    assert f"the next step ({solved.next_value}) would not fit by " in en[0]


def test_the_short_answer_names_the_tight_values_above_the_maximum() -> None:
    answer = build_answer(understand("8b qlora ctx=max gpu=3090"), GPUS)  # type: ignore[arg-type]
    solved = answer.solved
    assert solved is not None
    assert solved.value is not None
    assert solved.tight_value is not None
    ru = to_plain(render_short(answer, "ru")).splitlines()
    value = f"{solved.value:,}".replace(",", "\u202f")
    tight = f"{solved.tight_value:,}".replace(",", "\u202f")
    assert ru[0].startswith(f"📐 Максимальный контекст на 1× RTX 3090: {value} токен")
    assert ru[0].endswith(f"; до {tight} — впритык")
    assert f"ctx {solved.value}" in ru[1]
    en = to_plain(render_short(answer, "en")).splitlines()
    assert en[0].startswith(f"📐 Max context on 1× RTX 3090: {solved.value:,} tokens")
    assert en[0].endswith(f"; up to {solved.tight_value:,} it is tight")


def test_without_a_card_the_answer_asks_for_one() -> None:
    answer = build_answer(understand("8b qlora ctx=max"), GPUS)  # type: ignore[arg-type]
    assert answer.solved is not None
    assert answer.solved.outcome is Outcome.NO_GPU
    ru = to_plain(render_short(answer, "ru"))
    assert "назовите карту" in ru
    assert "ctx=max gpu=" in ru
    assert "\n" not in ru  # a short answer, nothing else
    assert "name a card" in to_plain(render_short(answer, "en"))


def test_when_nothing_fits_the_answer_says_so() -> None:
    answer = build_answer(understand("70b full ctx=max gpu=4090"), GPUS)  # type: ignore[arg-type]
    assert answer.solved is not None
    assert answer.solved.outcome is Outcome.NONE_FITS
    assert to_plain(render_short(answer, "ru")).startswith("📐 На 1× RTX 4090 не влезает даже")
    assert to_json(answer)["solved"] == {"ctx": None}


def test_when_only_tight_values_fit_the_answer_says_so() -> None:
    # A 4B LoRA on a 10 GB 3080: even 256 tokens leave less than the verdict's headroom.
    answer = build_answer(understand("4b lora ctx=max gpu=3080-10"), GPUS)  # type: ignore[arg-type]
    solved = answer.solved
    assert solved is not None
    assert solved.outcome is Outcome.NONE_FITS
    assert solved.tight_value is not None
    assert answer.target is not None
    assert answer.target.verdict is Verdict.TIGHT
    ru = to_plain(render_short(answer, "ru")).splitlines()[0]
    assert ru.startswith("📐 На 1× RTX 3080 10GB с запасом не влезает даже контекст 256 токенов")
    tight = f"{solved.tight_value:,}".replace(",", "\u202f")  # 1 280: grouped digits
    assert ru.endswith(f"до {tight} — впритык.")
    assert "with headroom: up to " in to_plain(render_short(answer, "en"))
    data = to_json(answer)
    assert data["solved"] == {"ctx": None}
    assert data["solve"]["tight"] == solved.tight_value


def test_the_cheapest_card_question_names_the_planner_cheapest_plan() -> None:
    quotes = [
        PriceQuote(provider="a", gpu_id="RTX 3090", gpus=1, rub_per_hour=40.0, rub_per_month=None),
        PriceQuote(provider="b", gpu_id="RTX 4090", gpus=1, rub_per_hour=80.0, rub_per_month=None),
        PriceQuote(
            provider="c", gpu_id="A100 80GB SXM", gpus=1, rub_per_hour=200.0, rub_per_month=None
        ),
    ]
    last = understand("8b qlora gpu=3090")
    assert last is not None
    asked = apply_followup(last, "на какой самой дешёвой карте это пойдёт с ctx 8k?")
    assert asked is not None
    assert asked.query.ctx == 8192
    assert asked.target_gpu is None
    answer = build_answer(asked, GPUS, quotes)
    first = answer.plans[0]
    assert first.gpu.id != "RTX 3090"  # 8k does not fit a 3090: the planner skips it
    line = to_plain(render_short(answer, "ru")).splitlines()[0]
    assert line.startswith(f"💸 Дешевле всего это пойдёт на {first.gpu.id}")
    english = parse_question("cheapest card for 8b qlora with ctx 8k")
    assert english is not None
    assert to_plain(render_short(build_answer(english, GPUS, quotes), "en")).startswith(
        f"💸 Cheapest for this: {first.gpu.id}"
    )


# --- the CLI --------------------------------------------------------------------------------


def test_the_cli_returns_the_solved_value_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "8b qlora ctx=max gpu=3090"]) == 0
    data = json.loads(capsys.readouterr().out)
    ctx = data["solved"]["ctx"]
    assert isinstance(ctx, int)
    assert ctx % CTX_STEP == 0
    assert data["query"]["ctx"] == ctx  # the usual fields, sized at the solved value
    assert data["solve"]["next"] > ctx
    assert data["solve"]["tight"] > ctx  # larger contexts fit only «впритык»
    assert data["solve"]["over_gb"] is not None
    assert data["target_gpu"] == "RTX 3090"
    assert main(["--json", "8b qlora bs=max gpu=a100-80"]) == 0
    assert set(json.loads(capsys.readouterr().out)["solved"]) == {"bs"}
    assert main(["--json", "8b lora r=max gpu=4090"]) == 0
    assert set(json.loads(capsys.readouterr().out)["solved"]) == {"rank"}


def test_a_solved_query_keeps_its_other_levers() -> None:
    parsed = understand("8b qlora bs=max ctx=4k gpu=3090")
    assert parsed is not None
    answer = build_answer(parsed, GPUS)
    assert answer.solved is not None
    assert answer.solved.value is not None
    assert answer.query == replace(parsed.query, micro_batch=answer.solved.value)


@pytest.mark.parametrize(
    ("text", "example"),
    [
        ("какой максимальный контекст влезет на 3090?", "8b qlora ctx=max gpu=RTX-3090"),
        ("какой batch поставить на a100?", "8b qlora bs=max gpu=A100"),
        ("какой максимальный контекст с lora на 4090?", "8b lora ctx=max gpu=RTX-4090"),
        ("what max context fits on a 3090?", "8b qlora ctx=max gpu=RTX-3090"),
        ("на какой самой дешёвой карте пойдёт с ctx 8k?", "8b qlora ctx=8192 cheapest"),
    ],
)
def test_a_reverse_question_without_a_model_keeps_its_run_in_the_example(
    text: str, example: str
) -> None:
    parsed = unnamed_reverse(text)
    assert parsed is not None
    assert model_example(parsed) == example
    assert understand(example) is not None  # the example reads back as a /fit command


@pytest.mark.parametrize(
    "text",
    [
        "сколько стоит 4090?",
        "привет",
        "какой максимальный контекст влезет на 3090 для 8b qlora?",
        # The cheapest card by its memory alone is a market question: no run is said.
        "самая дешевая карта с 48 гигами",
        "cheapest gpu with at least 48gb?",
    ],
)
def test_other_texts_are_no_model_less_reverse_question(text: str) -> None:
    assert unnamed_reverse(text) is None


@pytest.mark.parametrize("stack", [Stack.HF, Stack.UNSLOTH, Stack.TORCHTUNE])
@pytest.mark.parametrize("lever", [Lever.CTX, Lever.BS])
def test_the_band_grows_with_the_lever_on_every_card(stack: Stack, lever: Lever) -> None:
    """`largest` searches on the premise that a run that holds at a value holds at every
    smaller one: on each card, the band's ends never shrink as the context cap or the batch
    grows. Unsloth's adaptive loss broke it once, its chunk target taken at the cap's own
    activations (a 0.5B LoRA on a 16 GB card sized 15.2 GiB at 16k and 14.2 GiB at 24k)."""
    for name, method in (("Qwen2.5-0.5B", Method.LORA), (8.0, Method.QLORA)):
        model = _model(name)
        query = FitQuery(model=model.id, method=method, ctx=2048, micro_batch=2, stack=stack)
        values = [v for v in grid(lever, model) if v <= (65536 if lever is Lever.CTX else 16)]
        for gpu in GPUS:
            bands = [
                judge_run(with_value(query, lever, v), model, gpu.usable_gib).band for v in values
            ]
            lows, highs = [b.low for b in bands], [b.high for b in bands]
            assert lows == sorted(lows), (gpu.id, values)
            assert highs == sorted(highs), (gpu.id, values)
