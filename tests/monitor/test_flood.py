"""The flood rule as pure code: what each update of a run gets, at the times they were sent."""

from __future__ import annotations

from monitor.flood import BURST, Flow, Verdict, judge


def verdicts(sent: list[float], interval: float = 1.0) -> list[Verdict]:
    flow: Flow | None = None
    out: list[Verdict] = []
    for at in sent:
        verdict, flow = judge(flow, at, interval)
        out.append(verdict)
    return out


def test_calm_updates_are_all_answered() -> None:
    assert verdicts([0.0, 1.0, 2.5, 10.0]) == ["answer"] * 4


def test_a_backlog_is_judged_as_it_was_sent_not_as_it_arrives() -> None:
    # Three messages 2 s apart, kept by Telegram while the bot was down: all answered, however
    # fast they arrive now. A second message 1.5 s after the first too.
    assert verdicts([100.0, 102.0, 104.0]) == ["answer"] * 3
    assert verdicts([100.0, 101.5]) == ["answer"] * 2


def test_a_few_quick_messages_are_a_conversation() -> None:
    assert verdicts([0.0] * int(BURST)) == ["answer"] * int(BURST)


def test_a_flood_gets_answers_up_to_the_rate_and_one_notice_at_the_first_drop() -> None:
    # 30 messages in 3 s, in whole seconds as Telegram dates them (10 a second).
    got = verdicts([float(n // 10) for n in range(30)])
    assert got.count("notice") == 1
    assert got.index("notice") == got.index(next(v for v in got if v != "answer"))
    # The bucket, then one more answer a second.
    assert got.count("answer") == int(BURST) + 2
    assert "answer" not in got[got.index("notice") : 10]


def test_a_new_flood_after_a_calm_spell_gets_its_own_notice() -> None:
    got = verdicts([0.0] * 5 + [10.0] * 5)
    assert got == ["answer"] * 3 + ["notice", "drop"] + ["answer"] * 3 + ["notice", "drop"]


def test_time_never_goes_back() -> None:
    # An update dated before the last one is read as sent with it: no refill from the past.
    got = verdicts([10.0, 10.0, 10.0, 5.0])
    assert got == ["answer", "answer", "answer", "notice"]
