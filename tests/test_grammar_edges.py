"""The command grammars (/fit's `understand` and its parsers, /watch's `parse_watch`) read
what a person typed, at the user's edge only. Between the bot's own messages a run or a watch
travels typed (estimator.stated_codec): a button, a link or a remembered sizing that were
turned into words and parsed again would answer another run whenever the grammar changes. The
legacy readers read what was sent before the typed texts, and nothing else."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRAMMAR = frozenset({"understand", "parse_command", "parse_question", "parse_watch"})

# module:function -> why it may read command words.
ALLOWED = {
    # What the person typed.
    "bot/routers/fit.py:create_router": "free text, through the FreeText filter",
    "bot/routers/fit.py:on_fit": "the /fit command",
    "bot/routers/fit.py:on_compare": "/fit compare's words",
    "bot/routers/inline.py:_results": "an inline query's text",
    "bot/routers/measurement.py:_run": "the run a measured speed's message names",
    "bot/usecases/watches.py:subscribe": "the /watch command's words",
    "bot/routers/watch_question.py:on_question": "the /watch words of a notify-me question",
    # Legacy readers: what was sent before the typed texts.
    "bot/routers/fit.py:_legacy_button_sizing": "a «Подробнее» button carrying a /fit command",
    "bot/routers/start.py:_legacy_sizing": "a version-1 sizing link",
    "bot/routers/start.py:_legacy_watch": "a version-1 watch link (or a watch on a run)",
    "bot/conversation.py:_legacy_sizing": "a remembered sizing stored as a /fit command",
}


def grammar_readers(path: Path) -> set[str]:
    """`module:function` of each function in `path` that names a grammar entry point."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
            if isinstance(node, ast.Name | ast.Attribute) and name in GRAMMAR:
                found.add(f"{path.relative_to(ROOT)}:{function.name}")
    return found


def test_only_the_users_edge_and_the_legacy_readers_read_command_words():
    readers: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        readers |= grammar_readers(path)
    assert readers - set(ALLOWED) == set(), "a typed value turned into words and read again"
    assert set(ALLOWED) - readers == set(), "an allowed reader that reads no words: drop it"
