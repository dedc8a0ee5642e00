"""`python -m bot`: bad configuration exits 2 with one line; console mode works.

Its main() runs in this process (tests/in_process.py) where only the exit status and what it
printed count; real processes where a signal stops it or a second one shares its database."""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from bot.__main__ import main
from storage import Store
from tests.bot.conftest import TOKEN
from tests.fakes.telegram import FakeTelegram
from tests.in_process import Finished, run_entry
from tests.postgres import require_postgres, temporary_database, url_for
from tests.processes import ROOT, clean_environ, free_port

# Real processes, waited on for seconds: scheduled first (tests/conftest.py).
pytestmark = pytest.mark.processes


# No test here draws a chart: each bot would otherwise spawn a chart worker that imports
# matplotlib and draws once (a second or more of CPU) for nothing. A chart asked for still
# starts one (bot/chart_pool.py); tests/bot/test_e2e_history.py checks the warm-up itself.
NO_CHARTS = {"GPURADAR_CHART_WARM_UP": "false"}
# Telegram's gap between two messages to one chat (1 s): the console's replies here come
# 0.05 s apart instead; what is checked is what they say (tests/bot/test_limiter.py and
# test_delivery.py prove the gap).
QUICK_REPLIES = {"GPURADAR_SEND_CHAT_INTERVAL_S": "0.05"}


def run_bot(tmp_path: Path, env: dict[str, str], stdin: str = "") -> Finished:
    """`python -m bot` run in this process (tests/in_process.py): what it printed and its
    exit status, with exactly these settings, in `tmp_path` (no .env from the checkout)."""
    settings = {
        "GPURADAR_DB_PATH": str(tmp_path / "data" / "bot.sqlite3"),
        "GPURADAR_MONITOR": "false",  # no scraping of real providers from tests
        "GPURADAR_OPS_PORT": "0",  # any free port: 8080 may be taken
        **NO_CHARTS,
        **QUICK_REPLIES,
    }
    return run_entry(main, env={**settings, **env}, cwd=tmp_path, stdin=stdin)


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"GPURADAR_TIMEZONE": "Mars/Olympus"}, "GPURADAR_TIMEZONE: unknown time zone"),
        ({"GPURADAR_DEFAULT_LANGUAGE": "fr"}, "GPURADAR_DEFAULT_LANGUAGE"),
        ({"GPURADAR_BOT_TOKEN": "oops secret"}, "GPURADAR_BOT_TOKEN: does not look like"),
    ],
)
def test_invalid_configuration_exits_2_with_one_line(
    tmp_path: Path, env: dict[str, str], fragment: str
):
    result = run_bot(tmp_path, env)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0]
    assert "Traceback" not in result.stderr
    assert "oops secret" not in result.stderr


