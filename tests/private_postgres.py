"""A PostgreSQL cluster of the test's own, to restart and stop: never the shared server.

The shared server at 127.0.0.1:5432 serves every worker's tests, so a test that restarts or
stops PostgreSQL gets a cluster of its own: `initdb` in a temporary folder, listening on a
free loopback port with its unix socket in that folder, trust auth, durability off (a test's
data need not survive a crash of the machine). `pg_ctl restart -m fast` stands for
`pg_ctlcluster restart`: every session is ended and the server comes back on the same port.

initdb refuses to run as root, so as root the cluster belongs to the `postgres` OS user and
every command runs through `runuser -u postgres --`. Where the binaries or that user are
missing the test skips with one line (fails under CI=true, tests/ci.py).

    async with PrivatePostgres() as cluster:
        url = cluster.url          # postgresql://postgres@127.0.0.1:PORT/postgres
        cluster.restart()          # pg_ctl restart -m fast
        cluster.stop(); cluster.start()
"""

from __future__ import annotations

import asyncio
import atexit
import os
import pwd
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import Self

from tests.ci import skip_or_fail
from tests.processes import free_port

BIN = Path(os.environ.get("GPURADAR_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
OS_USER = "postgres"
# Starting a fresh cluster takes a second or two; a loaded machine gets more.
PG_CTL_WAIT_S = 60
_SETTINGS = (
    "listen_addresses = '127.0.0.1'",
    "fsync = off",
    "synchronous_commit = off",
    "full_page_writes = off",
    "max_connections = 200",
    "shared_buffers = 32MB",
)


def missing_reason() -> str | None:
    """Why no private cluster can be made here; None when one can."""
    for tool in ("initdb", "pg_ctl"):
        if not (BIN / tool).is_file():
            return f"{BIN / tool} not found"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(OS_USER)
        except KeyError:
            return f"running as root and there is no {OS_USER!r} OS user for initdb"
        if shutil.which("runuser") is None:
            return "running as root and runuser is missing"
    return None


def require_private_postgres() -> None:
    """Skip (or in CI fail) the calling test when no private cluster can be made."""
    reason = missing_reason()
    if reason is not None:
        skip_or_fail(
            f"no private PostgreSQL cluster: {reason}", "the PostgreSQL restart tests must run"
        )


class PrivatePostgres:
    """One cluster in a temporary folder; `async with` makes and starts it, then removes it."""

    def __init__(self) -> None:
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="gpuradar-pg-"))
        self.data = self.folder / "data"
        self.socket_dir = self.folder / "socket"
        self.log = self.folder / "server.log"
        self.running = False

    @property
    def url(self) -> str:
        return f"postgresql://{OS_USER}@127.0.0.1:{self.port}/postgres"

    # --- lifecycle -------------------------------------------------------------------------

    def create(self) -> None:
        self.socket_dir.mkdir()
        _own(self.folder)
        _own(self.socket_dir)
        # A copy of the session's initdb: initdb itself takes seconds on a loaded machine.
        _run("cp", "-a", str(_template() / "data"), str(self.data), cwd=self.folder)
        lines = [
            *_SETTINGS,
            f"port = {self.port}",
            f"unix_socket_directories = '{self.socket_dir}'",
        ]
        self._run("sh", "-c", f"cat >> '{self.data}/postgresql.conf'", stdin="\n".join(lines))

    def start(self) -> None:
        self._pg_ctl("start", "-l", str(self.log))
        self.running = True

    def stop(self) -> None:
        """A fast stop: every session ends, the server is gone until `start`."""
        self._pg_ctl("stop", "-m", "fast")
        self.running = False

    def restart(self) -> None:
        """`pg_ctl restart -m fast`: what `pg_ctlcluster restart` does to a replica."""
        self._pg_ctl("restart", "-m", "fast", "-l", str(self.log))
        self.running = True

    def remove(self) -> None:
        if self.running:
            self._pg_ctl("stop", "-m", "immediate")
            self.running = False
        shutil.rmtree(self.folder, ignore_errors=True)

    async def __aenter__(self) -> Self:
        require_private_postgres()
        try:
            await asyncio.to_thread(self.create)
            await asyncio.to_thread(self.start)
        except BaseException:
            self.remove()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.remove)

    # --- commands --------------------------------------------------------------------------

    def _pg_ctl(self, *arguments: str) -> None:
        self._run(
            str(BIN / "pg_ctl"), "-D", str(self.data), "-w", "-t", str(PG_CTL_WAIT_S), *arguments
        )

    def _run(self, *command: str, stdin: str | None = None) -> None:
        try:
            _run(*command, stdin=stdin, cwd=self.folder)
        except RuntimeError as error:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{error}\n{log}") from None


def _own(path: Path) -> None:
    """Make `path` the cluster's OS user's (as root; otherwise it is ours already)."""
    if os.geteuid() == 0:
        account = pwd.getpwnam(OS_USER)
        os.chown(path, account.pw_uid, account.pw_gid)


@cache
def _template() -> Path:
    """One initdb per test session, copied by each cluster; removed when the session ends."""
    folder = Path(tempfile.mkdtemp(prefix="gpuradar-pg-template-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    _own(folder)
    _run(
        str(BIN / "initdb"),
        "-D",
        str(folder / "data"),
        "-U",
        OS_USER,
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-sync",
        cwd=folder,
    )
    return folder


def _run(*command: str, cwd: Path, stdin: str | None = None) -> None:
    """`command` as the cluster's OS user; RuntimeError with its stderr if it fails."""
    prefix = ["runuser", "-u", OS_USER, "--"] if os.geteuid() == 0 else []
    done = subprocess.run(
        [*prefix, *command],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=PG_CTL_WAIT_S + 30,
        check=False,
        cwd=cwd,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command[:2])} failed ({done.returncode}): {done.stderr.strip()}"
        )
