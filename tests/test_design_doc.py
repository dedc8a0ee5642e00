"""docs/design.md names only what exists: every path it names is in the repository, and every
code name it puts in backticks is defined or used in the code it describes.

A renamed module or function breaks this test instead of leaving the design of record wrong.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "design.md"
PACKAGES = ("bot", "monitor", "scrapers", "storage", "estimator")
# Where a bare relative path in the doc may start: the root, a package, or a folder that the
# doc's layout table lists under a package ("delivery/sender.py" is bot/delivery/sender.py).
BASES = (
    ROOT,
    *(ROOT / name for name in PACKAGES),
    ROOT / "bot" / "delivery",
    ROOT / "bot" / "ops",
    ROOT / "bot" / "miniapp",
    ROOT / "bot" / "routers",
    ROOT / "bot" / "middlewares",
    ROOT / "storage" / "schema",
    ROOT / "tests",
    ROOT / "deploy",
)
_PATH = re.compile(r"(?<![\w/.*-])((?:[\w.-]+/)*[\w.-]+\.(?:py|sql|ftl|csv|yaml|md|toml))(?![\w/])")
_DIR = re.compile(r"(?<![\w/.-])((?:[\w-]+/)+)(?=[\s),.:;]|$)")
_TICKED = re.compile(r"`([^`\n]+)`")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Backticked words that are values, settings or shell, not names in the code.
_NOT_CODE = re.compile(r"^(?:GPURADAR_[\w<>]+|https?://.*|/\w.*|\d.*|python -m .*|make .*)$")


def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _exists(path: str) -> bool:
    if "*" in path or "NNNN" in path or "<" in path:
        return True  # a pattern, not a file
    if "/" not in path and "." in path and path.split(".")[0] in PACKAGES:
        # A dotted module ("storage.sql"), not a file name.
        return (ROOT / path.replace(".", "/")).with_suffix(".py").exists()
    return any((base / path).exists() for base in BASES)


def test_every_path_the_design_names_exists():
    text = doc()
    named = {m.group(1) for m in _PATH.finditer(text)}
    named |= {m.group(1).rstrip("/") for m in _DIR.finditer(text)}
    missing = sorted(path for path in named if not _exists(path))
    assert not missing, f"docs/design.md names paths that do not exist: {missing}"


@cache
def _code_words() -> frozenset[str]:
    words: set[str] = set()
    for folder in (*PACKAGES, "deploy", "tests", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".py", ".sql", ".ftl", ".yaml", ".csv"} or path.name == "Caddyfile":
                words.update(_NAME.findall(path.read_text(encoding="utf-8", errors="replace")))
                words.add(path.stem)
    words.update(_NAME.findall((ROOT / "Makefile").read_text(encoding="utf-8")))
    return frozenset(words)


def _code_names(ticked: str) -> list[str]:
    """The identifiers of a backticked span that look like code: dotted, snake_case or
    CamelCase names (plain words such as `load` are checked too when they stand alone)."""
    if _NOT_CODE.match(ticked.strip()):
        return []
    names = _NAME.findall(ticked)
    return [name for name in names if len(name) >= 3]


def test_every_code_name_the_design_ticks_exists():
    words = _code_words()
    missing = set()
    for match in _TICKED.finditer(doc()):
        for name in _code_names(match.group(1)):
            if name not in words:
                missing.add(name)
    assert not missing, f"docs/design.md names code that does not exist: {sorted(missing)}"
