"""The first /history in `make demo`: how long a newcomer waits for the chart.

Runs the demo as `make demo` does (`python -m tests.fakes.demo`, in a temporary folder, so its
data/demo/ is the bench's own) with `/history h100` piped in: the demo reads it as soon as its
scripted alerts are done, which is the soonest a newcomer can type it. Measures the seconds
from the console's echo of the line (`› /history h100`, printed as the line is handled) to
the saved picture's line (`#N 🖼 data/demo/console/...png`). Cases, alternating run by run:

  warm  - as shipped: the chart workers warm while the demo's script runs;
  cold  - the baseline: GPURADAR_CHART_WARM_UP=false, the workers start at the first /history.

Target: the warm chart in under 2 s.

    .venv/bin/python -m bench.demo_history [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASKED = "› /history h100"
PICTURE = "🖼 "
TARGET_S = 2.0
PATIENCE_S = 180


def first_history_s(warm: bool) -> float:
    """One demo run: seconds from the echoed /history to its picture."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("GPURADAR_")}
    env["PYTHONPATH"] = str(ROOT)
    env["GPURADAR_CHART_WARM_UP"] = "true" if warm else "false"
    with tempfile.TemporaryDirectory() as folder:
        demo = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.demo"],
            cwd=folder,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
        )
        assert demo.stdin is not None
        assert demo.stdout is not None
        demo.stdin.write("/history h100\n")
        demo.stdin.close()
        asked: float | None = None
        shown: float | None = None
        deadline = time.monotonic() + PATIENCE_S
        for line in demo.stdout:
            if line.startswith(ASKED):
                asked = time.perf_counter()
            elif asked is not None and PICTURE in line and shown is None:
                shown = time.perf_counter()
            if time.monotonic() > deadline:
                break
        demo.wait(timeout=PATIENCE_S)
    if asked is None or shown is None:
        raise RuntimeError(f"the demo showed no chart (exit {demo.returncode})")
    return shown - asked


def main(runs: int) -> None:
    seconds: dict[str, list[float]] = {"warm": [], "cold": []}
    for run in range(runs):
        # Alternate the order: a case run later finds more files in the page cache.
        order = ("warm", "cold") if run % 2 == 0 else ("cold", "warm")
        for case in order:
            took = first_history_s(warm=case == "warm")
            seconds[case].append(took)
            print(f"run {run + 1} {case:<4}  first /history chart {took:5.2f} s", flush=True)
    print(f"\nmake demo, first /history chart (median of {runs} runs):")
    for case, label in (("warm", "warm (as shipped)"), ("cold", "cold (baseline)")):
        print(f"  {label:<18} {statistics.median(seconds[case]):5.2f} s")
    warm = statistics.median(seconds["warm"])
    met = "met" if warm < TARGET_S else "NOT met"
    print(f"target: warm chart < {TARGET_S:.0f} s ({met})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    main(parser.parse_args().runs)
