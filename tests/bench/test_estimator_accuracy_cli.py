"""bench.estimator_accuracy given a CSV that is not there: one line, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_csv_is_named_in_one_line(tmp_path: Path):
    missing = tmp_path / "shared" / "data" / "vram_calibration.csv"
    result = subprocess.run(
        [sys.executable, "-m", "bench.estimator_accuracy", "--quiet", "--csv", str(missing)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert f"{missing} not found; pass --csv FILE" in line