def test_unusable_database_path_exits_2(tmp_path: Path):
    (tmp_path / "file").write_text("not a directory")
    result = run_bot(
        tmp_path,
        {
            "GPURADAR_MODE": "console",
            "GPURADAR_DB_PATH": str(tmp_path / "file" / "db.sqlite3"),
            "GPURADAR_LOG_FILE": str(tmp_path / "bot.log"),
        },
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "GPURADAR_DB_PATH" in lines[0]


CONSOLE = {"GPURADAR_MODE": "console"}


NO_TOKEN_LINE = (
    "gpuradar: no bot token: set GPURADAR_BOT_TOKEN (from @BotFather),"
    " or GPURADAR_MODE=console to try the bot in a terminal"
)


def test_without_a_token_or_a_terminal_it_exits_2_saying_a_token_is_needed(tmp_path: Path):
    # A container started without its token: stdin is /dev/null, as under `docker run`.
    result = run_entry(main, env={}, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [NO_TOKEN_LINE]
    # A pipe is no terminal either.
    piped = run_bot(tmp_path, {}, stdin="/start\n")
    assert (piped.returncode, piped.stderr.splitlines()) == (2, [NO_TOKEN_LINE])


def test_polling_mode_without_a_token_exits_2(tmp_path: Path):
    result = run_bot(tmp_path, {"GPURADAR_MODE": "polling"})
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "GPURADAR_BOT_TOKEN: required when GPURADAR_MODE=polling" in line


def test_console_mode_logs_to_a_file_and_warns_on_stderr_once(tmp_path: Path):
    # The ops port taken twice over: one warning at start-up, in the file and once on stderr.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_bot(
            tmp_path,
            {**CONSOLE, "GPURADAR_OPS_HOST": "127.0.0.1", "GPURADAR_OPS_PORT": str(port)},
            stdin="/start\n",
        )
    assert result.returncode == 0, result.stderr
    assert "Я gpuradar." in result.stdout
    assert " INFO " not in result.stdout
    assert "WARNING" not in result.stdout
    (warning,) = result.stderr.splitlines()
    assert warning.startswith("gpuradar warning: ops server not started: cannot listen on")
    log = (tmp_path / "data" / "gpuradar.log").read_text(encoding="utf-8")
    assert "WARNING gpuradar: ops server not started" in log


def test_console_exit_while_refreshes_are_running_prints_no_traceback(tmp_path: Path):
    # Every provider accepts the connection and never answers, so the scrapes are still
    # waiting when the input ends. Their cancellation at exit is no error (offline, it used to
    # print three CancelledError tracebacks).
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)  # the kernel completes the handshakes; nobody ever reads
        dead = f"http://127.0.0.1:{silent.getsockname()[1]}"
        result = run_bot(
            tmp_path,
            {
                **CONSOLE,
                "GPURADAR_MONITOR": "true",
                "GPURADAR_SELECTEL_URL": dead,
                "GPURADAR_HOSTKEY_URL": dead,
                "GPURADAR_IMMERS_URL": dead,
            },
            stdin="/start\n",
        )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "CancelledError" not in result.stderr
    assert "gpuradar error" not in result.stderr
    log = (tmp_path / "data" / "gpuradar.log").read_text(encoding="utf-8")
    assert "Traceback" not in log
    assert "refresh stopped by shutdown" in log


def test_console_mode_prints_greeting_and_help_then_exits_0(tmp_path: Path):
    result = run_bot(tmp_path, CONSOLE, stdin="/start\n/help\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Я gpuradar." in out
    assert "[1] 💰 Цены и наличие" in out
    assert "[5] ❓ Помощь" in out
    assert "Что я умею" in out
    assert out.index("Я gpuradar.") < out.index("Что я умею")
    assert "<b>" not in out  # printed as plain text


def test_console_buttons_are_pressed_by_number(tmp_path: Path):
    result = run_bot(tmp_path, CONSOLE, stdin="/start\n#4\n#2\n#9\n/settings\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "✎ ⚙️ Настройки" in out  # the menu was edited into the settings view
    assert "✎ ⚙️ Settings" in out  # button 2 switched the language to English
    assert "» Saved" in out
    assert "(no button 9 here)" in out
    assert out.rstrip().splitlines()[-1] == "  [5] « Menu"  # /settings ends with its keyboard


async def start_bot_process(tmp_path: Path, env: dict[str, str]) -> asyncio.subprocess.Process:
    clean = clean_environ()
    clean.update(
        {
            "GPURADAR_DB_PATH": str(tmp_path / "bot.sqlite3"),
            "GPURADAR_MONITOR": "false",
            "GPURADAR_OPS_PORT": "0",
            **NO_CHARTS,
            "PYTHONPATH": str(ROOT),
            **env,
        }
    )
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=tmp_path,
        env=clean,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def greet_then_stop(
    process: asyncio.subprocess.Process, telegram: FakeTelegram, *, ready: str
) -> bytes:
    """Once the bot calls `ready`, /start must be answered; then SIGTERM. Its stderr."""
    try:
        await telegram.wait_for_call(ready)
        after = telegram.mark()
        telegram.push_message(7, "/start")
        reply = await telegram.wait_for_call("sendMessage", after=after)
        assert "gpuradar" in reply.result["text"]
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return stderr


async def test_a_token_telegram_rejects_exits_2(tmp_path: Path):
    async with FakeTelegram(token=TOKEN) as telegram:
        wrong = "999:wrong-token"
        # In a thread: this loop serves the fake Telegram while main runs its own.
        result = await asyncio.to_thread(
            run_bot,
            tmp_path,
            {"GPURADAR_BOT_TOKEN": wrong, "GPURADAR_TELEGRAM_API_URL": telegram.base_url},
        )
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2
    assert lines == ["gpuradar: Telegram rejected GPURADAR_BOT_TOKEN (401 Unauthorized)"]
    assert wrong not in result.stderr


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("http://127.0.0.1:99999", "GPURADAR_TELEGRAM_API_URL"),  # no such port
        ("http://bot:hunter2@127.0.0.1:99999", "GPURADAR_TELEGRAM_API_URL"),
        ("http://127.0.0.1:{port}", "cannot reach Telegram"),  # retried, then given up
        ("http://bot:hunter2@127.0.0.1:{port}", "GPURADAR_TELEGRAM_API_URL=http://bot:***@127"),
    ],
)
def test_start_up_failures_are_one_line_without_the_token(tmp_path: Path, url: str, fragment: str):
    address = url.format(port=free_port())
    result = run_bot(
        tmp_path,
        {
            "GPURADAR_BOT_TOKEN": TOKEN,
            "GPURADAR_TELEGRAM_API_URL": address,
            "GPURADAR_STARTUP_RETRY_S": "1",
        },
    )
    assert result.returncode == 2
    *retries, last = result.stderr.strip().splitlines()
    # Each retry is logged as it happens; the failure itself is one line.
    assert all("Telegram not reachable yet" in line for line in retries), result.stderr
    assert last.startswith("gpuradar: ")
    assert fragment in last
    assert "Traceback" not in result.stderr
    secret = TOKEN.split(":")[1]
    assert secret not in result.stderr + result.stdout
    assert "hunter2" not in result.stderr + result.stdout  # the API URL's password


