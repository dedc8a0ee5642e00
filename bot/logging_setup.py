"""Logging to stderr (or, in console mode, to a file), with every secret scrubbed from
messages and tracebacks alike."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

REDACTED = "<redacted>"


class RedactingFormatter(logging.Formatter):
    """Formats the whole record first, then removes secrets from the finished text.

    Scrubbing the final string (not record.msg) is what also catches a token that reaches the
    log inside an exception's message, a URL in a traceback, or a %-argument.
    """

    def __init__(self, fmt: str, secrets: Iterable[str]) -> None:
        super().__init__(fmt)
        # Longest first, so a secret that contains another is replaced whole.
        self._secrets = sorted({secret for secret in secrets if secret}, key=len, reverse=True)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record), self._secrets)


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret replaced, longest first (a secret inside another goes whole)."""
    for secret in sorted({secret for secret in secrets if secret}, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def one_line(error: BaseException) -> str:
    """ "Type: message" on one line, for an error that ends the process."""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def configure_logging(
    level: str, secrets: Iterable[str] = (), stream: TextIO | None = None
) -> logging.Handler:
    """Route all logging to one handler (stderr by default); returns it for tests to detach."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(
        RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", secrets)
    )
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level)
    # aiogram logs every handled update at INFO; that is noise, not an event worth keeping.
    logging.getLogger("aiogram.event").setLevel(max(logging.getLevelName(level), logging.WARNING))
    return handler


class _OncePerMessage(logging.Filter):
    """Lets each distinct message through once: a warning that every refresh repeats is
    shown the first time only (the log file keeps every occurrence)."""

    def __init__(self, limit: int = 10_000) -> None:
        super().__init__()
        self._seen: set[tuple[int, str, str]] = set()
        self._limit = limit

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.levelno, record.name, record.getMessage())
        if key in self._seen:
            return False
        if len(self._seen) < self._limit:  # bounded: a flood of distinct lines can't grow it
            self._seen.add(key)
        return True


class _OneLineFormatter(RedactingFormatter):
    """ "gpuradar warning: ..." with no traceback: the file has the details."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"gpuradar {record.levelname.lower()}: {record.getMessage()}"
        text = " ".join(text.split())
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


def configure_console_logging(
    level: str, secrets: Iterable[str], log_file: Path, stream: TextIO | None = None
) -> list[logging.Handler]:
    """Console mode: stdout is the chat, so logs go to `log_file`; warnings and errors also
    reach stderr (by default), one line each and each distinct one once.

    Raises OSError when the file cannot be opened.
    """
    secrets = list(secrets)
    log_file.parent.mkdir(parents=True, exist_ok=True)
    to_file = logging.FileHandler(log_file, encoding="utf-8")
    to_file.setFormatter(
        RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", secrets)
    )
    to_stderr = logging.StreamHandler(stream or sys.stderr)
    to_stderr.setLevel(logging.WARNING)
    to_stderr.setFormatter(_OneLineFormatter("%(message)s", secrets))
    to_stderr.addFilter(_OncePerMessage())
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(to_file)
    root.addHandler(to_stderr)
    root.setLevel(level)
    logging.getLogger("aiogram.event").setLevel(max(logging.getLevelName(level), logging.WARNING))
    return [to_file, to_stderr]
