"""How long one message takes to read: the free-text reader beside the old one, same run.

The messages are the phrasing table's (tests/estimator/phrasings/): each first message read
as the chat reads it (`understand`), each reply applied to its last sizing
(`apply_followup`). Every message is timed `--repeat` times and its median kept; the figures
are the p50 and p99 of those medians over the table, in milliseconds:

- warm: the reader's caches as a running bot has them (the table read once before);
- cold: the word caches (pymorphy3's lemmas) emptied before each message, so every word is
  analysed anew; the analyzer itself is loaded once per process, before timing, and its
  load time is printed apart.

The old reader is the estimator package at `--base` (default: where this branch left main),
extracted with `git archive` and timed by the same code in a subprocess, on this machine at
the same time. The goal: the new reader's warm p99 at most `TARGET_MS`.

    .venv/bin/python -m bench.reading [--base REF] [--repeat 5]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "tests" / "estimator" / "phrasings"
TARGET_MS = 2.0


def messages() -> tuple[list[str], list[tuple[str, str]]]:
    def rows(name: str) -> list[str]:
        lines = (TABLE / name).read_text("utf-8").splitlines()
        rows = [line for line in lines if " => " in line and not line.startswith("#")]
        return [line.rsplit(" => ", 1)[0].strip() for line in rows]

    firsts = rows("first.txt")
    replies = [tuple(row.split(" || ", 1)) for row in rows("followups.txt")]
    return firsts, [(base, reply) for base, reply in replies]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(repeat: int) -> dict[str, float]:
    """Times every message of the table with whatever `estimator` this process imports."""
    from estimator.fit_words import understand
    from estimator.followup import apply_followup

    firsts, replies = messages()
    previous = {base: understand(base) for base, _ in replies}

    def read_first(text: str) -> None:
        with contextlib.suppress(ValueError):  # a QueryError: /fit refused it, a reading too
            understand(text)

    def read_reply(base: str, reply: str) -> None:
        last = previous[base]
        assert last is not None
        with contextlib.suppress(ValueError):
            apply_followup(last, reply)

    jobs: list[Callable[[], None]] = [functools.partial(read_first, t) for t in firsts]
    jobs += [functools.partial(read_reply, b, r) for b, r in replies]
    clear = _cache_clearer()
    load_start = time.perf_counter()
    clear(True)
    load_s = time.perf_counter() - load_start

    def timed(cold: bool) -> list[float]:
        medians = []
        for job in jobs:
            runs = []
            for _ in range(repeat):
                if cold:
                    clear(False)
                start = time.perf_counter()
                job()
                runs.append((time.perf_counter() - start) * 1000)
            medians.append(statistics.median(runs))
        return medians

    for job in jobs:
        job()  # warm the caches
    warm = timed(cold=False)
    cold = timed(cold=True)
    return {
        "messages": len(jobs),
        "load_s": load_s,
        "warm_p50": _percentile(warm, 0.5),
        "warm_p99": _percentile(warm, 0.99),
        "cold_p50": _percentile(cold, 0.5),
        "cold_p99": _percentile(cold, 0.99),
    }


def _cache_clearer() -> Callable[[bool], None]:
    """Empties the new reader's word caches (and loads its analyzer); the old one has none."""
    try:
        from estimator.parsing import lemmas
    except ImportError:
        return lambda load: None

    def clear(load: bool) -> None:
        if load:
            lemmas.analyzer()
        for cached in (lemmas.lemmas, lemmas.is_known, lemmas.is_infinitive):
            cached.cache_clear()

    return clear


def old_reader(base: str, repeat: int) -> dict[str, float]:
    """`measure` run against the estimator package at `base`, in a subprocess."""
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", base, "estimator"],
            check=True,
            capture_output=True,
        ).stdout
        with tempfile.TemporaryFile() as tar:
            tar.write(archive)
            tar.seek(0)
            with tarfile.open(fileobj=tar) as opened:
                opened.extractall(folder, filter="data")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([folder, str(ROOT)]))
        script = f"import json, bench.reading as b; print(json.dumps(b.measure({repeat})))"
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, cwd=folder, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default=None, help="git ref of the old reader")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = (
        args.base
        or subprocess.run(
            ["git", "-C", str(ROOT), "merge-base", "HEAD", "main"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    new = measure(args.repeat)
    old = old_reader(base, args.repeat)
    print(f"{int(new['messages'])} messages of the phrasing table, median of {args.repeat} each")
    print(f"{'':18}{'warm p50':>10}{'warm p99':>10}{'cold p50':>10}{'cold p99':>10}  ms")
    for name, figures in ((f"old ({base[:8]})", old), ("new", new)):
        print(
            f"{name:18}{figures['warm_p50']:10.3f}{figures['warm_p99']:10.3f}"
            f"{figures['cold_p50']:10.3f}{figures['cold_p99']:10.3f}"
        )
    print(f"pymorphy3 analyzer load, once a process: {new['load_s']:.3f} s")
    print("load average (1, 5, 15 min): " + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    verdict = "ok" if new["warm_p99"] <= TARGET_MS else "OVER"
    print(f"goal: new warm p99 <= {TARGET_MS} ms: {verdict}")


if __name__ == "__main__":
    main()
