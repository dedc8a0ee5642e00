"""One entry for both kinds of input: `/fit` arguments and free questions."""

from __future__ import annotations

import re

from estimator.number_text import plain
from estimator.parse import ParsedQuery, QueryError, parse_command, parse_question
from estimator.parsing.build import CHEAPEST_NOTE, CHEAPEST_WORD
from estimator.parsing.command import parse_mixed
from estimator.query import FitQuery, Method

# «70 qlora»: the command grammar reads a bare number that opens the text as a size.
_SIZE_UP_FRONT = re.compile(r"\s*\d")


def understand(text: str) -> ParsedQuery | None:
    """Read `text` as the command grammar when it has key=value pairs, else as a free
    question, once.

    Text with key=value pairs is a command: its mistakes are reported (QueryError), never
    papered over by the looser free-text reader. Any other text is read as a question; the
    command grammar is asked only when that finds no model («70 qlora»: a bare number up front
    is a size in billions there). None means neither found a sizing question.
    """
    if "=" in text:
        parsed = parse_command(text)
        if any(note.startswith("ignored:") for note in parsed.notes):
            # words the grammar could not place around the pairs: a question that has some
            # pairs in it, read as one (the pairs still win)
            return parse_mixed(text) or parsed
        return parsed
    question = parse_question(text)
    if question is not None:
        return question
    if not _SIZE_UP_FRONT.match(text):
        return None  # «rank 64 съедает столько же, сколько full?»: 64 is no model's size
    try:
        return parse_command(text)
    except QueryError as error:
        if error.code == "no_model":
            return None  # chatter, not a broken command
        raise


# The shortest spelling of each key the command grammar accepts: callback data is capped
# at 64 bytes, and this command is what a «Подробнее» button carries.
_SHORT_KEYS: tuple[tuple[str, str], ...] = (
    ("ctx", "ctx"),
    ("bs", "micro_batch"),
    ("r", "lora_rank"),
    ("target", "targets"),
    ("opt", "optimizer"),
    ("dtype", "precision"),
    ("gc", "grad_checkpointing"),
    ("gpus", "gpus"),
    ("shard", "shard"),
    ("stack", "stack"),
    ("offload", "offload"),
    ("loss", "loss"),
    ("ds", "dataset_examples"),
    ("tok", "tokens_per_example"),
    ("ep", "epochs"),
    ("packing", "packing"),
    ("ga", "grad_accum"),
)
# What the user said about the offers and the billing: the key of each, as the grammar reads it.
_OFFER_KEYS: tuple[tuple[str, str], ...] = (
    ("vram", "min_vram_gib"),
    ("hpm", "hours_per_month"),
    ("rate", "max_rub_per_hour"),
    ("gpurate", "max_rub_per_gpu_hour"),
    ("mrate", "max_rub_per_month"),
    ("billing", "billing"),
)
_DEFAULT = FitQuery(model="-")
# ParsedQuery.solve -> the FitQuery field it solves for (estimator.solve.FIELDS).
_SOLVED_FIELDS = {"ctx": "ctx", "bs": "micro_batch", "rank": "lora_rank"}


def command_for(parsed: ParsedQuery) -> str:
    """A /fit command that reads back as the same run and the same assumptions: the model as
    asked, the method only when the user named it (or what they ruled out), the non-default
    keys, and the offer constraints."""
    query = parsed.query
    model = f"{plain(parsed.asked_size)}b" if parsed.asked_size is not None else parsed.model.id
    parts = [model]
    ruled_out = [n.split(":", 1)[1] for n in parsed.notes if n.startswith("negated:")]
    if ruled_out:
        parts += [f"no-{method}" for method in ruled_out]
    elif parsed.assumed("method") is None:
        parts.append(query.method.value)
    asked_tokens = next(
        (int(n.split(":", 1)[1]) for n in parsed.notes if n.startswith("tokens_clamped:")), None
    )
    # «от 1500 до 3500 токенов» with no average: the range travels, the average stays assumed.
    ranged = parsed.shortest_tokens is not None and parsed.assumed("tokens_per_example") is not None
    solved = _SOLVED_FIELDS.get(parsed.solve or "")
    for key, name in _SHORT_KEYS:
        value = getattr(query, name)
        if name == solved:
            parts.append(f"{key}=max")  # a reverse question: the query holds a placeholder
            continue
        if name == "ctx":
            # A given ctx is written even at its default (examples longer than it would raise
            # it again); an assumed one is not: the examples, or nothing, say it again.
            if parsed.assumed("ctx") is not None:
                continue
        elif value is None or value == getattr(_DEFAULT, name):
            continue
        if name == "tokens_per_example" and asked_tokens is not None:
            value = asked_tokens  # as asked: the cut to ctx is said again
        if name == "tokens_per_example" and parsed.assumed(name) is not None:
            continue  # assumed (ctx/2, or the middle of a range the range says): assumed again
        if name == "dataset_examples" and parsed.assumed(name) is not None:
            continue  # what the steps stand for: the steps are written, below
        if name == "dataset_examples" and value % 1000 == 0:
            value = f"{value // 1000}k"  # 64 bytes of callback data: every byte counts
        shown = value.value if hasattr(value, "value") else value
        parts.append(f"{key}={plain(shown)}" if isinstance(shown, float) else f"{key}={shown}")
    if ranged:
        parts.append(f"tok={parsed.shortest_tokens}-{parsed.longest_tokens}")
    elif parsed.longest_tokens is not None:
        parts.append(f"longest={parsed.longest_tokens}")
    if query.dataset_tokens and not query.dataset_examples:
        parts.append(f"ds={query.dataset_tokens}tok")
    if parsed.steps is not None:
        parts.append(f"steps={parsed.steps}")
    if parsed.time_budget_hours is not None:
        parts.append(f"hours={plain(parsed.time_budget_hours)}")
    if parsed.card_gb is not None:
        parts.append(f"cardgb={plain(parsed.card_gb)}")
    gpu = parsed.target_gpu or parsed.target_family
    if gpu:
        parts.append(f"gpu={gpu.replace(' ', '-')}")
    if parsed.budget_rub is not None:
        budget = parsed.budget_rub
        parts.append(
            f"budget={plain(budget / 1000)}k" if budget % 1000 == 0 else f"budget={plain(budget)}"
        )
    if parsed.russia_only:
        parts.append("loc=ru")
    for key, name in _OFFER_KEYS:
        value = getattr(parsed, name)
        if value is not None:
            parts.append(f"{key}={plain(value)}" if isinstance(value, float) else f"{key}={value}")
    if CHEAPEST_NOTE in parsed.notes:
        parts.append(CHEAPEST_WORD)
    return " ".join(parts)


def command_with_method(parsed: ParsedQuery, method: Method) -> str:
    """The same run as `command_for`, with `method` named instead of what was there."""
    words = command_for(parsed).split(" ")
    methods = {m.value for m in Method}
    kept = [w for w in words[1:] if w not in methods and not w.startswith("no-")]
    return " ".join([words[0], method.value, *kept])
