"""User text to FitQuery: free-text questions (ru/en) and the /fit command grammar."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from estimator.fit_words import understand
from estimator.parse import ParsedQuery, QueryError, parse_command, parse_question
from estimator.query import DEFAULTS_DOC, FitQuery, Optimizer


def fields(parsed: ParsedQuery) -> dict[str, Any]:
    q = parsed.query
    return {
        "model": parsed.model.id,
        "from_size": parsed.model_from_size,
        "method": q.method.value,
        "ctx": q.ctx,
        "bs": q.micro_batch,
        "rank": q.lora_rank,
        "targets": q.targets.value,
        "optim": q.optimizer.value,
        "precision": q.precision.value,
        "gc": q.grad_checkpointing.value,
        "gpus": q.gpus,
        "shard": q.shard.value,
        "stack": q.stack.value,
        "dataset": q.dataset_examples,
        "tokens": q.tokens_per_example,
        "epochs": q.epochs,
        "gpu": parsed.target_gpu,
        "family": parsed.target_family,
    }


def check(parsed: ParsedQuery | None, expected: dict[str, Any]) -> None:
    assert parsed is not None
    got = fields(parsed)
    assert {k: got[k] for k in expected} == expected
    assert parsed.query.model == parsed.model.id
    assert parsed.query.gpu == parsed.target_gpu


L8, L13, L70, Q7 = "Llama-3.1-8B", "Llama-2-13B", "Llama-3.3-70B", "Qwen2.5-7B"
L7 = "Llama-2-7B"  # a bare "7b" is sized on a Llama-like 7B, never Qwen's 152k vocabulary

QUESTIONS: list[tuple[str, dict[str, Any]]] = [
    # the four from the brief
    ("хватит ли 4090 для 13b qlora на 4k контексте?",
     {"model": L13, "from_size": True, "method": "qlora", "ctx": 4096, "gpu": "RTX 4090"}),
    ("сколько памяти на полное дообучение 7b",
     {"model": L7, "from_size": True, "method": "full", "gpu": None, "gpus": 1}),
    ("70B full fine-tune на 8× H100",
     {"model": L70, "method": "full", "gpus": 8, "family": None, "gpu": "H100 PCIe",
      "shard": "zero3"}),
    ("лора на 8B, контекст 16к, батч 1",
     {"model": L8, "from_size": True, "method": "lora", "ctx": 16384, "bs": 1}),
    # Russian
    ("хватит ли 4090 для llama 3 8b с лорой на 8к контексте?",
     {"model": L8, "from_size": False, "method": "lora", "ctx": 8192, "gpu": "RTX 4090"}),
    ("qwen 7b с лорой, ранг 64, 8 тысяч токенов",
     {"model": Q7, "method": "lora", "rank": 64, "ctx": 8192}),
    ("llama 3 8b на двух 4090 без чекпоинтинга",
     {"model": L8, "gpus": 2, "gpu": "RTX 4090", "gc": "off", "shard": "ddp"}),
    ("Llama-3.1-8B-Instruct на 2 × 4090, r=16, микробатч 2, ctx 4096",
     {"model": L8, "gpus": 2, "rank": 16, "bs": 2, "ctx": 4096}),
    ("четыре A100 для qwen2.5 72b кулора",
     {"model": "Qwen2.5-72B", "gpus": 4, "family": "A100", "method": "qlora"}),
    ("8x a100 полный файнтюн llama 70b zero-3",
     {"model": L70, "method": "full", "gpus": 8, "shard": "zero3", "family": "A100"}),
    ("Сколько видеопамяти нужно для Qwen3-30B-A3B с QLoRA 4-bit при контексте 32k?",
     {"model": "Qwen3-30B-A3B", "method": "qlora", "ctx": 32768}),
    ("phi-3 mini lora на t4", {"model": "Phi-3-mini", "method": "lora", "gpu": "T4"}),
    ("yi 34b qlora 4 бит adamw8bit", {"model": "Yi-34B", "method": "qlora", "optim": "adamw8bit"}),
    ("deepseek 7b lora, датасет 10k примеров",
     {"model": "DeepSeek-LLM-7B", "dataset": 10_000, "tokens": 1024}),
    ("13 млрд параметров, qlora, paged adam",
     {"model": L13, "from_size": True, "optim": "paged_adamw8bit"}),
    ("модель на 13 миллиардов параметров, лору обучить на 3090",
     {"model": L13, "method": "lora", "gpu": "RTX 3090"}),
    ("датасет 50 000 примеров по 500 токенов, 3 эпохи, qwen2.5 14b",
     {"model": "Qwen2.5-14B", "dataset": 50_000, "tokens": 500, "epochs": 3.0}),
    ("unsloth llama 3.1 8b 16k", {"model": L8, "gc": "unsloth", "stack": "unsloth", "ctx": 16384}),
    ("сколько нужно памяти, чтобы дообучить мистраль 7б лорой с контекстом 2048",
     {"model": "Mistral-7B-v0.3", "method": "lora", "ctx": 2048}),
    ("ллама 3 70б кулора на двух H100",
     {"model": L70, "method": "qlora", "gpus": 2, "gpu": "H100 PCIe"}),
    ("лама 2 13b полное обучение в bf16 на 8 картах",
     {"model": L13, "method": "full", "precision": "bf16", "gpus": 8, "shard": "zero3"}),
    ("квен 2.5 7b qlora, контекст 32к, unsloth",
     {"model": Q7, "method": "qlora", "ctx": 32768, "gc": "unsloth"}),
    ("codellama 34b qlora 4-bit, батч 2, контекст 16384",
     {"model": "CodeLlama-34B", "bs": 2, "ctx": 16384}),
    ("можно ли на L40S обучить gemma 2 27b с qlora?",
     {"model": "Gemma-2-27B", "method": "qlora", "gpu": "L40S"}),
    ("0,5b полный файнтюн", {"model": "Qwen2.5-0.5B", "from_size": True, "method": "full"}),
    ("1.5b лора на T4", {"model": "Qwen2.5-1.5B", "method": "lora", "gpu": "T4"}),
    ("Хватит ли 48 гб для 34b qlora?",
     {"model": "CodeLlama-34B", "method": "qlora", "gpu": None}),
    ("лора 8b rank 128 на все слои", {"model": L8, "rank": 128, "targets": "all"}),
    ("Мистраль немо лора 8к", {"model": "Mistral-Nemo-12B", "method": "lora", "ctx": 8192}),
    ("дипсик 67б кулора на 4 A100",
     {"model": "DeepSeek-LLM-67B", "method": "qlora", "gpus": 4, "family": "A100"}),
    ("Какая карта нужна для 7B QLoRA с micro-batch 4 и контекстом 8k?",
     {"model": L7, "bs": 4, "ctx": 8192}),
    ("gemma 7b sgd fp32 полное дообучение",
     {"model": "Gemma-7B", "method": "full", "optim": "sgd", "precision": "fp32"}),
    ("обучение qwen3 8b, 2 эпохи, датасет 1м примеров",
     {"model": "Qwen3-8B", "dataset": 1_000_000, "epochs": 2.0}),
    ("70b на одной H200 с кулорой и контекстом в 8 тысяч токенов",
     {"model": L70, "gpu": "H200", "ctx": 8192, "gpus": 1}),
    # English
    ("can I fine-tune Mistral 7B with LoRA rank 32 on a single A100 80GB, batch size 8, "
     "context length 8192?",
     {"model": "Mistral-7B-v0.3", "method": "lora", "rank": 32, "bs": 8, "ctx": 8192,
      "gpu": "A100 80GB PCIe", "gpus": 1}),
    ("gemma 2 9b fine-tune all weights with 8-bit adam, bs=2, 4 gpus fsdp",
     {"model": "Gemma-2-9B", "method": "full", "optim": "adamw8bit", "bs": 2, "gpus": 4,
      "shard": "fsdp"}),
    ("tinyllama full fine-tune fp16 without gradient checkpointing",
     {"model": "TinyLlama-1.1B", "method": "full", "precision": "fp16", "gc": "off"}),
    ("falcon 40b qlora on H100 x2", {"model": "Falcon-40B", "gpus": 2, "gpu": "H100 PCIe"}),
    ("How much VRAM for QLoRA on Llama 3 70B with 4k context?",
     {"model": L70, "method": "qlora", "ctx": 4096}),
    ("Will a 24GB RTX 3090 fit a 7b LoRA with batch size 4?",
     {"model": L7, "method": "lora", "bs": 4, "gpu": "RTX 3090"}),
    ("mixtral 8x7b qlora on 2x A100 80GB",
     {"model": "Mixtral-8x7B-v0.1", "gpus": 2, "gpu": "A100 80GB PCIe"}),
    ("phi3-medium lora r=8 ctx=2048 bs=4",
     {"model": "Phi-3-medium", "rank": 8, "ctx": 2048, "bs": 4}),
    ("qwen 7b full fine-tune with gradient checkpointing, adafactor",
     {"model": Q7, "method": "full", "gc": "on", "optim": "adafactor"}),
    ("fine-tune deepseek coder 33b with lora on 4 gpus, zero2",
     {"model": "DeepSeek-Coder-33B", "gpus": 4, "shard": "zero2"}),
    ("70b qlora ctx 8192 on a single H200", {"model": L70, "gpu": "H200", "ctx": 8192}),
    ("meta-llama/Meta-Llama-3.1-8B full fine-tune mixed precision 2 gpus",
     {"model": L8, "method": "full", "precision": "mixed", "gpus": 2, "shard": "zero3"}),
    ("llama 3 8b lora, attention only", {"model": L8, "targets": "attn"}),
    ("What does it take to train llama 2 7b with full parameter fine-tuning on a batch of 16?",
     {"model": "Llama-2-7B", "method": "full", "bs": 16}),
    ("Qwen2.5-72B-Instruct lora with torchtune on 8xH100",
     {"model": "Qwen2.5-72B", "stack": "torchtune", "gpus": 8, "gpu": "H100 PCIe"}),
    ("unsloth/Llama-3.2-3B-Instruct-bnb-4bit, dataset of 20k samples, 500 tokens per example",
     {"model": "Llama-3.2-3B", "dataset": 20_000, "tokens": 500, "gc": "on"}),
    ("13B model, paged AdamW, 3 epochs", {"model": L13, "optim": "paged_adamw8bit",
                                          "epochs": 3.0}),
]  # fmt: skip


def test_enough_phrasings() -> None:
    assert len(QUESTIONS) >= 40
    russian = [t for t, _ in QUESTIONS if any("а" <= c <= "я" for c in t.lower())]
    assert len(russian) >= 20
    assert len(QUESTIONS) - len(russian) >= 15


# Phrasings of the questions the estimator had to answer right, each as meant.
ISSUE_PHRASINGS: list[tuple[str, dict[str, Any]]] = [
    ("13b full на a100", {"model": L13, "method": "full", "family": "A100"}),
    ("7b full on h100", {"model": L7, "method": "full", "gpu": "H100 PCIe"}),
    ("дообучить 7b целиком", {"model": L7, "method": "full"}),
    ("обучить всю модель 13b на a100 80gb", {"model": L13, "method": "full"}),
    ("полный файнтюн 8b", {"model": L8, "method": "full"}),
    (
        "8b lora, средняя длина 700 токенов, максимум 2к",
        {"model": L8, "method": "lora", "tokens": 700, "ctx": 2048},
    ),
    (
        "13b qlora, average length 300 tokens, longest 4k",
        {"model": L13, "tokens": 300, "ctx": 4096},
    ),
    ("100b qlora", {"model": "Llama-like-100B", "from_size": True}),
    ("deepseek v3 671b qlora", {"model": "DeepSeek-V3", "from_size": False}),
    ("671b qlora", {"model": "Llama-like-671B", "from_size": True}),
    ("1.8b lora", {"model": "Llama-like-1.8B"}),
    # "H100" alone: the 80 GB PCIe or SXM board, sized as the slower PCIe (NVL only when named).
    ("qwen 7b qlora на h100", {"model": Q7, "family": None, "gpu": "H100 PCIe"}),
    ("qlora 8b, gc=unsloth", {"stack": "unsloth", "gc": "unsloth"}),
    ("8b qlora на axolotl", {"stack": "axolotl"}),
    ("8b lora через llama-factory", {"stack": "llamafactory"}),
    ("8b lora ms-swift", {"stack": "swift"}),
]
# The seed guides' own questions (their task -> card tables).
SEED_QUESTIONS: list[tuple[str, dict[str, Any]]] = [
    ("7B LoRA на RTX 4090", {"model": L7, "method": "lora", "gpu": "RTX 4090"}),
    ("7B QLoRA на RTX 4090", {"model": L7, "method": "qlora", "gpu": "RTX 4090"}),
    ("7B full fine-tune на A100 80GB", {"model": L7, "method": "full", "gpu": "A100 80GB PCIe"}),
    ("13B LoRA на A100 40GB", {"model": L13, "method": "lora", "gpu": "A100 40GB PCIe"}),
    ("13B full fine-tune на A100 80GB", {"model": L13, "method": "full"}),
    ("30B QLoRA на A100 80GB", {"model": "Llama-like-30B", "method": "qlora"}),
    ("70B QLoRA на A100 80GB", {"model": L70, "method": "qlora", "gpu": "A100 80GB PCIe"}),
    ("70B full fine-tune на 8× H100 80GB", {"model": L70, "method": "full", "gpus": 8}),
    ("7B LoRA, 5k примеров, 3 эпохи, RTX 4090",
     {"model": L7, "dataset": 5000, "epochs": 3.0, "gpu": "RTX 4090"}),
    ("13B LoRA, 10k примеров × 3 эпохи на A100 80GB",
     {"model": L13, "method": "lora", "dataset": 10_000, "epochs": 3.0}),
    ("70B QLoRA, 5k примеров, 2 эпохи на A100 80GB",
     {"model": L70, "method": "qlora", "dataset": 5000, "epochs": 2.0}),
    ("7B full fine-tune, 50k примеров, 2 эпохи на A100 80GB",
     {"model": L7, "method": "full", "dataset": 50_000, "epochs": 2.0}),
    ("модель 7B при четырёх битах на параметр", {"model": L7, "method": "qlora"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    ISSUE_PHRASINGS + SEED_QUESTIONS,
    ids=[t[:40] for t, _ in ISSUE_PHRASINGS + SEED_QUESTIONS],
)
def test_issue_and_seed_phrasings(text: str, expected: dict[str, Any]) -> None:
    check(understand(text), expected)


def test_a_dataset_as_text_size_uses_the_language_bytes_per_token() -> None:
    ru = understand("8b qlora, датасет 2 гб текста")
    en = understand("8b qlora, dataset of 2 GB of text")
    assert ru is not None
    assert en is not None
    assert ru.query.dataset_tokens == round(2e9 / 5.5)
    assert en.query.dataset_tokens == 500_000_000
    assert ru.query.dataset_examples is None  # never "2 examples"
    assert understand("70b qlora, 50M tokens").query.dataset_tokens == 50_000_000  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "expected"), QUESTIONS, ids=[t[:40] for t, _ in QUESTIONS])
def test_questions(text: str, expected: dict[str, Any]) -> None:
    check(parse_question(text), expected)


@pytest.mark.parametrize(
    "text",
    ["привет", "сколько стоит h100", "когда появятся A100?", "спасибо!", "what's up", "",
     "   ", "а есть H200 в наличии?", "thanks, bye", "подпишите меня на 4090 дешевле 100 ₽/ч",
     "что такое LoRA?", "llama или mistral, что лучше?", "/start"],
)  # fmt: skip
def test_not_sizing_questions(text: str) -> None:
    assert parse_question(text) is None


def test_assumptions_list_what_was_not_said() -> None:
    parsed = parse_question("хватит ли 4090 для 13b qlora на 4k контексте?")
    assert parsed is not None
    assumed = {a.key: a.value for a in parsed.assumptions}
    defaults = FitQuery(model="x")
    assert assumed["model"] == "Llama-2-13B"
    assert assumed["micro_batch"] == str(defaults.micro_batch)
    assert assumed["lora_rank"] == str(defaults.lora_rank)
    assert assumed["grad_checkpointing"] == defaults.grad_checkpointing.value
    assert "method" not in assumed
    assert "ctx" not in assumed
    assert "optimizer" not in assumed  # adapters: the optimizer barely matters
    assert parsed.assumed("ctx") is None
    assert parsed.assumed("model") == "Llama-2-13B"


def test_full_fine_tune_assumptions() -> None:
    parsed = parse_question("сколько памяти на полное дообучение 7b")
    assert parsed is not None
    keys = {a.key for a in parsed.assumptions}
    assert {"model", "ctx", "micro_batch", "optimizer", "precision"} <= keys
    assert not keys & {"lora_rank", "targets", "shard"}  # no adapters, one GPU


def test_method_is_assumed_when_missing() -> None:
    parsed = parse_question("llama 3 8b на 4090")
    assert parsed is not None
    assert parsed.assumed("method") == "qlora"


def test_defaults_come_from_fitquery() -> None:
    parsed = parse_command("13b")
    defaults = FitQuery(model=parsed.model.id)
    assert parsed.query.ctx == defaults.ctx
    assert parsed.query.method == defaults.method
    assert parsed.query.precision == defaults.precision


# --- the command grammar ------------------------------------------------------------------

COMMANDS: list[tuple[str, dict[str, Any]]] = [
    ("13b qlora ctx=4096", {"model": L13, "from_size": True, "method": "qlora", "ctx": 4096}),
    ("qlora 13b", {"model": L13, "method": "qlora"}),
    ("13b", {"model": L13, "method": "qlora", "ctx": 2048}),
    ("13 млрд lora", {"model": L13, "method": "lora"}),
    ("13 миллиардов lora", {"model": L13, "method": "lora"}),
    ("13B full", {"model": L13, "method": "full"}),
    ("0,5b qlora4", {"model": "Qwen2.5-0.5B", "method": "qlora"}),
    ("1.5b 4bit", {"model": "Qwen2.5-1.5B", "method": "qlora"}),
    ("7b лору ctx=4к", {"model": L7, "method": "lora", "ctx": 4096}),
    ("8b полное ctx=8K", {"model": L8, "method": "full", "ctx": 8192}),
    ("8b fft ctx=16к", {"model": L8, "method": "full", "ctx": 16384}),
    ("8b lora ctx=32k", {"ctx": 32768}),
    ("8b lora ctx=1.5k", {"ctx": 1536}),
    ("8b lora ctx = 4096 bs = 2", {"ctx": 4096, "bs": 2}),
    ("llama 3 8b lora rank=64 targets=qv", {"model": L8, "rank": 64, "targets": "qv"}),
    ("Llama-3.1-8B-Instruct lora r=8 targets=attn", {"model": L8, "rank": 8, "targets": "attn"}),
    ("meta-llama/Meta-Llama-3.1-8B qlora optim=adamw8bit precision=bf16",
     {"model": L8, "optim": "adamw8bit", "precision": "bf16"}),
    ("qwen2.5 72b lora optim=paged_adamw8bit gc=unsloth",
     {"model": "Qwen2.5-72B", "optim": "paged_adamw8bit", "gc": "unsloth"}),
    ("7b gc=off", {"gc": "off"}),
    ("7b gc=нет", {"gc": "off"}),
    ("7b gc=да", {"gc": "on"}),
    ("7b gc=yes precision=fp16", {"gc": "on", "precision": "fp16"}),
    ("llama 70b full gpus=8", {"model": L70, "gpus": 8, "shard": "zero3"}),
    ("llama 70b qlora gpus=2", {"gpus": 2, "shard": "ddp"}),
    ("llama 70b full gpus=8 shard=fsdp", {"shard": "fsdp"}),
    ("70b full gpus=4 shard=zero2", {"shard": "zero2"}),
    ("8b lora dataset=10k", {"dataset": 10_000, "tokens": 1024, "epochs": 1.0}),
    ("8b lora dataset=50 000 tokens=600 epochs=3",
     {"dataset": 50_000, "tokens": 600, "epochs": 3.0}),
    ("8b lora dataset=1м epochs=0.5", {"dataset": 1_000_000, "epochs": 0.5}),
    ("8b lora dataset=1m epochs=2,5", {"dataset": 1_000_000, "epochs": 2.5}),
    ("13b qlora gpu=4090", {"gpu": "RTX 4090", "family": None}),
    ("13b qlora gpu=h100", {"gpu": "H100 PCIe", "family": None}),
    ("13b qlora gpu=a100-80", {"gpu": "A100 80GB PCIe"}),
    ("70b full 8xh100", {"gpus": 8, "gpu": "H100 PCIe"}),
    ("13b qlora 4090", {"gpu": "RTX 4090"}),
    ("70 qlora", {"model": L70, "from_size": True}),
    ("mixtral 8x7b qlora", {"model": "Mixtral-8x7B-v0.1"}),
    ("лама 2 13b лора", {"model": L13, "method": "lora"}),
    ("8b lora stack=unsloth", {"stack": "unsloth"}),
    ("8b lora method=full", {"method": "full"}),
    ("llama 3 405b qlora", {"model": "Llama-3.1-405B"}),
    ("model=llama-3-8b lora", {"model": L8, "from_size": False}),
    ("model=13b", {"model": L13, "from_size": True}),
]  # fmt: skip


@pytest.mark.parametrize(("args", "expected"), COMMANDS, ids=[a for a, _ in COMMANDS])
def test_commands(args: str, expected: dict[str, Any]) -> None:
    check(parse_command(args), expected)


def test_command_notes_what_it_ignored() -> None:
    parsed = parse_command("13b qlora please ctx=1024 ctx=2048")
    assert parsed.query.ctx == 2048  # the last one wins
    assert set(parsed.notes) == {"ignored:please", "repeated_key:ctx"}


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [("13b cxt=8192", "ctx"), ("13b rnak=16", "rank"), ("13b epoch=2", None), ("13b zz=1", "")],
)
def test_an_unknown_key_is_an_error_that_names_the_nearest_key(args, suggestion) -> None:
    if suggestion is None:  # "epoch" is a known spelling of epochs
        assert parse_command(args).query.epochs == 2
        return
    with pytest.raises(QueryError) as info:
        parse_command(args)
    error = info.value
    assert error.code == "unknown_key"
    assert error.key == args.split()[1].split("=")[0]
    assert (error.value or "") == suggestion
    assert "ctx" in error.allowed
    assert "stack" in error.allowed


def test_trailing_punctuation_is_not_part_of_the_value() -> None:
    parsed = parse_command("13b qlora, ctx=2048, r=16, bs=2.")
    assert (parsed.query.ctx, parsed.query.lora_rank, parsed.query.micro_batch) == (2048, 16, 2)
    assert not parsed.notes


@pytest.mark.parametrize("args", ["13b ctx=abc", "13b bs=x", "13b optim=adamq", "13b gc=maybe"])
def test_every_bad_value_lists_what_is_allowed(args) -> None:
    with pytest.raises(QueryError) as info:
        parse_command(args)
    assert info.value.allowed
    assert all(info.value.allowed)


def test_every_error_carries_allowed_values() -> None:
    for args, _code, _key in ERRORS:
        with pytest.raises(QueryError) as info:
            parse_command(args)
        assert info.value.allowed, args


@pytest.mark.parametrize(
    ("args", "tokens", "examples"),
    [
        ("8b lora dataset=2gb", 500_000_000, None),  # English text: 4 bytes per token
        ("8b lora dataset=500мб", round(500e6 / 5.5), None),  # Cyrillic in the command: ru
        ("8b lora dataset=50m_tokens", 50_000_000, None),
        ("8b lora dataset=50k", None, 50_000),
    ],
)
def test_dataset_as_examples_tokens_or_text_size(args, tokens, examples) -> None:
    parsed = parse_command(args)
    assert parsed.query.dataset_tokens == tokens
    assert parsed.query.dataset_examples == examples


def test_command_shard_assumption_is_recorded() -> None:
    parsed = parse_command("70b full gpus=8")
    assert parsed.assumed("shard") == "zero3"
    assert parse_command("70b full gpus=8 shard=fsdp").assumed("shard") is None


def test_command_dataset_assumes_tokens() -> None:
    parsed = parse_command("8b lora ctx=4096 dataset=10k")
    assert parsed.assumed("tokens_per_example") == "2048"
    assert parse_command("8b lora dataset=10k tokens=300").assumed("tokens_per_example") is None


def test_tokens_longer_than_ctx_are_cut() -> None:
    parsed = parse_command("8b lora ctx=1024 dataset=100 tokens=4000")
    assert parsed.query.tokens_per_example == 1024
    assert "tokens_clamped:4000" in parsed.notes  # the asked length, for the warning


ERRORS: list[tuple[str, str, str | None]] = [
    ("", "no_model", "model"),
    ("qlora ctx=4096", "no_model", "model"),
    ("please help", "no_model", "model"),
    ("13b ctx=abc", "bad_value", "ctx"),
    ("13b ctx=", "bad_value", "ctx"),
    ("13b optim=adamq", "bad_value", "optim"),
    ("13b precision=int8", "bad_value", "precision"),
    ("13b targets=mlp+", "bad_value", "targets"),
    ("13b shard=tp", "bad_value", "shard"),
    ("13b gc=maybe", "bad_value", "gc"),
    ("13b stack=jax", "bad_value", "stack"),
    ("13b bs=1.5", "bad_value", "bs"),
    ("13b ctx=8", "out_of_range", "ctx"),
    ("13b ctx=2m", "out_of_range", "ctx"),
    ("13b bs=0", "out_of_range", "bs"),
    ("13b bs=2000", "out_of_range", "bs"),
    ("13b rank=0", "out_of_range", "rank"),
    ("13b rank=5000", "out_of_range", "rank"),
    ("13b gpus=0", "out_of_range", "gpus"),
    ("13b gpus=1000", "out_of_range", "gpus"),
    ("13b epochs=0", "out_of_range", "epochs"),
    ("13b epochs=101", "out_of_range", "epochs"),
    ("13b dataset=0", "out_of_range", "dataset"),
    ("0b qlora", "out_of_range", "model"),
    ("13b gpu=voodoo", "unknown_gpu", "gpu"),
    ("13b gpu=a100-33", "unknown_gpu", "gpu"),
    ("13b lora qlora", "conflict", "method"),
    ("13b 70b", "conflict", "model"),
    ("llama 3 8b 13b", "conflict", "model"),
]


@pytest.mark.parametrize(
    ("args", "code", "key"), ERRORS, ids=[a or "<empty>" for a, _, _ in ERRORS]
)
def test_command_errors(args: str, code: str, key: str | None) -> None:
    with pytest.raises(QueryError) as info:
        parse_command(args)
    error = info.value
    assert (error.code, error.key) == (code, key)
    assert error.reason
    assert "\n" not in error.reason
    assert str(error) == error.reason


def test_unknown_model_is_named() -> None:
    with pytest.raises(QueryError) as info:
        parse_command("gpt5 qlora ctx=4096")
    assert (info.value.code, info.value.value) == ("no_model", "gpt5")


def test_bad_value_lists_the_allowed_values() -> None:
    with pytest.raises(QueryError) as info:
        parse_command("13b optim=adamq")
    # Every optimizer the estimator sizes (each library name maps to one of them).
    assert info.value.allowed == tuple(optimizer.value for optimizer in Optimizer)
    assert info.value.allowed[:2] == ("adamw", "adamw32bit")
    assert "optim" in info.value.reason
    assert "adamw8bit" in info.value.reason


def test_every_documented_key_is_accepted() -> None:
    values = {
        "ctx": "4096", "bs": "2", "rank": "8", "targets": "qv", "optim": "adamw",
        "precision": "bf16", "gc": "on", "gpus": "2", "shard": "ddp", "dataset": "100",
        "tokens": "100", "epochs": "1", "gpu": "4090", "stack": "hf", "method": "lora",
        "offload": "optimizer", "budget": "5000", "loss": "fused", "longest": "3000",
        "vram": "48", "hpm": "60", "loc": "ru", "rate": "300", "gpurate": "600",
        "mrate": "200000", "billing": "month", "packing": "packed", "ga": "8",
    }  # fmt: skip
    for key in DEFAULTS_DOC:
        parsed = parse_command(f"8b {key}={values[key]}")
        assert not [n for n in parsed.notes if n.startswith("unknown_key")], key


# --- robustness ---------------------------------------------------------------------------

WORDS = [
    "llama", "3", "8b", "qwen2.5", "7б", "13", "млрд", "лора", "qlora", "full", "полное",
    "дообучение", "ctx", "=", "4k", "16к", "контекст", "батч", "bs=2", "ранг", "r=", "64",
    "на", "двух", "8×", "8x", "H100", "4090", "a100", "80GB", "gpus", "4", "без",
    "чекпоинтинга", "unsloth", "8-bit", "adam", "paged", "fp16", "zero3", "датасет", "10k",
    "примеров", "по", "500", "токенов", "эпохи", "epochs", "0,5", "1.5k", "50 000", "1м",
    "gpu=", "dataset=", "tokens=", "?", ",", "мистраль", "ллама", "70б", "mixtral", "8x7b",
    "-", "/", "(", ")", "1e9", "999999999999", "0", "-1", "nan", "∞", "٣", "²",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_parse_question_never_raises(text: str) -> None:
    result = parse_question(text)
    assert result is None or isinstance(result, ParsedQuery)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=14).map(" ".join))
def test_parse_question_never_raises_on_near_misses(text: str) -> None:
    result = parse_question(text)
    assert result is None or isinstance(result, ParsedQuery)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.text(max_size=120), st.lists(st.sampled_from(WORDS), max_size=10).map(" ".join))
)
def test_parse_command_raises_only_query_error(args: str) -> None:
    try:
        result = parse_command(args)
    except QueryError as error:
        code = error.code
    else:
        assert isinstance(result, ParsedQuery)
        return
    assert code in {
        "no_model",
        "bad_value",
        "out_of_range",
        "unknown_gpu",
        "unknown_key",
        "conflict",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7b модель, лора r=16, батч 4, длина 1024", {"bs": 4, "ctx": 1024, "rank": 16}),
        ("8b lora без gradient checkpointing bs=8 ctx=512", {"gc": "off", "bs": 8}),
        ("llama 3.1 8b, selective checkpointing, lora, ctx=8192", {"gc": "selective"}),
        ("llama 3.2 1b full, per-module checkpointing, ctx=2048", {"gc": "submodule"}),
        ("train 70b with 4x a100 40gb full fine-tuning zero3 offload optimizer",
         {"offload": "optimizer", "shard": "zero3", "gpus": 4}),
        ("7b full with deepspeed zero 3 on 2 gpus with cpu offload", {"offload": "params"}),
        ("ZeRO-2 с offload оптимизатора для 13b full на 4× 4090",
         {"offload": "optimizer", "shard": "zero2"}),
        ("13b qlora with liger kernel", {"loss": "fused"}),
        ("8b qlora loss=chunked", {"loss": "chunked"}),
        ("дообучить 7b полностью в bf16 с 8-битным адамом",
         {"method": "full", "optim": "adamw8bit", "precision": "bf16"}),
    ],
)  # fmt: skip
def test_mixed_commands_and_more_levers(text: str, expected: dict[str, Any]) -> None:
    parsed = understand(text)
    assert parsed is not None
    got = fields(parsed) | {
        "offload": parsed.query.offload.value,
        "loss": parsed.query.loss.value if parsed.query.loss else None,
    }
    assert {k: got[k] for k in expected} == expected


def test_the_text_language_of_a_dataset_can_be_said():
    parsed = understand("100 MB of Russian text, 8b qlora")
    assert parsed is not None
    assert parsed.query.dataset_tokens == round(100e6 / 5.5)
