"""Properties of the free-text reader, over generated messages:

- words outside the grammar (filler, emoji, numbers with units of no setting) said as a
  clause of their own never change a slot;
- a question about a lever («нужен ли X?», "do we need X?") never switches it on, and is
  noted as asked;
- a reply changes only the slots it names.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from estimator.fit_words import understand
from estimator.followup import apply_followup
from estimator.parse import ParsedQuery
from tests.estimator.test_phrasings import reading

# Messages whose every clause sets something.
BASES = (
    "13b qlora, контекст 4к, датасет 20к примеров, 3 эпохи",
    "8b lora, уложусь в 50к, на двух 4090",
    "70b full на 8× H100, средняя длина 1500 токенов, бывают и по 6000",
    "7b qlora, батч 4, ранг 64, бюджет тысяч 5 рублей",
    "qwen2.5 7b lora, датасет 1 млрд токенов, до 300 ₽/ч",
    "llama 3 8b qlora, 20k samples, 500 tokens each, budget 40k rub",
    "mistral 7b lora, batch size 8, 2 epochs, with 8k context",
    "13b full, 8-bit adam, bf16, without gradient checkpointing",
)
NOISE = (
    "ну",
    "короче",
    "🙂",
    "🚀🚀",
    "пожалуйста",
    "please",
    "lol",
    "кстати",
    "спасибо заранее",
    "в 2024 году",
    "у меня 2 собаки",
    "python 3.11",
    "я студент",
    "thanks in advance",
    "ноутбук на 16 гб",
    "час ночи",
    "ok",
    "эээ",
)


def slots(parsed: ParsedQuery | None) -> dict[str, object]:
    assert parsed is not None
    return {
        key: value
        for key, value in reading(parsed).items()
        if not key.startswith("said.") and key != "unread"
    }


@settings(max_examples=60, deadline=None)
@given(
    base=st.sampled_from(BASES),
    noise=st.lists(st.sampled_from(NOISE), min_size=1, max_size=3),
    where=st.lists(st.integers(min_value=0, max_value=10), min_size=3, max_size=3),
)
def test_words_outside_the_grammar_change_no_slot(
    base: str, noise: list[str], where: list[int]
) -> None:
    clauses = base.split(", ")
    for word, at in zip(noise, where, strict=False):
        clauses.insert(at % (len(clauses) + 1), word)
    noisy = ", ".join(clauses)
    assert slots(understand(noisy)) == slots(understand(base)), noisy


# A lever as people name it, and the FitQuery field it is.
LEVERS = (
    ("offload", "offload"),
    ("оффлоад", "offload"),
    ("cpu offload", "offload"),
    ("offload optimizer", "offload"),
    ("оффлоад оптимизатора", "offload"),
    ("8-битный оптимизатор", "optimizer"),
    ("8-bit adam", "optimizer"),
    ("paged adam", "optimizer"),
    ("gradient checkpointing", "grad_checkpointing"),
    ("чекпоинтинг", "grad_checkpointing"),
    ("deepspeed", "shard"),
    ("zero3", "shard"),
    ("fsdp", "shard"),
    ("unsloth", "stack"),
    ("bf16", "precision"),
    ("liger", "loss"),
)
QUESTIONS = (
    "нужен ли {}?",
    "нужна ли {}?",
    "нужен ли мне {}",
    "а {} нужен?",
    "стоит ли {}?",
    "стоит ли брать {}?",
    "имеет ли смысл {}?",
    "имеет смысл включать {}?",
    "поможет ли {}?",
    "надо ли {}?",
    "с {} или без?",
    "do we need {}?",
    "do I need {}?",
    "should I use {}?",
    "is {} worth it?",
    "would {} help?",
    "is {} necessary?",
)
RUNS = ("13b full на a100", "8b qlora на 4090", "70b full на 8 h100", "7b lora")


@settings(max_examples=80, deadline=None)
@given(
    run=st.sampled_from(RUNS),
    lever=st.sampled_from(LEVERS),
    question=st.sampled_from(QUESTIONS),
    before=st.booleans(),
)
def test_a_question_never_switches_a_lever_on(
    run: str, lever: tuple[str, str], question: str, before: bool
) -> None:
    name, field = lever
    asked = question.format(name)
    text = f"{asked} {run}" if before else f"{run}, {asked}"
    plain = understand(run)
    parsed = understand(text)
    assert parsed is not None
    assert plain is not None
    assert getattr(parsed.query, field) == getattr(plain.query, field), text
    assert field in parsed.asked_about, text
    assert slots(parsed) | {"asked": "-"} == slots(plain), text


# A reply, and the slots it may change (those it names, and what follows from them).
REPLIES = (
    ("а на двух?", {"gpus", "shard"}),
    ("а на 8 h100?", {"gpus", "gpu", "shard"}),
    ("а с контекстом 8к", {"ctx"}),
    ("уложусь в 50к?", {"budget"}),
    ("бюджет тысяч 5 рублей", {"budget"}),
    ("а с клорой?", {"method", "shard"}),  # sharding is assumed anew for the method
    ("а если полный?", {"method", "shard"}),
    ("датасет 20к примеров", {"dataset", "tokens", "dstok"}),
    ("1 млрд токенов", {"dstok", "dataset", "tokens"}),
    ("а на двух помесячно?", {"billing", "gpus", "shard"}),
    ("а по времени?", {"asks"}),
    ("а с клорой дешевле есть?", {"cheapest", "gpu", "method", "shard"}),
    ("3 эпохи", {"epochs"}),
    ("ранг 64", {"rank"}),
    ("а батч 4?", {"bs"}),
    ("до 300 ₽/ч", {"rate"}),
    ("нужен ли offload?", {"asked"}),
    ("what about lora?", {"method", "shard"}),
    ("а через unsloth?", {"stack", "gc"}),
    ("средняя длина 700 токенов", {"tokens", "ctx"}),
)
PREVIOUS = (
    "13b qlora gpu=4090 dataset=20k",
    "8b lora ctx=4096",
    "70b full gpus=8 gpu=h100 dataset=50k epochs=2",
    "7b qlora ctx=8192 ds=10k tok=700 budget=3000",
    "qwen2.5 7b lora gpu=a100-80 bs=2",
)


@settings(max_examples=80, deadline=None)
@given(previous=st.sampled_from(PREVIOUS), reply=st.sampled_from(REPLIES))
def test_a_reply_changes_only_the_slots_it_names(
    previous: str, reply: tuple[str, set[str]]
) -> None:
    text, named = reply
    before = slots(understand(previous))
    after = slots(apply_followup(understand(previous), text))  # type: ignore[arg-type]
    changed = {key for key in before if before[key] != after[key]}
    assert changed <= named, (previous, text, {k: (before[k], after[k]) for k in changed})
