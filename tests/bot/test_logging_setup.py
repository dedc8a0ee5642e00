"""Console mode's logging: everything to the file, warnings and errors to stderr once each."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.logging_setup import configure_console_logging

SECRET = "4242:console-secret"


@pytest.fixture
def console_logs(tmp_path: Path) -> Iterator[tuple[io.StringIO, Path]]:
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    stderr = io.StringIO()
    log_file = tmp_path / "logs" / "gpuradar.log"
    handlers = configure_console_logging("INFO", [SECRET], log_file, stream=stderr)
    yield stderr, log_file
    for handler in handlers:
        root.removeHandler(handler)
        handler.close()
    for handler in saved_handlers:
        root.addHandler(handler)
    root.setLevel(saved_level)


def test_warnings_reach_stderr_once_each_and_everything_reaches_the_file(
    console_logs: tuple[io.StringIO, Path],
):
    stderr, log_file = console_logs
    log = logging.getLogger("scrapers.test")
    log.info("refreshed selectel")
    for _ in range(3):  # every refresh repeats it
        log.warning("unknown GPU name %r", "RTX A2000")
    log.warning("unknown GPU name %r", "A100 80GB")
    try:
        raise RuntimeError(f"bad token {SECRET}")
    except RuntimeError:
        log.exception("refresh failed")
    assert stderr.getvalue().splitlines() == [
        "gpuradar warning: unknown GPU name 'RTX A2000'",
        "gpuradar warning: unknown GPU name 'A100 80GB'",
        "gpuradar error: refresh failed",  # one line: the traceback is in the file
    ]
    text = log_file.read_text(encoding="utf-8")
    assert "INFO scrapers.test: refreshed selectel" in text
    assert text.count("unknown GPU name 'RTX A2000'") == 3
    assert "Traceback" in text
    assert SECRET not in text
    assert "bad token <redacted>" in text
