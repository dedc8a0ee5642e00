"""/fit fuzzing: any text reads as a query, as "not understood" or as a QueryError, and every
reply the bot builds from it (answer or error) is valid Telegram HTML of one message."""

from __future__ import annotations

import string

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from bot.routers.fit import MAX_ARGS
from bot.views.sizing_errors import error_text
from bot.views.sizing_reply import watch_keyboard
from estimator import query as query_enums
from estimator.answer import build_answer
from estimator.cost import PriceQuote
from estimator.fit_words import understand
from estimator.gpus import load_gpus
from estimator.i18n import Translator, translators
from estimator.models import load_models
from estimator.parse import ParsedQuery, QueryError, parse_question
from estimator.parsing.words import COMMAND_KEYS, COMMAND_METHOD_WORDS, VALUE_ALIASES
from estimator.sizing_text import render_details, render_short
from estimator.solve_text import needs_gpu, needs_gpu_text
from monitor.users import Language
from tests.fuzz import assert_telegram_html, fuzz

TRANSLATORS = translators()
LANGUAGES: tuple[Language, ...] = ("ru", "en")
GPU_IDS = tuple(spec.id for spec in load_gpus())
MODEL_NAMES = tuple(model.id for model in load_models())

# --- text strategies ----------------------------------------------------------------------------

HTML_SPECIALS = "<>&\"';=/#"
# What people (and attackers) type: Latin, Cyrillic, digits, HTML specials, control characters,
# look-alikes and the odd astral character, plus fully arbitrary code points.
CONTROLS = "".join(chr(code) for code in range(0x20)) + "\x7f\x85"
ODD = "\u00a0\u202f\u2009\u200b\u200e\u2028\ufeff\ud7ff\U0001f680\U0010fffd"


def _chars(*, spaces: bool) -> st.SearchStrategy[str]:
    def keep(chars: str) -> str:
        return "".join(ch for ch in chars if spaces or not ch.isspace())

    return st.one_of(
        st.sampled_from(keep(string.ascii_letters + string.digits + " .,-_=+*x×")),
        st.characters(min_codepoint=0x400, max_codepoint=0x4FF),  # Cyrillic
        st.sampled_from(HTML_SPECIALS),
        st.sampled_from(keep(CONTROLS)),
        st.sampled_from(keep(ODD)),
        # Anything else; no lone surrogates: Telegram's JSON cannot carry them.
        st.characters(exclude_categories=["Cs"] if spaces else ["Cs", "Zs", "Zl", "Zp", "Cc"]),
    )


NASTY_TEXT = st.text(_chars(spaces=True), max_size=MAX_ARGS + 100)
# One token without whitespace: random values for key=value pairs and stray words.
NASTY_WORD = st.text(_chars(spaces=False), min_size=1, max_size=20)
ENTITIES = st.sampled_from(("&lt;", "&amp;", "&#60;", "&#x3c;", "&bogus;", "&", "</b>", "<b>"))

NUMBER = st.one_of(
    st.integers(-10, 2_000_000).map(str),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.builds(
        lambda n, unit: f"{n}{unit}",
        st.integers(0, 4096),
        st.sampled_from(("k", "K", "к", "m", "M", "b", "B", "kb", "e3", "e308", ".5", ",5", "%")),
    ),
)
ENUM_VALUES = tuple(
    member.value
    for enum in (
        query_enums.Method,
        query_enums.Optimizer,
        query_enums.Precision,
        query_enums.Checkpointing,
        query_enums.Sharding,
        query_enums.Targets,
        query_enums.Stack,
    )
    for member in enum
)
ALIAS_VALUES = tuple(alias for aliases in VALUE_ALIASES.values() for alias in aliases)
KEY_ALIASES = tuple(alias for aliases in COMMAND_KEYS.values() for alias in aliases)
VALUE = st.one_of(
    NUMBER,
    st.sampled_from(ENUM_VALUES + ALIAS_VALUES + GPU_IDS + MODEL_NAMES),
    st.sampled_from(("", "true", "false", "on", "off", "да", "нет", "4k", "32k", "1m", "0")),
    NASTY_WORD,
    ENTITIES,
)
KEY = st.one_of(
    st.sampled_from(KEY_ALIASES), st.sampled_from(KEY_ALIASES).map(str.upper), NASTY_WORD
)
PAIR = st.builds(lambda k, sep, v: f"{k}{sep}{v}", KEY, st.sampled_from(("=", "=", " = ")), VALUE)

SIZE = st.one_of(
    st.sampled_from(("0.5b", "1.5B", "3b", "7b", "8b", "13b", "14b", "32b", "70b", "405b", "1t")),
    st.builds(lambda n, unit: f"{n}{unit}", NUMBER, st.sampled_from(("b", "B", "б", "млрд", ""))),
)
MODEL = st.one_of(
    SIZE,
    st.sampled_from(MODEL_NAMES),
    st.sampled_from(MODEL_NAMES).map(str.lower),
    st.sampled_from(MODEL_NAMES).map(lambda name: name.replace("-", " ")),
)
METHOD = st.sampled_from(tuple(COMMAND_METHOD_WORDS))
GPU_WORD = st.one_of(
    st.sampled_from(GPU_IDS),
    st.sampled_from(("4090", "h100", "a100-80", "a100", "3090", "t4", "h200", "л40с", "8x h100")),
)
EXTRA_WORD = st.one_of(NASTY_WORD, ENTITIES, GPU_WORD, METHOD, SIZE)


@st.composite
def commands(draw: st.DrawFn) -> str:
    """A /fit argument string that looks like the grammar: model, method, GPU, key=value."""
    words = [draw(MODEL)]
    if draw(st.booleans()):
        words.append(draw(METHOD))
    if draw(st.booleans()):
        words.append(draw(GPU_WORD))
    words += draw(st.lists(PAIR, max_size=6))
    words += draw(st.lists(EXTRA_WORD, max_size=2))
    return " ".join(draw(st.permutations(words)))


