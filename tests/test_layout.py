"""docs/design.md's import directions hold: bot -> everything; scrapers -> monitor, estimator;
storage -> monitor; monitor -> estimator; estimator -> nothing of ours."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "monitor", "scrapers", "storage", "estimator")
ALLOWED = {
    "bot": {"bot", "monitor", "scrapers", "storage", "estimator"},
    "scrapers": {"scrapers", "monitor", "estimator"},
    "storage": {"storage", "monitor"},
    "monitor": {"monitor", "estimator"},
    "estimator": {"estimator"},
}


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        found |= {name.split(".")[0] for name in names} & set(PACKAGES)
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_go_one_way(package: str):
    wrong = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) - ALLOWED[package])
        for path in (ROOT / package).rglob("*.py")
    }
    assert {path: names for path, names in wrong.items() if names} == {}
