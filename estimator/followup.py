"""Replies that adjust the last sizing: «а с qlora?», «а на двух?», «уложусь в 50к?»...

A reply is read by the free question's own readers (estimator.parsing.text), into the same
typed `Given` a question fills, and key=value pairs by the command grammar's setters. The
last sizing is turned back into the `Given` of what the user *stated* (`stated_given`: the
assumptions left out, so that a follow-up that changes the context or the GPU count has them
worked out anew), the reply's slots replace its slots, and `finish` completes the run: typed
values all the way, never words parsed again.

    apply_followup(understand("13b qlora ctx=4096"), "а на 2080 ti?")
        -> the sizing of "13b qlora ctx=4096 gpu=RTX-2080-Ti"

The data stays the same data: a dataset given in examples whose length was assumed keeps
that length when the reply changes ctx (`Given.tokens_assumed`), so its token count, time
and cost do not move with a setting of the trainer.

A text with words that are not a change (a price question, chatter, a number with no unit)
is not a follow-up: `apply_followup` returns None and the bot's other routers answer it.

Between messages a sizing travels as the text of its `stated_given` (estimator.stated_codec);
`stated_command` writes the same as /fit words, for a person to read and for the rows,
buttons and links made before the typed texts.
"""

from __future__ import annotations

import dataclasses
import difflib
import re

from estimator.config_query import STAND_IN, with_config_model
from estimator.fit_words import command_for
from estimator.parsing.build import CHEAPEST_NOTE, Given, check_epochs, check_int, finish
from estimator.parsing.command import PAIR, TRAILING, apply_pair, key_of, unknown_key
from estimator.parsing.patterns import language_of
from estimator.parsing.result import ParsedQuery, QueryError, Slot
from estimator.parsing.text import INFERENCE_NOTE, PREFERENCE_NOTE, read_reply
from estimator.parsing.words import COMMAND_KEYS, NO_EFFECT_KEYS
from estimator.query import Checkpointing, FitQuery, Method, Stack

MAX_LENGTH = 300  # a reply to an answer, not a document

_DEFAULT = FitQuery(model="-")
# FitQuery fields a sizing carries as stated when they are not assumed and not the default.
_QUERY_FIELDS = (
    "method",
    "micro_batch",
    "lora_rank",
    "targets",
    "optimizer",
    "precision",
    "grad_checkpointing",
    "gpus",
    "shard",
    "stack",
    "offload",
    "loss",
    "packing",
    "grad_accum",
    "epochs",
    "dataset_examples",
    "dataset_tokens",
)
# ParsedQuery fields a sizing carries as they are.
_PARSED_FIELDS = (
    "budget_rub",
    "min_vram_gib",
    "hours_per_month",
    "max_rub_per_hour",
    "max_rub_per_gpu_hour",
    "max_rub_per_month",
    "billing",
    "longest_tokens",
    "shortest_tokens",
    "steps",
    "time_budget_hours",
    "card_gb",
    "target_gpu",
    "target_family",
)
# Given fields that say one thing between them: a reply that names one replaces them all.
_TOGETHER: tuple[frozenset[str], ...] = (
    frozenset({"dataset_examples", "dataset_tokens", "dataset_bytes", "tokens_assumed", "steps"}),
    frozenset({"model", "size_b"}),
    frozenset({"target_gpu", "target_family", "card_gb"}),
    frozenset({"tokens_per_example", "shortest_tokens"}),
    frozenset({"shortest_tokens", "longest_tokens"}),
)
# Words asking what something costs: with nothing but a card named, the card's price.
_COST_WORDS = frozenset({"стоить", "выйдет", "обойдётся", "обойдется", "денег", "cost", "costs"})
_CARD_FIELDS = frozenset({"target_gpu", "target_family", "card_gb", "gpus"})
# What a reply asks of the offers for the run as it is, not a change of the run.
_RUN_QUESTIONS = frozenset({"cheapest", "billing"})
# The order a stored command lists its keys in: the grammar's own.
_KEY_ORDER = {key: n for n, key in enumerate(COMMAND_KEYS)}
# What a lever solved for is (ParsedQuery.solve) -> the Given field it leaves unset.
_SOLVED = {"ctx": "ctx", "bs": "micro_batch", "rank": "lora_rank"}

