"""The first /history chart after start-up: how long a user waits for it, and for a sign of
life (the "sending a photo…" chat action), against the in-process fake Bot API.

Measures, in one run on this machine, on the real application with a popular card's 30 days
of history (bench.update_latency's: 8 offers, 150 change points each):
  warm      - as the served bot starts (warm_charts=True): the chart workers start in the
              background, and /history comes once they are ready;
  early     - warm_charts=True, but /history comes right at start-up, before they are ready;
  cold      - the baseline, as before the warm-up: workers start at the first /history,
              which comes after the same wait as in `warm`.
Prints, per case and run, the seconds from the update to sendChatAction and to sendPhoto,
and for `warm` how long the workers took to warm. Target: the first chart in < 1.5 s.

    .venv/bin/python -m bench.history_first [--runs 2]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# The bot and its fakes are imported inside the functions, not here: the chart workers are
# spawned, and a spawned process re-imports the parent's main module (this one) before its
# first task, so imports here would be paid by every worker. The served bot runs as
# `python -m bot`, whose bot.__main__ multiprocessing does not re-import.

TOKEN = "777:bench"
CHAT = 42
# Give up on a warm-up or a chart that has not come in this long.
PATIENCE_S = 120.0


@dataclass(frozen=True)
class Sample:
    case: str
    warm_up_s: float | None  # start-up to workers ready (warm case only)
    action_s: float
    photo_s: float


async def first_chart(seeded: Path, case: str, idle_s: float) -> Sample:
    """Start the app on a copy of the seeded database and ask for one chart."""
    from bot.app import build_application
    from bot.config import Settings
    from bot.fake_telegram import FakeBotApi

    api = FakeBotApi()
    await api.start()
    with tempfile.TemporaryDirectory() as folder:
        db_path = Path(folder) / "h.sqlite3"
        shutil.copyfile(seeded, db_path)
        settings = Settings.model_validate({"db_path": db_path, "monitor": False})
        started = time.perf_counter()
        app = await build_application(
            settings,
            token=TOKEN,
            api_url=api.base_url,
            throttle_interval=0.0,
            warm_charts=case in ("warm", "early"),
        )
        polling = asyncio.create_task(app.run_polling(handle_signals=False))
        try:
            await api.wait_for_call("getMe", timeout=PATIENCE_S)
            warm_up_s = None
            assert app.charts is not None
            if case == "warm":
                # Joins the warm-up the bot started with (it starts no second one).
                await asyncio.wait_for(app.charts.warm_up(), PATIENCE_S)
                warm_up_s = time.perf_counter() - started
            elif case == "cold":
                await asyncio.sleep(idle_s)  # as long as the warm case waited
            after = api.mark()
            asked = time.perf_counter()
            api.push_message(CHAT, "/history h100")
            await api.wait_for_call("sendChatAction", after=after, timeout=PATIENCE_S)
            action_s = time.perf_counter() - asked
            photo = await api.wait_for_call("sendPhoto", after=after, timeout=PATIENCE_S)
            photo_s = time.perf_counter() - asked
            assert photo.ok, photo.description
        finally:
            await app.stop()
            await polling
            await app.close()
            await api.stop()
    return Sample(case, warm_up_s, action_s, photo_s)


async def main(runs: int) -> None:
    from bench.update_latency import seed_busy_history

    samples: list[Sample] = []
    with tempfile.TemporaryDirectory() as folder:
        seeded = Path(folder) / "seeded.sqlite3"
        await seed_busy_history(seeded)
        for run in range(runs):
            # Alternate the order: a case run later finds more of Python's files in the
            # page cache, which favours it.
            order = ("warm", "early", "cold") if run % 2 == 0 else ("cold", "early", "warm")
            idle_s = 3.0
            for case in order:
                sample = await first_chart(seeded, case, idle_s)
                if sample.warm_up_s is not None:
                    idle_s = sample.warm_up_s
                samples.append(sample)
                warm = "" if sample.warm_up_s is None else f"  (warm {sample.warm_up_s:.2f} s)"
                print(
                    f"run {run + 1} {case:<5}  chat action {sample.action_s:5.2f} s"
                    f"  chart {sample.photo_s:5.2f} s{warm}",
                    flush=True,
                )
    print("\nfirst /history chart after start-up (median over runs):")
    for case in ("warm", "early", "cold"):
        of_case = [s for s in samples if s.case == case]
        print(
            f"  {case:<5}  chat action {statistics.median(s.action_s for s in of_case):5.2f} s"
            f"  chart {statistics.median(s.photo_s for s in of_case):5.2f} s"
        )
    print("target: warm chart < 1.5 s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    asyncio.run(main(parser.parse_args().runs))
