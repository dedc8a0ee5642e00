"""`python -m bot` as a process: bad configuration exits 2 with one line; console mode works."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_bot(
    tmp_path: Path, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GPURADAR_")}
    clean.pop("BOT_TOKEN", None)
    clean["GPURADAR_DB_PATH"] = str(tmp_path / "data" / "bot.sqlite3")
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,  # no .env from the checkout
        env={**clean, "PYTHONPATH": str(ROOT)},
        timeout=60,
        check=False,
    )


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
    result = run_bot(tmp_path, {"GPURADAR_DB_PATH": str(tmp_path / "file" / "db.sqlite3")})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "GPURADAR_DB_PATH" in lines[0]


def test_console_mode_prints_greeting_and_help_then_exits_0(tmp_path: Path):
    result = run_bot(tmp_path, {}, stdin="/start\n/help\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Я gpuradar." in out
    assert "[1] 💰 Цены и наличие" in out
    assert "[5] ❓ Помощь" in out
    assert "Что я умею" in out
    assert out.index("Я gpuradar.") < out.index("Что я умею")
    assert "<b>" not in out  # printed as plain text


def test_console_buttons_are_pressed_by_number(tmp_path: Path):
    result = run_bot(tmp_path, {}, stdin="/start\n#4\n#2\n#9\n/settings\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "✎ ⚙️ Настройки" in out  # the menu was edited into the settings view
    assert "✎ ⚙️ Settings" in out  # button 2 switched the language to English
    assert "» Saved" in out
    assert "(no button 9 here)" in out
    assert out.rstrip().splitlines()[-1] == "  [5] « Menu"  # /settings ends with its keyboard
