"""bench.estimator_accuracy without ../shared: one line saying where the data comes from."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_without_the_measurements_it_says_so_in_one_line(tmp_path: Path):
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
    assert f"{missing} not found: it comes with ../shared" in line
