"""The flood rule as pure code: what each update of a run gets, on an explicit clock."""

from __future__ import annotations

from monitor.flood import Flow, Verdict, judge


def verdicts(arrivals: list[float], interval: float = 1.0) -> list[Verdict]:
    flow: Flow | None = None
    out: list[Verdict] = []
    for now in arrivals:
        verdict, flow = judge(flow, now, interval)
        out.append(verdict)
    return out


def test_calm_updates_are_all_answered() -> None:
    assert verdicts([0.0, 1.0, 2.5, 10.0]) == ["answer"] * 4


def test_a_flood_gets_one_answer_per_interval_and_one_notice() -> None:
    # Five updates 0.3 s apart, then one more after the slot frees up, then another.
    got = verdicts([0.0, 0.3, 0.6, 0.9, 1.2, 2.3, 3.4])
    assert got == ["answer", "drop", "drop", "drop", "notice", "answer", "answer"]


def test_a_new_flood_after_a_calm_spell_warns_again() -> None:
    got = verdicts([0.0, 0.5, 1.0, 5.0, 5.5, 6.0])
    assert got == ["answer", "drop", "notice", "answer", "drop", "notice"]