async def test_with_a_token_the_process_polls_and_stops_on_sigterm_and_a_second_exits_2(
    tmp_path: Path,
):
    """One real process polls the fake Telegram and answers; a second bot on its database
    exits 2 with one line naming it; SIGTERM then stops the first with 0."""
    async with FakeTelegram(token=TOKEN) as telegram:
        env = {"GPURADAR_BOT_TOKEN": TOKEN, "GPURADAR_TELEGRAM_API_URL": telegram.base_url}
        first = await start_bot_process(tmp_path, env)
        try:
            await telegram.wait_for_call("getMe")
            # The second one in this process: the first's lock is another process's all the
            # same. In a thread, as this loop serves the fake Telegram meanwhile.
            second = await asyncio.to_thread(
                run_bot, tmp_path, {**env, "GPURADAR_DB_PATH": str(tmp_path / "bot.sqlite3")}
            )
        except BaseException:
            first.kill()
            await first.wait()
            raise
        stderr = await greet_then_stop(first, telegram, ready="getMe")
    assert second.returncode == 2
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert "is in use by another gpuradar process" in lines[0]
    assert f"(pid {first.pid})" in lines[0]
    assert first.returncode == 0, stderr.decode()
    assert TOKEN not in stderr.decode()


async def test_sigterm_during_a_flood_pause_exits_within_seconds(tmp_path: Path):
    from tests.bot.test_e2e_delivery import seed

    store = await Store.open(tmp_path / "bot.sqlite3")
    try:
        await seed(store, range(30_000, 30_020))
    finally:
        await store.close()
    async with FakeTelegram(token=TOKEN) as telegram:
        telegram.flood_chat(30_000, retry_after=90)
        telegram.flood_wait(retry_after=90, times=1000)  # then every chat: the bot is flooded
        process = await start_bot_process(
            tmp_path, {"GPURADAR_BOT_TOKEN": TOKEN, "GPURADAR_TELEGRAM_API_URL": telegram.base_url}
        )
        try:
            # Two chats flooded: the sender pauses every send (for its 30 s cap).
            await telegram.wait_until(
                lambda: True if len(telegram.calls_of("sendMessage")) >= 2 else None
            )
            started = time.monotonic()
            process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(process.wait(), 120)
            took = time.monotonic() - started
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert process.returncode == 0
    # The failure this guards is waiting out the 90 s flood pause; a busy machine may take
    # seconds to stop a process, so the bound sits well inside the failure, not near a quiet
    # machine's time (under a second).
    assert took < 45, f"SIGTERM took {took:.1f} s"


