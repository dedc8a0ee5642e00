"""estimator.followup: a reply that changes one thing of the last sizing, and only that."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from estimator.fit_words import understand
from estimator.followup import apply_followup, is_new_question, stated_command
from estimator.parsing.language import reply_language
from estimator.parsing.result import ParsedQuery, QueryError
from estimator.query import Method, Sharding

LOCALES = Path(__file__).resolve().parents[2] / "estimator" / "locales"


def sizing(command: str) -> ParsedQuery:
    parsed = understand(command)
    assert parsed is not None
    return parsed


BASE = "13b qlora ctx=4096"


def after(text: str, base: str = BASE) -> ParsedQuery:
    adjusted = apply_followup(sizing(base), text)
    assert adjusted is not None, text
    return adjusted


# -- each kind of change, in the words of the task and in others ---------------------------


@pytest.mark.parametrize("text", ["а на 2080 ti?", "а на RTX 2080 Ti", "what about a 2080 ti?"])
def test_another_gpu(text: str):
    adjusted = after(text)
    assert adjusted.target_gpu == "RTX 2080 Ti"
    assert stated_command(adjusted) == "13b qlora ctx=4096 gpu=RTX-2080-Ti"


def test_a_gpu_family_is_a_family():
    assert after("а на h100").target_gpu == "H100 PCIe"
    assert after("а если на a100?").target_family == "A100"


@pytest.mark.parametrize(
    ("text", "method"),
    [
        ("а с qlora?", Method.QLORA),
        ("а если full", Method.FULL),
        ("а с лорой?", Method.LORA),
        ("а если целиком?", Method.FULL),
        ("what about lora?", Method.LORA),
        ("method=full", Method.FULL),
        ("qlora", Method.QLORA),
    ],
)
def test_method(text: str, method: Method):
    adjusted = after(text, "13b lora ctx=4096 dataset=20k")
    assert adjusted.query.method is method
    assert (adjusted.query.ctx, adjusted.query.dataset_examples) == (4096, 20_000)


@pytest.mark.parametrize(
    "text", ["датасет 20к примеров", "dataset=20k", "а если 20000 примеров?", "ds=20k"]
)
def test_dataset_in_examples(text: str):
    adjusted = after(text)
    assert adjusted.query.dataset_examples == 20_000
    # Tokens per example are assumed from the context, as for a first question.
    assert adjusted.assumed("tokens_per_example") == "2048"


def test_dataset_as_text_size_is_read_in_its_language():
    russian = after("датасет 2 гб текста")
    english = after("dataset of 2 GB of text")
    assert russian.query.dataset_tokens == round(2e9 / 5.5)  # Russian text: 5.5 bytes/token
    assert english.query.dataset_tokens == round(2e9 / 4.0)
    assert russian.query.dataset_examples is None
    assert "text_tokens:ru:5.5" in russian.notes  # the answer says how it counted


def test_a_new_dataset_replaces_the_old_one_whatever_its_unit():
    adjusted = after("датасет 2 гб текста", "13b qlora dataset=50k")
    assert adjusted.query.dataset_examples is None
    assert adjusted.query.dataset_tokens is not None
    again = apply_followup(adjusted, "dataset=10k")
    assert again is not None
    assert (again.query.dataset_examples, again.query.dataset_tokens) == (10_000, None)


@pytest.mark.parametrize(
    "text", ["а если взять 4 карты?", "на 4 картах", "what about 4 gpus?", "gpus=4", "а на 4 гпу"]
)
def test_gpu_count(text: str):
    adjusted = after(text, "70b full ctx=4096")
    assert adjusted.query.gpus == 4
    assert adjusted.query.shard is Sharding.ZERO3  # assumed anew for several GPUs
    assert adjusted.assumed("shard") == "zero3"


def test_a_count_with_a_card_changes_both():
    adjusted = after("а на 8×H100?")
    assert (adjusted.query.gpus, adjusted.target_gpu) == (8, "H100 PCIe")


@pytest.mark.parametrize(
    ("text", "count", "card"),
    [
        ("а на 8 h100?", 8, "H100 PCIe"),
        ("а на 2 4090?", 2, "RTX 4090"),
        ("а на двух h100?", 2, "H100 PCIe"),
        ("а на одной a100 80?", 1, "A100 80GB PCIe"),
        ("а на трёх 4090?", 3, "RTX 4090"),
        ("а на четырёх h100?", 4, "H100 PCIe"),
        ("а на восьми h100", 8, "H100 PCIe"),
        ("what about 2 h100?", 2, "H100 PCIe"),
    ],
)
def test_a_count_without_a_times_sign_changes_both(text: str, count: int, card: str):
    adjusted = after(text, "llama 3 8b full")
    assert (adjusted.query.gpus, adjusted.target_gpu) == (count, card)
    assert adjusted.query.method is Method.FULL


@pytest.mark.parametrize("text", ["а через unsloth?", "а с unsloth?"])
def test_a_stack_named_with_a_preposition(text: str):
    assert after(text, "8b lora").query.stack.value == "unsloth"


@pytest.mark.parametrize(
    ("text", "examples", "epochs"),
    [
        ("сколько это займёт по времени если датасет 20к примеров?", 20_000, None),
        ("how long would 3 epochs of 50k samples take?", 50_000, 3.0),
    ],
)
def test_a_question_of_time_sets_the_dataset(text: str, examples: int, epochs: float | None):
    adjusted = after(text, "8b lora")
    assert adjusted.query.dataset_examples == examples
    if epochs is not None:
        assert adjusted.query.epochs == epochs


@pytest.mark.parametrize(
    "text", ["а с контекстом 8к", "ctx=8192", "with 8k context", "а если контекст 8192?"]
)
def test_context(text: str):
    previous = sizing("13b qlora ctx=4096 dataset=20k")
    adjusted = after(text, "13b qlora ctx=4096 dataset=20k")
    assert adjusted.query.ctx == 8192
    # The data is the same data: the length its examples were assumed to have stays (still
    # said as assumed), so its token count, time and cost do not move with ctx.
    assert adjusted.query.tokens_per_example == previous.query.tokens_per_example == 2048
    assert adjusted.assumed("tokens_per_example") == "2048"
    assert adjusted.query.dataset_examples == 20_000
    # ... and through the stored form, to the next reply.
    again = apply_followup(sizing(stated_command(adjusted)), "а с контекстом 16к")
    assert again is not None
    assert (again.query.ctx, again.query.tokens_per_example) == (16384, 2048)


def test_stated_tokens_per_example_stay_when_the_context_changes():
    adjusted = after("ctx=8k", "13b qlora ctx=4096 dataset=20k tokens=700")
    assert adjusted.query.tokens_per_example == 700
    assert adjusted.assumed("tokens_per_example") is None


@pytest.mark.parametrize(
    "text", ["уложусь в 1000 ₽?", "budget=1000", "а бюджет 1000 руб?", "within 1000 rub?"]
)
def test_budget(text: str):
    assert after(text, "8b qlora dataset=10k").budget_rub == 1000


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("а для 70b?", "Llama-3.3-70B"),
        ("а для llama 3 70b?", "Llama-3.3-70B"),
        ("what about 7b?", "Llama-2-7B"),
        ("model=70b", "Llama-3.3-70B"),
    ],
)
def test_model(text: str, model: str):
    adjusted = after(text, "13b lora ctx=4096 gpu=h100")
    assert adjusted.model.id == model
    assert (adjusted.query.method, adjusted.query.ctx) == (Method.LORA, 4096)
    assert adjusted.target_gpu == "H100 PCIe"


def test_two_changes_in_one_reply_both_apply():
    adjusted = after("а с контекстом 8к на 4 картах")
    assert (adjusted.query.ctx, adjusted.query.gpus) == (8192, 4)


# -- what is not a follow-up ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "?",
        "👍",
        "550",
        "",
        "привет",
        "где дешевле h100?",
        "сколько стоит a100?",
        "что быстрее h100 или a100?",
        "почасовая или помесячная?",
        "есть ли сейчас h100?",
        "num_workers=4",  # the DataLoader's setting, not the sizing's
        "спасибо, а когда появятся h200?",
        "сколько стоят 2 h100?",
        "где взять 8 h100?",
        "сколько стоит час на двух h100?",
        "how long does it take to rent 8 h100?",
    ],
)
def test_text_that_changes_nothing_is_not_a_follow_up(text: str):
    assert apply_followup(sizing(BASE), text) is None


def test_wrong_pairs_are_reported_as_the_command_would():
    with pytest.raises(QueryError) as bad:
        apply_followup(sizing(BASE), "ctx=abc")
    assert (bad.value.code, bad.value.key) == ("bad_value", "ctx")
    with pytest.raises(QueryError) as typo:
        apply_followup(sizing(BASE), "cxt=8192")
    assert (typo.value.code, typo.value.value) == ("unknown_key", "ctx")


def test_a_text_naming_a_model_without_a_cue_asks_anew():
    assert is_new_question("13b lora на 4090")
    assert is_new_question("хватит ли 4090 для 13b qlora?")
    assert not is_new_question("а хватит ли 4090?")  # names no model: a change of the card
    assert not is_new_question("а для 70b?")
    assert not is_new_question("what about 70b?")
    assert not is_new_question("а на 2080 ti?")  # names no model


def test_whether_a_model_fits_with_no_card_named_asks_about_the_conversations_card():
    assert not is_new_question("32b влезет?")
    assert not is_new_question("можно ли использовать offload, чтобы влезло 32b?")
    assert not is_new_question("will 32b fit?")
    assert is_new_question("32b влезет в 4090?")  # the card named: a question of its own
    assert is_new_question("32b qlora")  # no fit asked: a new sizing


# -- the stored form -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "13b qlora ctx=4096 dataset=20k",
        "70b full gpus=8",
        "llama 3 8b lora r=32 stack=unsloth",
        "qwen2.5 7b qlora gpu=4090 budget=5000 epochs=3",
        "13b qlora датасет 2 гб текста",
        "8b",
    ],
)
def test_the_stated_command_reads_back_as_the_same_sizing(command: str):
    parsed = sizing(command)
    again = sizing(stated_command(parsed))
    assert again.query == parsed.query
    assert (again.target_gpu, again.target_family, again.budget_rub) == (
        parsed.target_gpu,
        parsed.target_family,
        parsed.budget_rub,
    )
    # Only the dataset given as text size turns into a stated token count.
    assert {a for a in again.assumptions if a.key != "dataset_tokens"} == {
        a for a in parsed.assumptions if a.key != "dataset_tokens"
    }


def test_assumed_values_are_left_out_of_the_stated_command():
    assert stated_command(sizing("70b full gpus=8")) == "70b full gpus=8"  # not shard=zero3
    # No qlora; the assumed length of the examples as an assumption (tok=~), not a setting.
    assert stated_command(sizing("13b dataset=20k")) == "13b dataset=20k tokens=~1024"


# -- every reply the bot suggests works as one -----------------------------------------------

_CODE = re.compile(r"<code>([^<]+)</code>")
_QUOTED = re.compile(r"[«“]([^»”]+)[»”]")
# Advice for the user's own training script, not a reply to the bot.
NOT_REPLIES = {"num_workers=4–8"}


def suggested_replies() -> list[str]:
    """The key=value and word replies the estimator's texts suggest, with their
    placeholders filled in as the answers fill them."""
    found: set[str] = set()
    for path in LOCALES.glob("*/sizing.ftl"):
        for line in path.read_text("utf-8").splitlines():
            hints = _CODE.findall(line)
            if line.startswith("fit-time-hint"):
                hints += _QUOTED.findall(line)
            for hint in hints:
                if hint.startswith("/") or hint in NOT_REPLIES:
                    continue
                found.add(
                    hint.replace("{ $value }", "1024")
                    .replace("{ $code }", "unsloth")
                    .replace("{ $covering }", "8192")
                )
    return sorted(found)


def test_the_texts_suggest_replies():
    replies = suggested_replies()
    assert {"dataset=20k", "датасет 2 гб текста", "dataset of 2 GB of text", "qlora"} <= set(
        replies
    )


@pytest.mark.parametrize("reply", suggested_replies())
def test_each_suggested_reply_adjusts_the_sizing(reply: str):
    previous = sizing("13b full ctx=4096 gc=off precision=mixed bs=4")
    adjusted = apply_followup(previous, reply)
    assert adjusted is not None, reply
    assert stated_command(adjusted) != stated_command(previous), reply


# -- a follow-up changes only what it names ---------------------------------------------------

MODELS = ("7b", "13b", "70b", "llama 3 8b", "qwen2.5 7b")
METHODS = ("", "full", "lora", "qlora")
GPU_NAMES = {"4090": "RTX 4090", "2080 ti": "RTX 2080 Ti", "h100": "H100 PCIe", "l40s": "L40S"}

# key -> (values, how a reply says each: words and a pair)
CHANGES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ctx": (("1024", "8192", "16384"), ("а с контекстом {}", "ctx={}", "with {} context")),
    "gpus": (("2", "4", "8"), ("а если взять {} карты?", "gpus={}", "what about {} gpus?")),
    "dataset": (("5000", "20000"), ("датасет {} примеров", "dataset={}", "{} examples")),
    "budget": (("1000", "25000"), ("уложусь в {} ₽?", "budget={}")),
    "gpu": (tuple(GPU_NAMES), ("а на {}?", "what about {}?")),
    "method": (("full", "lora", "qlora"), ("а если {}?", "а с {}?")),
    "model": (("7b", "70b", "34b"), ("а для {}?", "what about {}?")),
}


@st.composite
def previous_and_change(draw: st.DrawFn) -> tuple[dict[str, str], str, str, str]:
    stated = {"model": draw(st.sampled_from(MODELS))}
    method = draw(st.sampled_from(METHODS))
    if method:
        stated["method"] = method
    for key in ("ctx", "gpus", "dataset", "budget", "gpu"):
        if draw(st.booleans()):
            stated[key] = draw(st.sampled_from(CHANGES[key][0]))
    key = draw(st.sampled_from(sorted(CHANGES)))
    values, phrasings = CHANGES[key]
    value = draw(st.sampled_from(values))
    return stated, key, value, draw(st.sampled_from(phrasings)).format(value)


def command(stated: dict[str, str]) -> str:
    parts = [stated["model"], stated.get("method", "")]
    parts += [
        f"{key}={value.replace(' ', '-')}"
        for key, value in stated.items()
        if key not in ("model", "method")
    ]
    return " ".join(part for part in parts if part)


@settings(max_examples=150, deadline=None)
@given(previous_and_change())
def test_a_follow_up_changes_only_what_it_names(case: tuple[dict[str, str], str, str, str]):
    stated, key, value, reply = case
    previous = sizing(command(stated))
    adjusted = apply_followup(previous, reply)
    assert adjusted is not None, reply
    # The same as asking afresh with that one key changed: what was stated stays, and the
    # assumptions are worked out for the new run; the length the dataset's examples were
    # assumed to have stays with the data unless the reply names a new dataset.
    afresh = command({**stated, key: value})
    if "dataset" in stated and key != "dataset":
        afresh += f" tok=~{previous.query.tokens_per_example}"
    assert adjusted == sizing(afresh)


WORDS = st.sampled_from(
    [
        "а",
        "с",
        "на",
        "qlora",
        "=",
        "ctx=",
        "ds=",
        "gpu=",
        "budget=",
        "4",
        "8к",
        "карты",
        "2080",
        "ti",
        "h100",
        "70b",
        "датасет",
        "гб",
        "₽",
        "x",
        "?",
        "👍",
        "model=",
        "method=",
        "-1",
        "1e9",
        "0",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=8).map(" ".join) | st.text(max_size=80))
def test_any_reply_is_a_sizing_none_or_a_query_error(text: str):
    """Whatever a user sends after an answer, the bot gets an answer to give."""
    assert reply_language(text, "ru") in ("ru", "en")
    assert is_new_question(text) in (True, False)
    try:
        adjusted = apply_followup(sizing(BASE), text)
    except QueryError as error:
        code = error.code  # the bot words each code (bot.views.sizing_errors.error_text)
        adjusted = None
    else:
        code = "none"
    assert code
    assert adjusted is None or adjusted.query.ctx > 0
