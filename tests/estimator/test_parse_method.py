"""The method asked is the method sized, and every stated fact is kept or said dropped:
full fine-tunes by every name, negations, an assumed method said first, ctx that holds the
examples, a long story read whole."""

from __future__ import annotations

import pytest

from estimator.answer import build_answer
from estimator.fit_words import command_for, command_with_method, understand
from estimator.gpus import load_gpus
from estimator.parse import ParsedQuery
from estimator.parsing.text import read_method
from estimator.query import Method
from estimator.sizing_text import render_short, to_plain


def read(text: str) -> ParsedQuery:
    parsed = understand(text)
    assert parsed is not None, text
    return parsed


def short(text: str, language: str = "ru") -> str:
    return to_plain(render_short(build_answer(read(text), load_gpus()), language))


FULL_BY_NAME = [
    "влезет ли мистраль 7б в 4090 фул файнтюн",
    "влезет ли мистраль 7б в 4090 фулл",
    "7b фул",
    "фулл файнтюн llama 3 8b",
    "7b full ft на h100",
    "полный файнтюн 7b",
    "полное дообучение 7b",
    "полностью дообучить 7b",
    "7b, обучаем все веса",
    "7b без лоры",
    "13b без адаптеров на a100",
    "дообучить 7b целиком",
    "7b all weights",
    "7b no lora",
    "7b without lora, on 2 h100",
    "train the entire model, llama 3 8b",
    "mistral 7b full finetune",
]
COMMANDS_FULL = ["7b фулл", "7b без лоры", "7b no lora", "7b фул ctx=4096", "8b without lora bs=2"]


@pytest.mark.parametrize("text", FULL_BY_NAME + COMMANDS_FULL)
def test_full_fine_tune_by_every_name(text: str) -> None:
    parsed = read(text)
    assert parsed.query.method is Method.FULL
    assert parsed.assumed("method") is None  # named, not assumed


def test_mistral_full_on_a_4090_does_not_fit() -> None:
    for text in ("влезет ли мистраль 7б в 4090 фул файнтюн", "влезет ли мистраль 7б в 4090 фулл"):
        answer = build_answer(read(text), load_gpus())
        assert answer.memory.peak > 100  # ~125 GiB: weights, grads, fp32 masters and Adam
        plain = to_plain(render_short(answer, "ru"))
        assert "Mistral-7B-v0.3 · full" in plain
        assert "✅" not in plain
        assert "❌ RTX 4090" in plain


@pytest.mark.parametrize(
    ("text", "method", "ruled_out"),
    [
        ("7b без qlora", Method.LORA, ("qlora",)),
        ("7b without qlora on a 4090", Method.LORA, ("qlora",)),
        ("70b без квантования", Method.LORA, ("qlora",)),
        ("7b not full, not qlora", Method.LORA, ("qlora", "full")),
        ("13b, только не полный файнтюн", Method.QLORA, ("full",)),
        ("7b no-qlora", Method.LORA, ("qlora",)),  # the command button's own spelling
    ],
)
def test_a_ruled_out_method_is_never_chosen(
    text: str, method: Method, ruled_out: tuple[str, ...]
) -> None:
    parsed = read(text)
    assert parsed.query.method is method
    assert parsed.assumed("method") == method.value
    assert tuple(n.split(":")[1] for n in parsed.notes if n.startswith("negated:")) == ruled_out


@pytest.mark.parametrize(
    ("text", "method"),
    [
        ("13b lora, не qlora", Method.LORA),
        ("8b qlora, а не lora", Method.QLORA),
        ("8b lora instead of full", Method.LORA),
        ("/fit 7b lora no qlora", Method.LORA),
    ],
)
def test_a_named_method_beside_a_ruled_out_one(text: str, method: Method) -> None:
    parsed = read(text.removeprefix("/fit "))
    assert parsed.query.method is method
    assert parsed.assumed("method") is None


def test_an_assumed_method_is_the_first_line_in_both_languages() -> None:
    assert short("сколько гигов для 7b").splitlines()[0] == "Метод не указан — считаю QLoRA."
    assert short("how much vram for 7b", "en").splitlines()[0] == "No method given — sizing QLoRA."
    assert short("7b без qlora").splitlines()[0] == "Без QLoRA — считаю LoRA."
    assert short("7b lora на 4090").startswith("7B · LoRA")  # named: nothing to say


def test_a_verdict_never_rests_on_an_unsaid_method() -> None:
    for text in ("хватит ли 4090 для 7b", "влезет ли llama 3 8b в 3090", "7b on a 4090?"):
        plain = short(text, "ru")
        assert "✅" in plain  # QLoRA of a 7-8B model fits a 24 GB card
        assert plain.splitlines()[0] == "Метод не указан — считаю QLoRA."


def test_read_method_for_hints() -> None:
    assert read_method("помогите с лорой для llama 3 8b") == (Method.LORA, ())
    assert read_method("полное дообучение — это сколько?") == (Method.FULL, ())
    assert read_method("что-нибудь без qlora") == (None, (Method.QLORA,))
    assert read_method("привет") == (None, ())


