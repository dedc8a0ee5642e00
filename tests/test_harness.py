"""The test harness itself: an entry point run in process leaves the process as it was, and
a worker's shared PostgreSQL database reaches each test empty and as migrated."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import asyncpg

from tests.in_process import run_entry
from tests.postgres import migrated_database, require_postgres

A_USER = """
INSERT INTO users (chat_id, language, timezone, created_at, last_seen_at)
VALUES ($1, 'ru', 'UTC', now(), now())
"""


def test_an_entry_sees_only_its_settings_and_leaves_the_process_as_it_was(
    tmp_path: Path, monkeypatch
):
    monkeypatch.setenv("GPURADAR_MODE", "webhook")  # this shell's: the entry must not see it
    root = logging.getLogger()
    handlers, level, cwd = list(root.handlers), root.level, Path.cwd()
    seen: dict[str, object] = {}

    def entry() -> int:
        seen["mode"] = os.environ.get("GPURADAR_MODE")
        seen["token"] = os.environ.get("GPURADAR_BOT_TOKEN")
        seen["cwd"] = Path.cwd()
        seen["line"] = sys.stdin.readline()
        seen["terminal"] = sys.stdin.isatty()
        root.addHandler(logging.FileHandler(tmp_path / "entry.log"))
        root.setLevel(logging.DEBUG)
        print("out")
        print("err", file=sys.stderr)
        return 3

    result = run_entry(entry, env={"GPURADAR_BOT_TOKEN": "1:x"}, cwd=tmp_path, stdin="/start\n")
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert seen == {
        "mode": None,
        "token": "1:x",
        "cwd": tmp_path,
        "line": "/start\n",
        "terminal": False,
    }
    assert os.environ["GPURADAR_MODE"] == "webhook"
    assert "GPURADAR_BOT_TOKEN" not in os.environ
    assert (root.handlers, root.level, Path.cwd()) == (handlers, level, cwd)


def test_an_entry_that_exits_with_a_message_prints_it_and_exits_1(tmp_path: Path):
    def entry() -> int:
        sys.exit("no such file")

    result = run_entry(entry, env={}, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "no such file\n")


async def test_the_shared_database_comes_back_empty_and_as_migrated():
    require_postgres()
    async with migrated_database() as url:
        connection = await asyncpg.connect(url)
        try:
            await connection.execute(A_USER, 1)
            await connection.execute("CREATE TABLE left_behind (id int)")
        finally:
            await connection.close()
    async with migrated_database() as again:
        connection = await asyncpg.connect(again)
        try:
            assert await connection.fetchval("SELECT count(*) FROM users") == 0
            assert await connection.fetchval("SELECT to_regclass('left_behind')") is None
            assert await connection.fetchval("SELECT count(*) FROM schema_migrations") > 0
        finally:
            await connection.close()
    async with migrated_database() as third:
        connection = await asyncpg.connect(third)
        try:
            await connection.execute(A_USER, 2)
        finally:
            await connection.close()
    async with migrated_database() as fourth:
        assert fourth == third  # only rows changed: emptied, not replaced
        connection = await asyncpg.connect(fourth)
        try:
            assert await connection.fetchval("SELECT count(*) FROM users") == 0
        finally:
            await connection.close()
