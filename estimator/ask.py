"""One entry for both kinds of input: `/fit` arguments and free questions."""

from __future__ import annotations

from estimator.parse import ParsedQuery, QueryError, parse_command, parse_question
from estimator.query import FitQuery


def understand(text: str) -> ParsedQuery | None:
    """Read `text` as the command grammar, else as a free question.

    Text with key=value pairs is a command: its mistakes are reported (QueryError), never
    papered over by the looser free-text reader. A command reading that had to ignore words
    ("хватит ли 4090 для 13b на 4k контексте") is retried as a question, which understands
    them; None means neither reader found a sizing question.
    """
    try:
        command = parse_command(text)
    except QueryError as error:
        if "=" in text:
            raise
        question = parse_question(text)
        if question is not None:
            return question
        if error.code == "no_model":
            return None  # chatter, not a broken command
        raise
    ignored = any(note.startswith("ignored:") for note in command.notes)
    if ignored and "=" not in text:
        question = parse_question(text)
        if question is not None:
            return question
    return command


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
)
_DEFAULT = FitQuery(model="-")


def command_for(parsed: ParsedQuery) -> str:
    """A /fit command that reads back as the same run (model as asked, non-default keys)."""
    query = parsed.query
    model = f"{parsed.asked_size:g}b" if parsed.asked_size is not None else parsed.model.id
    parts = [model, query.method.value]
    for key, name in _SHORT_KEYS:
        value = getattr(query, name)
        if value is None or value == getattr(_DEFAULT, name):
            continue
        shown = value.value if hasattr(value, "value") else value
        parts.append(f"{key}={shown:g}" if isinstance(shown, float) else f"{key}={shown}")
    if query.dataset_tokens and not query.dataset_examples:
        parts.append(f"ds={query.dataset_tokens}tok")
    gpu = parsed.target_gpu or parsed.target_family
    if gpu:
        parts.append(f"gpu={gpu.replace(' ', '-')}")
    if parsed.budget_rub is not None:
        parts.append(f"budget={parsed.budget_rub:g}")
    return " ".join(parts)
