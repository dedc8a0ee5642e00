"""The README's console examples, run as written, as a newcomer would: each line of the block
between `<!-- console-examples -->` markers goes to bash in a fresh directory that holds the
checkout (so `data/` and any `.env` are this test's own), against the bundled fake sites.

The transcript (stdout, the chat) must hold no traceback and no log line; stderr may carry
only one-line warnings, each distinct one once; `make demo` must show the stock flip's alert
and the price drop's.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# What the checkout has that a run must not share with the developer's own.
SKIPPED = frozenset({".git", ".env", "data", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
LOG_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) "
    r"|^gpuradar (warning|error):|^(WARNING|ERROR|INFO):"
)
TIMEOUT_S = 180


def console_examples() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- console-examples -->")[1].split("<!-- /console-examples -->")[0]
    fenced = block.split("```sh\n")[1].split("```")[0]
    return [line for line in fenced.splitlines() if line.strip() and not line.startswith("#")]


EXAMPLES = console_examples()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory that looks like the checkout: `make` and relative paths work in it.

    Its `.venv` is the interpreter running these tests, already installed (the Makefile's
    stamp is newer than pyproject.toml): `make demo` installs nothing, and never into a .venv
    of this or another checkout, which a symlink to one would let it do.
    """
    folder = tmp_path_factory.mktemp("newcomer")
    for entry in ROOT.iterdir():
        if entry.name not in SKIPPED and entry.name != ".venv":
            (folder / entry.name).symlink_to(entry)
    bin_folder = folder / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    python = bin_folder / "python"
    python.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    stamp = folder / ".venv" / ".installed"
    stamp.touch()
    newer = (ROOT / "pyproject.toml").stat().st_mtime + 1
    os.utime(stamp, (newer, newer))  # make sees the stamp as up to date: nothing to install
    return folder


def newcomer_env() -> dict[str, str]:
    """No token, no GPURADAR_* settings, and not inside a make (a sub-make would print
    "Entering directory" lines that a newcomer does not see)."""
    drop = {"BOT_TOKEN", "MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES"}
    return {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("GPURADAR_") and name not in drop
    }


