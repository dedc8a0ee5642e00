"""The README's console examples, as a newcomer would run them: in a fresh directory that holds
the checkout (so `data/` and any `.env` are this test's own), against the bundled fake sites.

The first line, `make demo`, goes to bash as written: make, the Makefile's recipe and this
tree's own `.venv` interpreter (never another tree's, never an install). The other lines pipe
text into `make demo` or `make run`; what make would start for those is checked with
`make -n`, and the entry it names runs in this process (tests/in_process.py) with the piped
text as its stdin: a process of its own would prove nothing more, at seconds of imports each.

The transcript (stdout, the chat) must hold no traceback and no log line; stderr may carry
only one-line warnings, each distinct one once; `make demo` must show the stock flip's alert
and the price drop's. What the README and docs/ show as an example's output (a block marked
`<!-- transcript: ... -->`) must be what that example printed, line for line.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

import bot.__main__
import tests.fakes.demo
from tests.in_process import Finished, run_entry

# Real processes, waited on for seconds: scheduled first (tests/conftest.py).
pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# The interpreter `make` created in this tree (the Makefile's VENV): the one the sandbox runs.
TREE_VENV = ROOT / ".venv"
TREE_PYTHON = TREE_VENV / "bin" / "python"
# What the checkout has that a run must not share with the developer's own.
SKIPPED = frozenset({".git", ".env", "data", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
LOG_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) "
    r"|^gpuradar (warning|error):|^(WARNING|ERROR|INFO):"
)
TIMEOUT_S = 180
# The one example run through bash and make as written.
AS_WRITTEN = "make demo"
# The Makefile's recipes (checked below with `make -n`): the entry each target runs.
ENTRIES: dict[str, Callable[[], int | None]] = {
    "demo": tests.fakes.demo.main,  # .venv/bin/python -m tests.fakes.demo
    "run": bot.__main__.main,  # .venv/bin/python -m bot
}
# The demo's two alerts go to one chat, each a second after the message before it
# (Telegram's per-chat gap): a shorter gap shows the same two alerts without the waits.
DEMO_PACE = {"GPURADAR_SEND_CHAT_INTERVAL_S": "0.05"}
# The console warms its chart workers at start-up (a process importing matplotlib, about a
# second of CPU): the examples run in this process warm them only when they draw a chart. The
# one run through make as written warms them as a newcomer's would.
NO_CHARTS = {"GPURADAR_CHART_WARM_UP": "false"}
# What a Python process's default warning filters hide; anything else it would print.
HIDDEN_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


# A sample of what an example prints, in the README or docs/*.md: `<!-- transcript: KEY -->`,
# a fenced block, `<!-- /transcript -->`. KEY names the README's console example it shows:
# the example line itself, or words that are in exactly one of them.
TRANSCRIPT = re.compile(
    r"<!-- transcript: (?P<key>.+?) -->\n```\w*\n(?P<sample>.*?)\n```\n<!-- /transcript -->", re.S
)
DOCUMENTS = (README, *sorted((ROOT / "docs").glob("*.md")))
# In a sample, a line of its own that stands for lines left out.
ELIDED = "…"
# What differs between two runs of one example against the same fake sites: how old the
# offers were when shown (prices-age-* in estimator/locales/*/main.ftl).
AGE = re.compile(r"только что|\d+ (?:мин|ч|дн\.) назад|just now|\d+ (?:min|h|d) ago")


def console_examples() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- console-examples -->")[1].split("<!-- /console-examples -->")[0]
    fenced = block.split("```sh\n")[1].split("```")[0]
    return [line for line in fenced.splitlines() if line.strip() and not line.startswith("#")]


EXAMPLES = console_examples()


def printed_samples() -> list[tuple[str, str, str]]:
    """(document, key, sample) for every transcript sample in the README and docs/."""
    return [
        (str(path.relative_to(ROOT)), found["key"], found["sample"])
        for path in DOCUMENTS
        for found in TRANSCRIPT.finditer(path.read_text(encoding="utf-8"))
    ]


SAMPLES = printed_samples()


def example_named(key: str) -> str:
    """The console example a sample's key names: the line itself, or the one holding it."""
    if key in EXAMPLES:
        return key
    holding = [line for line in EXAMPLES if key in line]
    assert len(holding) == 1, f"{key!r} names {len(holding)} of the README's console examples"
    return holding[0]


