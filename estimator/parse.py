"""From user text to a FitQuery: the /fit command grammar and free-text questions.

    parse_command("13b qlora ctx=4k")                      -> ParsedQuery (or QueryError)
    parse_question("хватит ли 4090 для 13b на 4k контексте?") -> ParsedQuery | None

Both return the query with defaults filled in, the catalog model it is about, and the list
of assumptions the bot must show next to the answer. The parts live in `estimator.parsing`:
`words` (every Russian and English word), `patterns` (regexes and numbers), `command`,
`text`, and `build` (defaults and assumptions).
"""

from __future__ import annotations

from estimator.parsing.build import LIMITS
from estimator.parsing.command import parse_command
from estimator.parsing.result import Assumption, ParsedQuery, QueryError
from estimator.parsing.text import parse_question

__all__ = [
    "LIMITS",
    "Assumption",
    "ParsedQuery",
    "QueryError",
    "parse_command",
    "parse_question",
]