@pytest.fixture(scope="module")
def transcripts(sandbox: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """Each example run once, in README order (later lines may rely on nothing earlier)."""
    done: dict[str, subprocess.CompletedProcess[str]] = {}
    for line in EXAMPLES:
        done[line] = subprocess.run(
            ["bash", "-c", line],  # noqa: S607 - the README's own shell line
            cwd=sandbox,
            env=newcomer_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    return done


def test_make_in_the_sandbox_installs_nothing_and_runs_this_interpreter(sandbox: Path):
    planned = subprocess.run(
        ["make", "-n", "demo", "run"],  # noqa: S607 - what the README's lines call
        cwd=sandbox,
        env=newcomer_env(),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    assert "pip" not in planned
    assert "venv" not in planned.replace(".venv/bin/python", "")
    assert planned.splitlines() == [
        ".venv/bin/python -m tests.fakes.demo",
        ".venv/bin/python -m bot",
    ]
    version = subprocess.run(
        [str(sandbox / ".venv" / "bin" / "python"), "-c", "import sys; print(sys.executable)"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert version.stdout.strip() == sys.executable


def test_the_readme_has_console_examples_for_the_demo_and_the_console():
    assert any(line.startswith("make demo") for line in EXAMPLES)
    assert any("make demo" in line and line.startswith("printf") for line in EXAMPLES)
    assert any("make run" in line for line in EXAMPLES)


@pytest.mark.parametrize("line", EXAMPLES)
def test_each_example_runs_cleanly(
    line: str, transcripts: dict[str, subprocess.CompletedProcess[str]]
):
    result = transcripts[line]
    assert result.returncode == 0, result.stderr[-2000:]
    chat, stderr = result.stdout, result.stderr
    assert chat.strip()
    assert "Traceback" not in chat
    assert "Traceback" not in stderr
    assert [text for text in chat.splitlines() if LOG_LINE.search(text)] == []
    # stderr: warnings only, one line each, each distinct one once.
    lines = stderr.splitlines()
    assert all(text.startswith("gpuradar warning: ") for text in lines), stderr[-2000:]
    assert len(lines) == len(set(lines))


def demo_runs(transcripts: dict[str, subprocess.CompletedProcess[str]]) -> list[str]:
    return [result.stdout for line, result in transcripts.items() if "make demo" in line]


def test_the_demo_shows_an_alert_for_the_stock_flip_and_one_for_the_price_drop(
    transcripts: dict[str, subprocess.CompletedProcess[str]],
):
    for chat in demo_runs(transcripts):
        flip = re.search(
            r"^#\d+ 🔔 H100: изменение по подписке\n\n✅ H100 SXM × 8 .*\n(.*)", chat, re.M
        )
        assert flip, chat[-3000:]
        assert flip.group(1) == "предзаказ → в наличии: 1 шт."
        drop = re.search(
            r"^#\d+ 🔔 H100 ≤650₽: изменение по подписке\n\n📉 H100 SXM × 8 .*\n(.*)", chat, re.M
        )
        assert drop, chat[-3000:]
        assert drop.group(1).startswith("3\u202f950\u202f000 → 3\u202f600\u202f000 ₽/мес (−9%)")
        assert "(demo: both alerts came." in chat


def chat_of(transcripts: dict[str, subprocess.CompletedProcess[str]], command: str) -> str:
    (chat,) = [result.stdout for line, result in transcripts.items() if command in line]
    return chat


def test_what_the_examples_show(transcripts: dict[str, subprocess.CompletedProcess[str]]):
    watch = chat_of(transcripts, "/watch a100 80gb max=250")
    assert "Уже подходит сейчас:" in watch  # HOSTKEY's A100 80GB at 234,72 ₽/h, in stock
    assert "≈234,72 ₽/ч · только помесячно" in watch
    assert "Напишу, когда появится новое:" in watch
    prices = chat_of(transcripts, "/prices h100 hourly")
    assert "✎ 💰 Цены и наличие" in prices  # #3 turned the page
    assert "Стр. 2 из" in prices
    assert "Фильтр: H100, почасово" in prices
    assert "✅ В наличии сейчас" in prices
    pictures = chat_of(transcripts, "/history h100")
    saved = re.search(r"🖼 (data/demo/console/\S+\.png)", pictures)
    assert saved, pictures[-2000:]
    pressed = chat_of(transcripts, "#3.3")
    assert "» 🗑 Подписка «H100» удалена. Остальные — /subs." in pressed
    assert "Часовой пояс: Asia/Novosibirsk" in pressed
    console = chat_of(transcripts, "make run")
    assert "✎ ⚙️ Settings" in console
    assert "What I can do" in console


def test_the_first_fit_answer_is_under_900_characters(
    transcripts: dict[str, subprocess.CompletedProcess[str]],
):
    chat = chat_of(transcripts, "/fit 13b qlora")
    answer = first_answer_after(chat, "› /fit 13b qlora ctx=4096")
    assert len(answer) < 900, f"{len(answer)} characters:\n{answer}"


def first_answer_after(chat: str, echo: str) -> str:
    """The text of the first bot message after the echoed line, without its number and
    buttons: what the phone shows."""
    after = chat.split(echo, 1)[1]
    match = re.search(r"^#\d+ (.*?)(?=^(?:  \[\d+\]|#\d+ |› |» |\(demo:)|\Z)", after, re.M | re.S)
    assert match, after[:2000]
    return match.group(1).strip()


def test_the_readme_lists_every_command_with_an_example():
    from bot.commands import MENU_COMMANDS

    table = README.read_text(encoding="utf-8").split("## Commands")[1].split("\n## ")[0]
    rows = {
        cells[1].strip("` "): cells[2]
        for line in table.splitlines()
        if line.startswith("| `/") and len(cells := line.split("|")) > 3
    }
    for command in (*MENU_COMMANDS, "admin"):
        assert f"/{command}" in rows, f"/{command} is not in the README's command table"
        assert f"`/{command}" in rows[f"/{command}"], f"/{command} has no example"
