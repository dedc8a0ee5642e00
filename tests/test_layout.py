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


# The bot's composition root: the modules that open the database and hand the Store and the
# storage services (lock, election, heartbeats, shared flows) to everything else. Every other
# bot module gets what it needs through a port or a monitor type, so that the Telegram face
# depends on what it uses, not on how it is stored.
BOT_COMPOSITION_ROOT = frozenset(
    {
        "bot/app.py",  # builds and wires everything
        "bot/startup.py",  # opens the database (migrations, the SQLite lock)
        "bot/topology.py",  # alone on SQLite or shared on PostgreSQL: picks the storage services
        "bot/runtime.py",  # owns the Store and the lock, and their start and stop order
        "bot/jobs.py",  # the heartbeat and housekeeping duties run on the storage services
    }
)


def test_only_the_composition_root_of_the_bot_imports_storage():
    importing = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "bot").rglob("*.py")
        if "storage" in imported_packages(path)
    }
    assert importing - BOT_COMPOSITION_ROOT == set()
    # Each root module still wires storage: a module that stopped leaves the list.
    assert BOT_COMPOSITION_ROOT - importing == set()


# The dispatcher's wiring: bot/routers/__init__.py builds the routers, bot/app.py hands them
# to the dispatcher. A router is only the aiogram face of a use case (bot/usecases/): the Mini
# App, the open data, inline mode, the console and the other routers call the use case, never
# a router's module.
ROUTER_WIRING = frozenset({"bot/app.py", "bot/routers/__init__.py"})


def imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def test_nothing_but_the_wiring_imports_a_router():
    importing = {
        str(path.relative_to(ROOT))
        for folder in (*PACKAGES, "bench")
        for path in (ROOT / folder).rglob("*.py")
        if any(
            name == "bot.routers" or name.startswith("bot.routers.")
            for name in imported_modules(path)
        )
    }
    assert importing - ROUTER_WIRING == set()
    assert importing >= ROUTER_WIRING  # the wiring still wires them
