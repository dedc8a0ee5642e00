"""The repository stands on its own: no code, test or doc points a reader outside it.

Nothing may send a newcomer to the research folder that used to sit beside the repository,
to the original design document it replaced, or to an issue tracker they cannot open: the
facts live in docs/ (providers.md, estimator.md, telegram.md, design.md) and in
tests/fixtures/, each with its source, and a comment says what an issue number meant.

The patterns are written so that this file does not match them itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CODE_FOLDERS = (
    "bot",
    "monitor",
    "scrapers",
    "storage",
    "estimator",
    "tests",
    "bench",
    "deploy",
    "miniapp",
)
# Code, and the texts that sit beside it with comments: locales and data tables. SQL
# migrations are left out: an applied one stays byte for byte as it was
# (tests/storage/test_migrations.py), comments included.
CODE_SUFFIXES = frozenset({".py", ".ftl", ".csv", ".js", ".jsx"})
# Installed packages and build output: other people's text, and what the build made of ours
# (the Mini App's bundle is checked as its sources, in miniapp/).
NOT_OURS = frozenset({"node_modules", "static", "build"})

# What points outside the repository, each with what to write instead.
FORBIDDEN: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\.\.[/]shared"), "a path beside the repository: cite docs/ instead"),
    (
        re.compile(r"\bshared[/](?:research|data|seeds)\b"),
        "the old research folder: cite docs/ or tests/fixtures/ instead",
    ),
    (re.compile(r"DESIGN[.]md"), "the superseded design: cite docs/design.md instead"),
    (
        re.compile(r"\bissues?\s+#?[0-9]", re.IGNORECASE),
        "an issue number: say what it meant instead",
    ),
)


def _skipped(path: Path) -> bool:
    """Tool and build folders (.venv, .git, caches, egg-info, node_modules, the built
    bundle) are not the project's text."""
    parts = path.relative_to(ROOT).parts[:-1]
    return any(
        part.startswith(".") or part.endswith(".egg-info") or part in NOT_OURS for part in parts
    )


def _ours(folder: Path) -> list[Path]:
    """Every file under `folder`, not descending into the folders `_skipped` leaves out."""
    found = []
    for path in sorted(folder.iterdir()):
        if path.is_dir():
            if not _skipped(path / "-"):
                found += _ours(path)
        else:
            found.append(path)
    return found


def checked_files() -> list[Path]:
    files = [
        path
        for folder in CODE_FOLDERS
        for path in _ours(ROOT / folder)
        if path.suffix in CODE_SUFFIXES
    ]
    files += [path for path in _ours(ROOT) if path.suffix == ".md"]
    return files


def outside_references(text: str) -> list[tuple[int, str, str]]:
    """(line number, line, why) for every line that points outside the repository."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for pattern, why in FORBIDDEN:
            if pattern.search(line):
                found.append((number, line.strip(), why))
    return found


def test_the_files_checked_include_code_tests_and_docs() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in checked_files()}
    assert {"README.md", "docs/design.md", "docs/providers.md", "tests/test_layout.py"} <= names
    assert {"scrapers/selectel_parse.py", "estimator/locales/ru/fit.ftl"} <= names
    assert "estimator/data/gpus.csv" in names
    assert not any(name.startswith(".venv/") for name in names)


@pytest.mark.parametrize(
    "line",
    [
        "see " + ".." + "/sha" + "red/research/providers.md",
        "copied from " + "shared" + "/data/vram_calibration.csv",
        "the seeds in " + "shared" + "/seeds/",
        "as " + "DESIGN" + ".md says",
        "(" + "issue" + " 12: under 900)",
        "as before " + "Issue" + " 10",
        "Targets (" + "issues" + " 10 and 13)",
        "fixed in " + "issue" + " #7",
    ],
)
def test_each_kind_of_outside_reference_is_caught(line: str) -> None:
    assert outside_references(line)


@pytest.mark.parametrize(
    "line",
    [
        "See docs/design.md and docs/providers.md §Selectel.",
        "the shared HTTP layer; the users' flood state shared by replicas",
        "github.com/hiyouga/LlamaFactory/issues/4772 (a measurement's source)",
        "a phone screen: under 900 characters",
    ],
)
def test_ordinary_text_is_not_flagged(line: str) -> None:
    assert not outside_references(line)


def test_no_file_points_outside_the_repository() -> None:
    problems = [
        f"{path.relative_to(ROOT)}:{number}: {line}  <- {why}"
        for path in checked_files()
        for number, line, why in outside_references(path.read_text(encoding="utf-8"))
    ]
    assert not problems, "\n".join(problems)
