"""One process per SQLite database: an exclusive lock on `<database>.lock`, held for life.

Two processes sending from one outbox both send every alert (the claim's lease only orders
senders that share a database server, which SQLite is not). `flock` is released by the
operating system when the process dies, however it dies (kill -9 included), so a crash never
leaves a stale lock behind; the pid written into the file is only there for the message.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path


class DatabaseInUseError(Exception):
    """Another process holds the database; `str()` says which, when it wrote its pid."""


class DatabaseLock:
    def __init__(self, path: Path, descriptor: int) -> None:
        self.path = path
        self._descriptor: int | None = descriptor

    @classmethod
    def acquire(cls, database: Path) -> DatabaseLock:
        """Lock `database` for this process, or raise DatabaseInUseError at once (no waiting)."""
        path = database.with_name(database.name + ".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(descriptor)
            os.close(descriptor)
            who = f" (pid {holder})" if holder else ""
            raise DatabaseInUseError(
                f"database {database} is in use by another gpuradar process{who}"
            ) from None
        except BaseException:
            os.close(descriptor)
            raise
        os.ftruncate(descriptor, 0)
        os.write(descriptor, f"{os.getpid()}\n".encode())
        return cls(path, descriptor)

    def release(self) -> None:
        descriptor, self._descriptor = self._descriptor, None
        if descriptor is not None:
            # Closing drops the lock; the file stays (removing it would race a new holder).
            os.close(descriptor)


def _read_pid(descriptor: int) -> str:
    with contextlib.suppress(OSError):
        text = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip()
        if text.isdigit():
            return text
    return ""