# Words a follow-up is made of besides what it changes: «а если взять 4 карты?», "what about
# 8k context?". Anything else («где дешевле h100?») makes the text a question of its own.
FILLER_WORDS = frozenset(
    {
        # Russian
        "а",
        "и",
        "ну",
        "если",
        "что",
        "тогда",
        "теперь",
        "взять",
        "возьму",
        "возьмём",
        "возьмем",
        "брать",
        "беру",
        "с",
        "со",
        "на",
        "для",
        "в",
        "во",
        "при",
        "под",
        "вместо",
        "как",
        "насчёт",
        "насчет",
        "будет",
        "ли",
        "же",
        "бы",
        "то",
        "ещё",
        "еще",
        "тоже",
        "также",
        "давай",
        "пожалуйста",
        "хватит",
        "поместится",
        "влезет",
        "уложусь",
        "уложимся",
        "уложиться",
        "можно",
        "сколько",
        "лучше",
        "просто",
        "поставить",
        "ставить",
        "какой",
        "какая",
        "какую",
        "это",
        "пойдёт",
        "пойдет",
        "потянет",
        "запустится",
        "через",  # «а через unsloth?»: the stack the run goes through
        # «ок, а если модель 70b?», "ok and with unsloth?"
        "модель",
        "модели",
        "ок",
        "окей",
        "хорошо",
        "ладно",
        "понял",
        "ясно",
        # «а успею за 3 часа?», "can I finish in 10 hours?"
        "успею",
        "успеем",
        "успеть",
        "за",
        "finish",
        "done",
        # «можно ли использовать offload, чтобы влезло 32b?», «а если offload включить?»
        "использовать",
        "использую",
        "включить",
        "включу",
        "включим",
        "выгрузить",
        "чтобы",
        "влезло",
        "влезла",
        "поместилось",
        "поместилась",
        # «сколько это займёт по времени если датасет 20к?»: the answer gives time and cost
        "займёт",
        "займет",
        "займут",
        "уйдёт",
        "уйдет",
        "по",
        "времени",
        "время",
        "долго",
        "но",
        # «сколько будет стоить на 10к примеров?», "how much will it cost with 20k examples?":
        # the answer gives the cost of the changed run
        "стоить",
        "выйдет",
        "обойдётся",
        "обойдется",
        "денег",
        "деньгам",
        "cost",
        "costs",
        "much",
        # what the run is on, named with a setting: «карта с 48 гигами», «помесячная аренда»
        "карта",
        "карту",
        "карты",
        "картах",
        "картами",
        "карт",
        "аренда",
        "аренду",
        "аренды",
        "примеры",
        "примеров",
        # «а для инференса сколько надо?»
        "надо",
        "нужно",
        # «а если перейти на full?», «давай попробуем lora», "what if I switch to full?"
        "перейти",
        "перейду",
        "поменять",
        "поменяю",
        "сменить",
        "попробовать",
        "попробуем",
        "попробую",
        "switch",
        "change",
        "go",
        "we",
        # «а если у меня карта на 12 гб?», "what if I have a 24GB card"
        "у",
        "меня",
        "моя",
        "мой",
        # English
        "a",
        "an",
        "the",
        "and",
        "what",
        "about",
        "how",
        "if",
        "i",
        "use",
        "enable",
        "model",
        "ok",
        "okay",
        "turn",
        "could",
        "is",
        "enough",
        "them",
        "достаточно",
        "take",
        "with",
        "on",
        "for",
        "in",
        "instead",
        "then",
        "now",
        "so",
        "please",
        "would",
        "will",
        "it",
        "fit",
        "does",
        "do",
        "can",
        "try",
        "using",
        "also",
        "this",
        "that",
        "run",
        "fits",
        "set",
        # "how long would 3 epochs of 50k samples take?"
        "long",
        "of",
        "takes",
        "but",
        "card",
        "my",
        "have",
        "cards",
        "gpus",
        "be",
        "rent",
        "examples",
    }
)
# A count the readers leave next to a card they did not use («или 4× a100»): the count of the
# card they read is read with it («8× H100», «на двух 4090», estimator.parsing.text).
_LEFT_COUNT = re.compile(r"\d{0,3}[x×х*]", re.IGNORECASE)
_PUNCTUATION = "?!.,;:…()«»\"'“”„—–-"
# key=value, as /fit reads it ("ctx = 4096" glued first).
# Words a follow-up that names a model opens with; without one, a text that names a model is
# a new question («13b lora на 4090»), not a change of the last one («а для 70b?»).
_CUES = frozenset(
    {"а", "и", "если", "тогда", "теперь", "ну", "what", "how", "and", "if", "then", "for", "now"}
)


# Words that ask whether the run fits: with no card named, the card is the conversation's.
_FITS = frozenset(
    {"влезет", "влезло", "влезла", "поместится", "поместилось", "поместилась", "fit", "fits"}
)