QUESTION_TEMPLATES = (
    "хватит ли {gpu} для {model} на {num} контексте?",
    "можно ли дообучить {model} {method} на {gpu}",
    "сколько памяти нужно для {model} с {method}, батч {num}",
    "will {model} {method} fit on {gpu} with {num} context?",
    "how much vram to finetune {model} on {num} examples x {num} epochs",
    "{model} на {num} × {gpu} {word}",
)


@st.composite
def questions(draw: st.DrawFn) -> str:
    """Free-text sizing questions in both languages, with random words slotted in."""
    template = draw(st.sampled_from(QUESTION_TEMPLATES))
    return template.format(
        gpu=draw(GPU_WORD),
        model=draw(MODEL),
        method=draw(METHOD),
        num=draw(NUMBER),
        word=draw(EXTRA_WORD),
    )


QUOTES = st.lists(
    st.builds(
        PriceQuote,
        gpu_id=st.sampled_from(GPU_IDS),
        gpus=st.integers(1, 8),
        provider=st.one_of(st.sampled_from(("Selectel", "HOSTKEY", "immers.cloud")), NASTY_WORD),
        rub_per_hour=st.one_of(st.none(), st.floats(0.01, 1_000_000)),
        rub_per_month=st.floats(1, 100_000_000),
        label=NASTY_WORD,
        url=st.just('https://example.com/<a>&"'),
        in_stock=st.booleans(),
    ),
    max_size=5,
)


# --- checks -------------------------------------------------------------------------------------


def check_answer(parsed: ParsedQuery, quotes: list[PriceQuote] | None = None) -> None:
    """The sizing answer the bot sends, in both languages, and its keyboard: the short answer
    and its «Подробнее», each one message (the button swaps one for the other)."""
    answer = build_answer(parsed, load_gpus(), quotes or [])
    for language in LANGUAGES:
        if needs_gpu(answer):
            assert_telegram_html(needs_gpu_text(answer, language))
            continue
        assert_telegram_html(render_short(answer, language))
        assert_telegram_html(render_details(answer, language))
        watch_keyboard(parsed, TRANSLATORS[language])


def check_error(error: QueryError) -> None:
    for language in LANGUAGES:
        assert_telegram_html(error_text(TRANSLATORS[language], error))


def check_understand(text: str, quotes: list[PriceQuote] | None = None) -> ParsedQuery | None:
    """`understand` as /fit calls it: a query, None, or a QueryError; every reply valid."""
    try:
        parsed = understand(text)
    except QueryError as error:
        event(f"QueryError {error.code}")
        check_error(error)
        return None
    if parsed is None:
        event("not understood")
        for language in LANGUAGES:
            assert_telegram_html(TRANSLATORS[language]("fit-not-understood"))
        return None
    assert isinstance(parsed, ParsedQuery)
    event("answered")
    check_answer(parsed, quotes)
    return parsed


# --- tests --------------------------------------------------------------------------------------


@fuzz(300)
@given(NASTY_TEXT)
@example("")
@example("<b>13b</b> qlora ctx=<script>")
@example("13b qlora ctx=4k gpu=<h100>&")
@example("\x00\x01\x02 7b lora bs=&amp;")
def test_any_text_into_understand(text: str) -> None:
    check_understand(text)


@fuzz(300)
@given(NASTY_TEXT)
def test_any_text_as_a_free_question(text: str) -> None:
    """The free-text filter (bot.routers.fit.FreeText) calls parse_question on every message:
    it must never raise, or any chat message would crash the update."""
    if len(text) > MAX_ARGS:
        text = text[:MAX_ARGS]
    parsed = parse_question(text)
    if parsed is not None:
        check_answer(parsed)


@fuzz(400)
@given(commands())
@example("13b qlora ctx=4k")
@example("llama-2-70b full gpu=h100 ctx=32k bs=8 gpus=8 shard=zero3")
@example("7b lora rank=<64> targets=all&")
def test_command_grammar(text: str) -> None:
    check_understand(text)


@fuzz(200)
@given(questions())
@example("хватит ли 4090 для 13b на 4k контексте?")
def test_free_questions(text: str) -> None:
    check_understand(text)


@fuzz(150)
@given(st.one_of(commands(), questions()), QUOTES)
def test_answers_with_provider_quotes(text: str, quotes: list[PriceQuote]) -> None:
    """Provider names and labels with HTML specials reach the price lines escaped."""
    check_understand(text, quotes)


@fuzz(200)
@given(
    code=st.one_of(
        st.sampled_from(("no_model", "bad_value", "out_of_range", "unknown_gpu", "conflict")),
        NASTY_WORD,
    ),
    key=st.one_of(st.none(), NASTY_WORD, st.sampled_from(KEY_ALIASES)),
    value=st.one_of(st.none(), NASTY_TEXT),
    allowed=st.lists(st.one_of(NASTY_WORD, st.sampled_from(ENUM_VALUES)), max_size=8).map(tuple),
)
def test_error_texts_are_valid_html(
    code: str, key: str | None, value: str | None, allowed: tuple[str, ...]
) -> None:
    """Whatever a QueryError carries (user words included), error_text escapes it."""
    check_error(QueryError(code, "reason", key=key, value=value, allowed=allowed))


@pytest.mark.parametrize("language", LANGUAGES)
def test_translators_are_real(language: Language) -> None:
    """The checks above run against the bot's own texts, not a stand-in."""
    translator = TRANSLATORS[language]
    assert isinstance(translator, Translator)
    assert translator.has("fit-error-bad_value")
    assert translator.has("fit-not-understood")