def unshown(sample: str, printed: str) -> str | None:
    """Why `sample` is not what was `printed`, or None when it is: every run of lines between
    two `…` lines is printed as it stands, line for line, and the runs in this order; the first
    run opens the transcript unless the sample starts with `…`, and the last one closes it
    unless the sample ends with one. Offer ages are the one thing that may differ."""
    shown = AGE.sub("<age>", sample).split("\n")
    lines = AGE.sub("<age>", printed).rstrip("\n").split("\n")
    runs: list[list[str]] = [[]]
    for line in shown:
        if line == ELIDED:
            runs.append([])
        else:
            runs[-1].append(line)
    at = 0
    for number, run in enumerate(runs):
        if not run:
            continue
        first, last = number == 0, number == len(runs) - 1
        starts = [
            start
            for start in range(at, len(lines) - len(run) + 1)
            if lines[start : start + len(run)] == run
            and (not first or start == 0)
            and (not last or start + len(run) == len(lines))
        ]
        if not starts:
            where = "opening it" if first else "closing it" if last else "after the run before"
            return f"not printed, {where}:\n" + "\n".join(run)
        at = starts[0] + len(run)
    return None


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory that looks like the checkout: `make` and relative paths work in it.

    Its `.venv/bin/python` runs this tree's own `.venv` interpreter and notes each run in
    `interpreter.log`; its `.venv` stamp is newer than pyproject.toml, so `make demo` installs
    nothing (a symlink to the tree's .venv would let make install into it).
    """
    if not TREE_PYTHON.is_file():
        pytest.fail(f"no {TREE_PYTHON}: run `make .venv/.installed` in {ROOT} first")
    folder = tmp_path_factory.mktemp("newcomer")
    for entry in ROOT.iterdir():
        if entry.name not in SKIPPED and entry.name != ".venv":
            (folder / entry.name).symlink_to(entry)
    bin_folder = folder / ".venv" / "bin"
    bin_folder.mkdir(parents=True)
    python = bin_folder / "python"
    ran = shlex.quote(str(folder / "interpreter.log"))
    python.write_text(
        f'#!/bin/sh\necho "$*" >> {ran}\nexec {shlex.quote(str(TREE_PYTHON))} "$@"\n',
        encoding="utf-8",
    )
    python.chmod(0o755)
    stamp = folder / ".venv" / ".installed"
    stamp.touch()
    newer = (ROOT / "pyproject.toml").stat().st_mtime + 1
    os.utime(stamp, (newer, newer))  # make sees the stamp as up to date: nothing to install
    return folder


def newcomer_env() -> dict[str, str]:
    """No token, no GPURADAR_* settings but the demo's pace, and not inside a make (a
    sub-make would print "Entering directory" lines that a newcomer does not see)."""
    drop = {"BOT_TOKEN", "MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES"}
    mine = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("GPURADAR_") and name not in drop
    }
    return {**mine, **DEMO_PACE}


def run_as_written(line: str, folder: Path) -> Finished:
    done = subprocess.run(
        ["bash", "-c", line],  # noqa: S607 - the README's own shell line
        cwd=folder,
        env=newcomer_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    return Finished(done.returncode, done.stdout, done.stderr)


def piped(line: str) -> tuple[str, dict[str, str], str]:
    """`printf '...' | [NAME=value ...] make TARGET` as (what printf writes, the
    assignments, the target); printf itself runs in bash, so its escapes mean what they
    mean there."""
    producer, bar, consumer = line.partition(" | ")
    *assignments, make, target = shlex.split(consumer)
    assert bar, line
    assert producer.startswith("printf "), line
    assert make == "make", line
    assert all("=" in word for word in assignments), line
    stdin = subprocess.run(
        ["bash", "-c", producer],  # noqa: S607 - the README's own printf
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=True,
    ).stdout
    return stdin, dict(word.split("=", 1) for word in assignments), target


def run_in_process(line: str, folder: Path) -> Finished:
    """The entry `make TARGET` runs, in this process, with what the line pipes into it.

    Python's warnings go to its stderr as a process would print them (the ones a process
    hides by default aside), so the test's check of stderr still sees them."""
    stdin, assignments, target = piped(line)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        charts = {} if "/history" in stdin else NO_CHARTS
        result = run_entry(
            ENTRIES[target], env={**DEMO_PACE, **charts, **assignments}, cwd=folder, stdin=stdin
        )
    shown = [
        f"{w.filename}:{w.lineno}: {w.category.__name__}: {w.message}"
        for w in caught
        if not issubclass(w.category, HIDDEN_WARNINGS)
    ]
    return Finished(
        result.returncode, result.stdout, "".join(f"{text}\n" for text in shown) + result.stderr
    )