def stated_given(parsed: ParsedQuery) -> Given:
    """What the user stated of `parsed`, typed: its values less those it assumed or left at
    the default. `finish(stated_given(p))` is `p` again, its assumptions worked out anew."""
    query = parsed.query
    assumed = {assumption.key for assumption in parsed.assumptions}
    given = Given(text_language="en")
    if parsed.asked_size is not None:
        given.size_b = parsed.asked_size
    else:
        given.model = parsed.model
    solved = _SOLVED.get(parsed.solve or "")
    for name in _QUERY_FIELDS:
        value = getattr(query, name)
        if name in assumed and name != "dataset_tokens":
            continue  # a dataset given as text size is assumed only in its token count
        if value is not None and value != getattr(_DEFAULT, name) and name != solved:
            setattr(given, name, value)
    if "method" not in assumed:
        given.method = query.method
    if "ctx" not in assumed and solved != "ctx":
        given.ctx = query.ctx  # a given ctx is kept even at its default
    notes = dict(note.split(":", 1) for note in parsed.notes if ":" in note)
    given.ruled_out = [Method(n.split(":", 1)[1]) for n in parsed.notes if n.startswith("negated:")]
    if given.ruled_out and "method" in assumed:
        given.method = None
    tokens = query.tokens_per_example
    if "tokens_clamped" in notes:
        tokens = int(notes["tokens_clamped"])  # as asked: the cut to ctx is worked out again
    if tokens is not None and "tokens_per_example" not in assumed:
        given.tokens_per_example = tokens
    elif tokens is not None and query.dataset_examples and parsed.shortest_tokens is None:
        given.tokens_assumed = tokens  # the same data, whatever ctx the reply sets
    for name in _PARSED_FIELDS:
        setattr(given, name, getattr(parsed, name))
    if parsed.shortest_tokens is not None and "tokens_per_example" in assumed:
        given.tokens_per_example = None  # the range's middle stays assumed
    given.russia_only = parsed.russia_only or None
    given.solve = parsed.solve
    given.cheapest = CHEAPEST_NOTE in parsed.notes or None
    given.said = dict(parsed.said)
    return given


def stated_with_method(parsed: ParsedQuery, method: Method) -> Given:
    """What the user stated of `parsed`, with `method` named in place of the one they named,
    assumed or left by ruling others out: the same run on another method."""
    given = stated_given(parsed)
    given.method, given.ruled_out = method, []
    return given


def stated_command(parsed: ParsedQuery) -> str:
    """The /fit command of what the user stated (as the chat's memory stored it before the
    typed texts, and as a watch on the run's cost names it): command_for
    without the assumed values, and an assumed length of a dataset's examples as `tok=~N`, so
    that the data keeps its token count through later replies.

    `understand(stated_command(p))` is `p` again, its assumptions worked out the same way
    (a dataset given as text size comes back as its token count, now stated). A model from a
    config.json, which no command can name, is written as the stand-in size
    (estimator.config_query.STAND_IN): `with_config_model` puts it back.
    """
    assumed = {assumption.key for assumption in parsed.assumptions}
    fields = {f.name for f in dataclasses.fields(FitQuery)}
    resets = {
        name: getattr(_DEFAULT, name)
        for name in assumed
        if name in fields and name != "dataset_tokens"
    }
    bare = dataclasses.replace(parsed, query=dataclasses.replace(parsed.query, **resets))
    if parsed.model_from_config:  # its name may hold spaces, and no command reads it
        bare = dataclasses.replace(bare, model=dataclasses.replace(bare.model, id=STAND_IN))
    words = command_for(bare).split(" ")
    carried = stated_given(parsed).tokens_assumed
    if carried is not None:
        words.append(f"tok=~{carried}")
    # Positional words first, then each pair under its canonical key in the grammar's order:
    # the words a person reads where the bot names their run («dataset=20k tokens=1024»).
    positional = [word for word in words if "=" not in word]
    pairs = [word.split("=", 1) for word in words if "=" in word]
    named = sorted(((key_of(key) or key, value) for key, value in pairs), key=_key_rank)
    return " ".join(positional + [f"{key}={value}" for key, value in named])


def shown_command(command: str) -> str:
    """A stored command as a person reads it: an assumed length `tokens=~2048` as
    «tokens≈2048» (the tilde is the grammar's, «≈» is what «about» looks like)."""
    return command.replace("=~", "≈")


def _key_rank(pair: tuple[str, str]) -> int:
    return _KEY_ORDER.get(pair[0], len(_KEY_ORDER))


