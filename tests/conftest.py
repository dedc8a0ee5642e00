"""Session-wide test setup."""

from __future__ import annotations

import gc

import pytest

from tests.browser import missing_reason
from tests.ci import in_ci
from tests.postgres import ADMIN_URL, drop_templates, unreachable_reason
from tests.tls import share_one_context


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [_postgres_header(), _browser_header()]


def _postgres_header() -> str:
    reason = unreachable_reason()
    if reason is None:
        return f"postgresql: {ADMIN_URL} reachable; storage tests run on SQLite and PostgreSQL"
    if in_ci():
        return f"postgresql: NOT reachable at {ADMIN_URL} ({reason}); CI=true: its tests fail"
    return f"postgresql: not reachable at {ADMIN_URL} ({reason}); its tests are skipped"


def _browser_header() -> str:
    reason = missing_reason()
    if reason is None:
        return "chromium: found; the Mini App's browser tests run"
    if in_ci():
        return f"chromium: NOT found ({reason}); CI=true: the Mini App's browser tests fail"
    return f"chromium: not found ({reason}); the Mini App's browser tests are skipped"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The tests that start real processes mostly wait on them (elections, leases, refresh
    # intervals) and last 10-30 s a file: handed out first (the Makefile keeps this order
    # with --no-loadscope-reorder), their waits overlap each other and the other files
    # fill the workers after them, instead of one of them starting last and running alone.
    items.sort(key=lambda item: item.get_closest_marker("processes") is None)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> object:
    # Collection imports every test module and all they import (aiogram's hundreds of
    # models among them): objects that pile up and live to the end, which the cyclic
    # collector would walk again at each of its collections meanwhile (0.7 s of a worker's
    # 5 s of collecting). It runs again once they are frozen.
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()


def pytest_collection_finish(session: pytest.Session) -> None:
    # Only where tests run (not in xdist's controller), once aiogram is imported anyway.
    share_one_context()
    # Everything collection made (modules, test items, fixtures) lives to the end: frozen,
    # the cyclic collector stops walking it again at every full collection of the run.
    gc.freeze()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # `-q` hides the header, so the skip is said once more at the end, on one line.
    if unreachable_reason() is not None and not in_ci():
        terminalreporter.write_line(
            f"PostgreSQL not reachable at {ADMIN_URL}: the PostgreSQL half was skipped"
        )
    reason = missing_reason()
    if reason is not None and not in_ci():
        terminalreporter.write_line(f"Chromium not found ({reason}): browser tests skipped")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    drop_templates()