def test_an_error_that_carries_the_token_is_printed_redacted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    """aiohttp puts the request URL, token included, into its errors."""
    import logging

    import bot.__main__ as entry
    from bot.config import load_settings

    url = f"http://127.0.0.1:1/bot{TOKEN}/getMe"

    async def failing(settings: object) -> None:
        with entry.starting():
            raise ValueError(f"Invalid URL {url}")

    settings = load_settings(bot_token=TOKEN, db_path=tmp_path / "b.sqlite3", monitor=False)
    monkeypatch.setattr(entry, "load_settings", lambda: settings)
    monkeypatch.setattr(entry, "serve_telegram", failing)
    handlers = list(logging.getLogger().handlers)
    try:
        assert entry.main() == 2
    finally:
        logging.getLogger().handlers[:] = handlers
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "gpuradar: ValueError: Invalid URL http://127.0.0.1:1/bot<redacted>/getMe"
    ]


# --- PostgreSQL (GPURADAR_DATABASE_URL) -------------------------------------------------------

PASSWORD = "pg-S3cret_pw"


def files_in(folder: Path) -> list[str]:
    """What the process wrote in its working directory."""
    return sorted(path.name for path in folder.iterdir())


def test_a_malformed_database_url_exits_2_with_one_line_without_the_password(tmp_path: Path):
    result = run_bot(
        tmp_path,
        {"GPURADAR_BOT_TOKEN": TOKEN, "GPURADAR_DATABASE_URL": f"mysql://bot:{PASSWORD}@db/x"},
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "gpuradar: invalid setting GPURADAR_DATABASE_URL:"
        " must be a postgresql:// (or postgres://) URL"
    ]
    assert PASSWORD not in result.stderr + result.stdout


def test_an_unreachable_database_is_retried_then_exits_2_with_one_line(tmp_path: Path):
    url = f"postgresql://gpuradar:{PASSWORD}@127.0.0.1:{free_port()}/gpuradar"
    result = run_bot(
        tmp_path,
        {
            "GPURADAR_BOT_TOKEN": TOKEN,
            "GPURADAR_DATABASE_URL": url,
            "GPURADAR_STARTUP_RETRY_S": "1",
        },
    )
    assert result.returncode == 2
    *retries, last = result.stderr.strip().splitlines()
    # Each retry is logged as it happens (0.5 s apart at first); the failure is one line.
    assert retries, result.stderr
    assert all("not reachable" in line and "retrying" in line for line in retries)
    assert last.startswith("gpuradar: cannot use database GPURADAR_DATABASE_URL: cannot reach")
    assert "gpuradar:***@127.0.0.1" in last
    assert f"after {len(retries) + 1} tries" in last
    assert PASSWORD not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
    assert files_in(tmp_path) == []  # no SQLite file, no lock, no log


def test_a_database_that_refuses_exits_2_at_once(tmp_path: Path):
    require_postgres()
    server = urlsplit(url_for("gpuradar_no_such_database"))
    with_password = f"{server.username}:{PASSWORD}@{server.hostname}:{server.port}"
    url = urlunsplit(server._replace(netloc=with_password))  # trust auth: the password unused
    result = run_bot(
        tmp_path,
        {
            "GPURADAR_BOT_TOKEN": TOKEN,
            "GPURADAR_DATABASE_URL": url,
            "GPURADAR_STARTUP_RETRY_S": "60",
        },
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "refused us: InvalidCatalogNameError" in lines[0]
    assert PASSWORD not in result.stderr + result.stdout


async def test_with_a_database_url_the_bot_runs_on_postgresql_and_writes_no_file(tmp_path: Path):
    require_postgres()
    async with temporary_database() as url, FakeTelegram(token=TOKEN) as telegram:
        process = await start_bot_process(
            tmp_path,
            {
                "GPURADAR_BOT_TOKEN": TOKEN,
                "GPURADAR_TELEGRAM_API_URL": telegram.base_url,
                "GPURADAR_DATABASE_URL": url,
            },
        )
        stderr = await greet_then_stop(process, telegram, ready="getUpdates")  # elected
        # The user it greeted, in the database it created the schema of.
        store = await Store.connect(url)
        try:
            assert await store.get_user(7) is not None
        finally:
            await store.close()
    assert process.returncode == 0, stderr.decode()
    assert files_in(tmp_path) == []