def apply_followup(previous: ParsedQuery, text: str) -> ParsedQuery | None:
    """`previous` with what `text` changes, or None when `text` is not a change of it.

    Raises QueryError when the text's key=value pairs are wrong as /fit would report them
    ("ctx=abc", "cxt=8192": the user was explicit, and is told what is allowed).
    """
    changes = _read(text)
    if changes is None:
        return None
    given = _merged(stated_given(previous), changes)
    _scale(given, previous, changes.ratios)
    parsed = finish(given)
    if previous.model_from_config and changes.model is None and changes.size_b is None:
        return with_config_model(parsed, previous.model)  # «а на lora?»: the config's model
    return parsed


# A setting a reply may scale -> the LIMITS key its value is checked against.
_SCALED_LIMITS = {
    "dataset_examples": "dataset",
    "ctx": "ctx",
    "micro_batch": "bs",
    "gpus": "gpus",
}


def _scale(given: Given, previous: ParsedQuery, ratios: dict[str, float]) -> None:
    """«данных в два раза больше»: the last sizing's value (stated or assumed) times the
    factor; a dataset in tokens scales as its tokens."""
    for name, factor in ratios.items():
        if (
            name == "dataset"
            and previous.query.dataset_tokens
            and not previous.query.dataset_examples
        ):
            name = "dataset_tokens"
            given.said[Slot.DATASET_TOKENS] = given.said.pop(Slot.DATASET_EXAMPLES, "")
        elif name == "dataset":
            name = "dataset_examples"
        if name == "epochs":
            given.epochs = check_epochs(previous.query.epochs * factor)
            continue
        value = getattr(previous.query, name)
        if value is None:
            continue  # no dataset to scale: the reply names what it scales, and nothing else
        key = _SCALED_LIMITS.get(name, "dataset_tokens")
        setattr(given, name, check_int(key, round(value * factor)))


def _set_fields(given: Given) -> set[str]:
    fields = set()
    for name in given.__dataclass_fields__:
        if name in ("notes", "text_language", "said", "asked_about"):
            continue
        value = getattr(given, name)
        if value is not None and value != [] and value != {}:
            fields.add(name)
    return fields


def _merged(base: Given, changes: Given) -> Given:
    """`base` with every slot `changes` sets replaced (and the slots said with it)."""
    named = _set_fields(changes)
    named.discard("ratios")  # applied to the last sizing's values (`_scale`)
    for group in _TOGETHER:
        if named & group:
            for name in group - named:
                setattr(base, name, None)
    if "method" in named:
        base.ruled_out = []
    if "ruled_out" in named:
        base.method = None
    if "solve" in named or ("ctx" in named and base.solve == "ctx"):
        base.solve = None  # one lever a question; a ctx named is no longer solved for
    if changes.solve is not None and _SOLVED[changes.solve] not in named:
        setattr(base, _SOLVED[changes.solve], None)
    if (
        "stack" in named
        and changes.stack is not Stack.UNSLOTH
        and "grad_checkpointing" not in named
        and base.grad_checkpointing is Checkpointing.UNSLOTH
    ):
        # Unsloth's offloaded checkpointing is Unsloth's own: «а если без unsloth?» leaves
        # the stack named to its own default (gc=unsloth would name Unsloth again).
        base.grad_checkpointing = None
    if changes.cheapest and not named & {"target_gpu", "target_family"}:
        base.target_gpu = base.target_family = None  # «на какой самой дешёвой карте»
    for name in named:
        setattr(base, name, getattr(changes, name))
    if changes.dataset_bytes is not None:
        base.text_language = changes.text_language
    base.asked_about = list(changes.asked_about)
    base.notes = list(changes.notes)
    base.said = {slot: words for slot, words in base.said.items() if _still_set(base, slot)}
    base.said.update(changes.said)
    return base


# Slots whose Given fields are named otherwise.
_SLOT_FIELDS: dict[Slot, tuple[str, ...]] = {
    Slot.MODEL: ("model", "size_b"),
    Slot.GPU: ("target_gpu", "target_family"),
    Slot.DATASET_TOKENS: ("dataset_tokens", "dataset_bytes"),
}


def _still_set(given: Given, slot: Slot) -> bool:
    """Whether `given` still holds what `slot`'s words said (a replaced dataset does not)."""
    names = _SLOT_FIELDS.get(slot, (slot.value,))
    return any(getattr(given, name, None) not in (None, []) for name in names)


def read_changes(text: str) -> Given | QueryError | None:
    """What `text` sets, typed, or what is wrong with its key=value pairs ("ctx=abc": a
    follow-up all the same, answered with the error); None when it sets nothing, or has words
    that are no change of a sizing."""
    try:
        return _read(text)
    except QueryError as error:
        return error


