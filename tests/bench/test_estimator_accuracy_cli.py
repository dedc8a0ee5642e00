"""bench.estimator_accuracy given a CSV that is not there: one line, not a traceback."""

from __future__ import annotations

from pathlib import Path

from bench.estimator_accuracy import main
from tests.in_process import run_entry

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_csv_is_named_in_one_line(tmp_path: Path):
    missing = tmp_path / "shared" / "data" / "vram_calibration.csv"
    # Its main() in this process (tests/in_process.py), as `python -m` would run it.
    argv = ("-m", "--quiet", "--csv", str(missing))
    result = run_entry(main, env={}, cwd=ROOT, argv=argv)
    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert f"{missing} not found; pass --csv FILE" in line