@pytest.fixture(scope="module")
def transcripts(sandbox: Path) -> dict[str, Finished]:
    """Each example run once, in README order (later lines may rely on nothing earlier)."""
    return {
        line: run_as_written(line, sandbox) if line == AS_WRITTEN else run_in_process(line, sandbox)
        for line in EXAMPLES
    }


def test_make_in_the_sandbox_installs_nothing_and_runs_the_trees_own_interpreter(sandbox: Path):
    planned = subprocess.run(
        ["make", "-n", "demo", "run"],  # noqa: S607 - what the README's lines call
        cwd=sandbox,
        env=newcomer_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=True,
    ).stdout
    assert "pip" not in planned
    assert "venv" not in planned.replace(".venv/bin/python", "")
    assert planned.splitlines() == [
        ".venv/bin/python -m tests.fakes.demo",
        ".venv/bin/python -m bot",
    ]
    prefix = subprocess.run(
        [str(sandbox / ".venv" / "bin" / "python"), "-c", "import sys; print(sys.prefix)"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=True,
    )
    assert Path(prefix.stdout.strip()) == TREE_VENV


def test_make_demo_as_written_ran_the_demo_on_the_trees_own_interpreter(
    sandbox: Path, transcripts: dict[str, Finished]
):
    assert transcripts[AS_WRITTEN].returncode == 0
    ran = (sandbox / "interpreter.log").read_text(encoding="utf-8").splitlines()
    assert [line for line in ran if "tests.fakes.demo" in line] == ["-m tests.fakes.demo"]


def test_the_readme_has_console_examples_for_the_demo_and_the_console():
    assert any(line.startswith("make demo") for line in EXAMPLES)
    assert any("make demo" in line and line.startswith("printf") for line in EXAMPLES)
    assert any("make run" in line for line in EXAMPLES)


@pytest.mark.parametrize("line", EXAMPLES)
def test_each_example_runs_cleanly(line: str, transcripts: dict[str, Finished]):
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


def demo_runs(transcripts: dict[str, Finished]) -> list[str]:
    return [result.stdout for line, result in transcripts.items() if "make demo" in line]


def test_the_demo_shows_an_alert_for_the_stock_flip_and_one_for_the_price_drop(
    transcripts: dict[str, Finished],
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


def chat_of(transcripts: dict[str, Finished], command: str) -> str:
    (chat,) = [result.stdout for line, result in transcripts.items() if command in line]
    return chat


def test_what_the_examples_show(transcripts: dict[str, Finished]):
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
    transcripts: dict[str, Finished],
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


def test_the_readme_shows_what_the_demo_prints():
    assert "make demo" in [key for where, key, _ in SAMPLES if where == "README.md"]


@pytest.mark.parametrize(
    ("where", "key", "sample"), SAMPLES, ids=[f"{where}:{key}" for where, key, _ in SAMPLES]
)
def test_each_sample_in_the_docs_is_what_its_example_printed(
    where: str, key: str, sample: str, transcripts: dict[str, Finished]
):
    printed = transcripts[example_named(key)].stdout
    problem = unshown(sample, printed)
    assert problem is None, f"{where}, the sample of {key!r}: {problem}\n--- printed:\n{printed}"


def test_a_sample_is_checked_line_for_line_in_order_with_only_ages_free():
    printed = "#1 a\n\n#2 b · только что\nc\n\n#3 d\n\n"
    assert unshown("#1 a\n\n#2 b · 5 мин назад\nc\n\n#3 d", printed) is None
    assert unshown("…\n#2 b · только что\n…\n#3 d", printed) is None
    assert unshown("#1 a\n…", printed) is None
    assert unshown("#1 a\n…\n#2 b · только что", printed) is not None  # not the end
    assert unshown("#2 b · только что\n…", printed) is not None  # not the start
    assert unshown("…\n#3 d\n…\n#1 a\n…", printed) is not None  # out of order
    assert unshown("…\n#2 b · 16,00 ₽\n…", printed) is not None  # a changed line
    assert unshown("…\n#1 a\nc\n…", printed) is not None  # lines left out without a …