def _read(text: str) -> Given | None:
    """`read_changes`, raising QueryError for a key=value pair /fit would refuse."""
    rest = _tidy(text[:MAX_LENGTH])
    changes = Given(text_language=language_of(rest))
    pairs: list[tuple[str, str, str]] = []
    for match in PAIR.finditer(rest):
        raw_key = match.group(1).strip(TRAILING)
        key = key_of(raw_key)
        if key is None and raw_key.lower() in NO_EFFECT_KEYS:
            changes.notes.append(f"no_effect:{match.group(0).rstrip(TRAILING)}")
            continue
        if key is None:
            if not difflib.get_close_matches(raw_key.lower(), _known_keys(), cutoff=0.6):
                return None  # "num_workers=4": a setting of the user's code, not this sizing
            raise unknown_key(raw_key)  # "cxt=8192": the grammar names the key it meant
        pairs.append((key, match.group(2).rstrip(TRAILING), match.group(0)))
    words = PAIR.sub(" ", rest)
    left = _without_switch_to(read_reply(words, changes))
    if any(not _is_filler(word) for word in left):
        return None
    for key, value, said in pairs:  # a pair is exact: it wins over the words' reading
        apply_pair(changes, key, value, said)
    asks = changes.asked_about or any(
        n.startswith("ask:") and n != CHEAPEST_NOTE for n in changes.notes
    )
    named = _set_fields(changes)
    # «а если alpha=64?»: the same sizing, told that the setting changes neither figure
    # «а если dpo?», «а для инференса?»: the same sizing, told what that changes
    no_effect = any(n.startswith(_TOLD) for n in changes.notes)
    if not named and not asks and not no_effect:
        return None  # «550», «?»: nothing that changes the sizing
    if named <= _CARD_FIELDS and not asks and _COST_WORDS & set(_words(" ".join(left))):
        # "how much does an h100 cost?": a card's price, not this run moved onto the card
        # (a reply that changes the run too, «сколько будет стоить на 10к примеров», is one).
        return None
    if named <= _RUN_QUESTIONS and not asks and not no_effect:
        # «а дешевле есть?», «а помесячно?» alone ask about offers for the run as it is: the
        # market router lists the plans that hold it (bot/routers/market.py, run questions).
        return None
    return changes


# Notes of what a reply asks to be told about the same run.
_TOLD = ("no_effect:", f"{PREFERENCE_NOTE}:", INFERENCE_NOTE)


def _known_keys() -> list[str]:
    from estimator.parsing.command import KEY_SPELLINGS

    return list(KEY_SPELLINGS)


def is_new_question(text: str) -> bool:
    """True for a text that names a model and does not open as a follow-up: it asks anew
    («13b lora на 4090»), where «а для 70b?» changes the last sizing's model."""
    changes = read_changes(text)
    if not isinstance(changes, Given) or (changes.model is None and changes.size_b is None):
        return False
    words = _words(text)
    if changes.target_gpu is None and changes.target_family is None and _FITS & set(words):
        # «можно ли с offload, чтобы влезло 32b?»: whether it fits asks about the card the
        # conversation is on, which the text does not name again.
        return False
    return next(iter(words), "") not in _CUES


def _tidy(text: str) -> str:
    """As the command grammar does: "ctx = 4096" is one pair."""
    text = re.sub(r"[\u00a0\u202f\t\r\n]", " ", text)
    return re.sub(r"\s*=\s*", "=", text)


def _without_switch_to(words: list[str]) -> list[str]:
    """ "switch to full", "change to lora", "go to qlora": the «to» of a change, which alone
    («how long does it take to rent 8 h100?») asks about something else."""
    kept: list[str] = []
    for word in words:
        if word.lower() == "to" and kept and kept[-1].lower() in {"switch", "change", "go"}:
            continue
        kept.append(word)
    return kept


def _is_filler(word: str) -> bool:
    bare = word.strip(_PUNCTUATION).lower().replace("ё", "е")
    return (
        not bare
        or bare in FILLER_WORDS
        or word.lower() in FILLER_WORDS
        or bool(_LEFT_COUNT.fullmatch(bare))
    )


def _words(text: str) -> list[str]:
    return [w for w in (word.strip(_PUNCTUATION).lower() for word in text.split()) if w]


__all__ = [
    "MAX_LENGTH",
    "Slot",
    "apply_followup",
    "is_new_question",
    "read_changes",
    "shown_command",
    "stated_command",
    "stated_given",
    "stated_with_method",
]
