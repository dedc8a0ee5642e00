"""One entry for both kinds of input: `/fit` arguments and free questions."""

from __future__ import annotations

from estimator.parse import ParsedQuery, QueryError, parse_command, parse_question


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