# --- ctx that holds the examples -------------------------------------------------------------


def test_examples_longer_than_the_default_ctx_raise_it() -> None:
    parsed = read("8b lora примеры по 3000 токенов")
    assert parsed.query.ctx == 4096
    assert parsed.assumed("ctx") == "4096"
    assert "ctx_from_tokens:3000" in parsed.notes
    sized = build_answer(parsed, load_gpus()).memory.peak
    at_4k = build_answer(read("8b lora ctx=4096 tok=3000"), load_gpus()).memory.peak
    at_2k = build_answer(read("8b lora ctx=2048 tok=3000"), load_gpus()).memory.peak
    assert sized == at_4k > at_2k  # sized for the examples, not for the default
    assert "Примеры до 3000 токенов — считаю ctx 4096" in short("8b lora примеры по 3000 токенов")


def test_the_longest_example_sets_ctx_and_short_ones_keep_the_default() -> None:
    assert read("8b lora, самый длинный пример 3500 токенов").query.ctx == 4096
    assert read("8b lora, longest example 5000 tokens").query.ctx == 8192
    assert read("8b lora, средняя длина 700 токенов, максимум 2к").query.ctx == 2048
    assert read("8b lora примеры по 500 токенов").query.ctx == 2048
    assert read("8b lora примеры по 500 токенов").assumed("ctx") == "2048"
    # No example is shorter than the average: ctx holds the larger of the two.
    assert read("8b lora, по 3000 токенов, максимум 1000").query.ctx == 4096
    assert read("8b lora, максимум 700 токенов").query.ctx == 1024  # memory follows the longest


def test_a_given_ctx_shorter_than_the_examples_is_kept_and_warned() -> None:
    parsed = read("8b lora ctx 2048, примеры по 3000 токенов")
    assert parsed.query.ctx == 2048
    assert parsed.query.tokens_per_example == 2048
    assert "tokens_clamped:3000" in parsed.notes
    plain = short("8b lora ctx 2048, примеры по 3000 токенов")
    assert "⚠️ Примеры до 3000 токенов длиннее ctx 2048: при обучении они обрежутся до 2048" in (
        plain
    )
    longest = read("8b lora ctx=1024 longest=3000")
    assert longest.query.ctx == 1024
    assert "longest_cut:3000" in longest.notes
    english = short("8b lora ctx 1024, longest example 3000 tokens", "en")
    assert "are longer than ctx 1024: training cuts them at 1024" in english


def test_a_range_of_lengths_gives_the_longest_and_an_assumed_average() -> None:
    parsed = read("7b lora, примеры от 1 500 до 3 500 токенов")
    assert parsed.longest_tokens == 3500
    assert parsed.query.ctx == 4096
    assert parsed.query.tokens_per_example == 2500
    assert parsed.assumed("tokens_per_example") == "2500"
    english = read("7b lora, 1000-3000 tokens per example")
    assert (english.longest_tokens, english.query.ctx) == (3000, 4096)


# --- a long message read whole ----------------------------------------------------------------

STORY = (
    "Привет! Хочу дообучить Qwen2.5 7B Instruct под нашу службу поддержки, чтобы он отвечал "
    "клиентам в нашем стиле. Думаю делать LoRA, потому что полное дообучение, как я понимаю, "
    "нам не по карману. Данные уже собрали: примерно 25 тысяч пар вопрос–ответ из старых "
    "тикетов, почищенных от персональных данных. Длина у примеров разная — от 1 500 до "
    "3 500 токенов, потому что в ответы часто попадают куски документации и логи. Хотелось "
    "бы прогнать 2 эпохи. Денег на эксперимент выделили немного: уложусь в 4 000 ₽? "
    "Подскажите, на какой карте это делать и сколько времени займёт, и стоит ли вообще "
    "связываться с арендой, или проще взять сервер помесячно. Заранее спасибо!"
)


def test_a_story_of_several_facts_is_read_whole() -> None:
    assert 650 <= len(STORY) <= 1000
    parsed = read(STORY)
    query = parsed.query
    assert parsed.model.id == "Qwen2.5-7B"
    assert query.method is Method.LORA
    assert "extra_method:full" in parsed.notes  # «полное дообучение ... не по карману»
    assert query.dataset_examples == 25_000
    assert parsed.longest_tokens == 3500
    assert query.ctx == 4096  # holds the 3 500-token examples
    assert query.tokens_per_example == 2500
    assert query.epochs == 2.0
    assert parsed.budget_rub == 4000


# --- command_for keeps what the user said -------------------------------------------------------


def test_command_for_leaves_an_assumed_method_assumed() -> None:
    assert command_for(read("сколько гигов для 7b")) == "7b"
    assert command_for(read("7b без qlora")) == "7b no-qlora"
    assert command_for(read("7b без лоры")) == "7b full"
    assert command_with_method(read("7b без qlora ctx 4096"), Method.FULL) == "7b full ctx=4096"
    assert (
        read(command_with_method(read("сколько гигов для 7b"), Method.LORA)).assumed("method")
        is None
    )
