"""Logging to stderr, with every secret scrubbed from messages and tracebacks alike."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable
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
