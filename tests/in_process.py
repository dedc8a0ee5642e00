"""An entry point (`bot.__main__.main`, a CLI's `main`) run inside the test process, as its
`python -m` would run it: its own environment, working directory, stdin, stdout and stderr.

A real process costs seconds of imports (aiogram alone is most of them) and proves nothing
more where the test only reads the exit status and what was printed; tests of signals, of
two processes on one database, and of kill -9 keep real processes (tests/processes.py).

    result = run_entry(main, env={"GPURADAR_MODE": "console"}, cwd=tmp_path, stdin="/start\n")
    assert result.returncode == 0, result.stderr

What it puts back afterwards: os.environ, the working directory, sys.argv and the standard
streams, and the root logger's handlers and levels (main configures logging); the handlers
main added are closed, so no log file stays open.

The environment, working directory and streams are the process's own, so an entry runs one at
a time: from an async test, `await asyncio.to_thread(run_entry, ...)` (the test's loop keeps
serving the fakes meanwhile); the entry's own `asyncio.run` gets a loop of its own there.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.processes import clean_environ

_ONE_AT_A_TIME = threading.Lock()
# Loggers main sets a level on (bot/logging_setup.py), put back as they were.
_LEVELLED = ("", "aiogram.event")


@dataclass(frozen=True)
class Finished:
    """What `subprocess.run(..., capture_output=True, text=True)` would have given."""

    returncode: int
    stdout: str
    stderr: str


class _Input(io.StringIO):
    """stdin from a pipe or /dev/null: never a terminal, as under `subprocess.run`."""

    def isatty(self) -> bool:
        return False


def run_entry(
    main: Callable[[], int | None],
    *,
    env: Mapping[str, str],
    cwd: Path,
    stdin: str = "",
    argv: Sequence[str] = ("-m",),
) -> Finished:
    """Run `main()` with exactly `env` on top of this shell's non-gpuradar environment.

    `argv` is sys.argv while it runs (argparse reads sys.argv[1:]); an exit through
    SystemExit gives its status as `python -m` would (a message is printed to stderr, exit 1).
    """
    with _ONE_AT_A_TIME, _isolated(env, cwd, argv) as (out, err):
        sys.stdin = _Input(stdin)
        try:
            code = main()
        except SystemExit as leaving:
            code = _exit_status(leaving, err)
        return Finished(code or 0, out.getvalue(), err.getvalue())


def _exit_status(leaving: SystemExit, err: io.StringIO) -> int:
    if leaving.code is None or isinstance(leaving.code, int):
        return leaving.code or 0
    print(leaving.code, file=err)  # sys.exit("message"): printed, status 1
    return 1


@contextlib.contextmanager
def _isolated(
    env: Mapping[str, str], cwd: Path, argv: Sequence[str]
) -> Iterator[tuple[io.StringIO, io.StringIO]]:
    saved_environ = dict(os.environ)
    saved_cwd = Path.cwd()
    saved_argv = sys.argv
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    root = logging.getLogger()
    saved_handlers = list(root.handlers)
    saved_levels = {name: logging.getLogger(name).level for name in _LEVELLED}
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update({**clean_environ(saved_environ), **env})
    os.chdir(cwd)
    sys.argv = list(argv)
    sys.stdout, sys.stderr = out, err
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
        for handler in list(root.handlers):
            if handler not in saved_handlers:
                root.removeHandler(handler)
                handler.close()
        root.handlers[:] = saved_handlers
        for name, level in saved_levels.items():
            logging.getLogger(name).setLevel(level)
