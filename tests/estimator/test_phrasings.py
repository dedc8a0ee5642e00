"""The phrasing table of the free-text reader: each message, Russian or English, with the
typed request it must give. The table lives in tests/estimator/phrasings/ as plain text, one
case a line:

    first.txt      <message> => <slot>=<value>; <slot>=<value>; ...
    followups.txt  <the last sizing, as /fit> || <reply> => <slot>=<value>; ...

Only the slots named are checked (the ones that matter for the case). Slots: the FitQuery and
ParsedQuery fields by short names (see `reading`), `asked` (levers asked about, comma
separated), `unread` (numbers noted as unread, comma separated), `noeffect` (settings read
that change neither memory nor time), `told` (inference or a preference objective asked
about), `said.<slot>` (the words that set a slot), `none` for a text that is no sizing (or no
follow-up), and `error=<code>` for one /fit refuses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from estimator.fit_words import understand
from estimator.followup import apply_followup
from estimator.parse import ParsedQuery, QueryError
from estimator.parsing.result import Slot

TABLE = Path(__file__).parent / "phrasings"


def reading(parsed: ParsedQuery) -> dict[str, Any]:
    """What the table can say of a reading, as text."""
    q = parsed.query

    def shown(value: object) -> str:
        if value is None:
            return "-"
        if hasattr(value, "value"):
            return str(value.value)
        if isinstance(value, float):
            return str(int(value)) if value.is_integer() else str(value)
        return str(value)

    values: dict[str, object] = {
        "model": parsed.model.id,
        "size": parsed.asked_size,
        "method": q.method,
        "ctx": q.ctx,
        "bs": q.micro_batch,
        "rank": q.lora_rank,
        "targets": q.targets,
        "optim": q.optimizer,
        "precision": q.precision,
        "gc": q.grad_checkpointing,
        "gpus": q.gpus,
        "shard": q.shard,
        "stack": q.stack,
        "offload": q.offload,
        "loss": q.loss,
        "packing": q.packing,
        "ga": q.grad_accum,
        "dataset": q.dataset_examples,
        "tokens": q.tokens_per_example,
        "dstok": q.dataset_tokens,
        "longest": parsed.longest_tokens,
        "shortest": parsed.shortest_tokens,
        "epochs": q.epochs,
        "steps": parsed.steps,
        "hours": parsed.time_budget_hours,
        "cardgb": parsed.card_gb,
        "gpu": parsed.target_gpu or parsed.target_family,
        "budget": parsed.budget_rub,
        "rate": parsed.max_rub_per_hour,
        "gpurate": parsed.max_rub_per_gpu_hour,
        "mrate": parsed.max_rub_per_month,
        "vram": parsed.min_vram_gib,
        "hpm": parsed.hours_per_month,
        "ru": parsed.russia_only,
        "billing": parsed.billing,
        "solve": parsed.solve,
        "cheapest": "ask:cheapest" in parsed.notes,
        "asked": ",".join(sorted(parsed.asked_about)) or "-",
        "unread": ",".join(n.split(":", 1)[1] for n in parsed.notes if n.startswith("unread:"))
        or "-",
        "told": ",".join(n for n in parsed.notes if n == "inference" or n.startswith("preference:"))
        or "-",
        "noeffect": ",".join(n.split(":", 1)[1] for n in parsed.notes if n.startswith("no_effect:"))
        or "-",
        "asks": ",".join(
            n.split(":", 1)[1] for n in parsed.notes if n.startswith("ask:") and n != "ask:cheapest"
        )
        or "-",
    }
    found = {key: shown(value) for key, value in values.items()}
    for slot in Slot:
        found[f"said.{slot.value}"] = parsed.said.get(slot, "-")
    return found


def expected(spec: str) -> dict[str, str]:
    pairs = [part.strip() for part in spec.split(";") if part.strip()]
    if pairs == ["none"]:
        return {"none": "yes"}
    return dict(pair.split("=", 1) for pair in pairs)


def cases(name: str) -> list[tuple[str, str]]:
    rows = []
    for line in (TABLE / name).read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        text, spec = line.rsplit(" => ", 1)
        rows.append((text.strip(), spec))
    return rows


FIRST = cases("first.txt")
FOLLOWUPS = cases("followups.txt")


def check(parsed: ParsedQuery | None, spec: str) -> None:
    want = expected(spec)
    if "none" in want:
        assert parsed is None
        return
    assert parsed is not None
    got = reading(parsed)
    assert {key: got[key] for key in want} == want


def test_the_table_is_large_and_in_both_languages() -> None:
    texts = [text for text, _ in FIRST] + [text.split(" || ")[1] for text, _ in FOLLOWUPS]
    russian = [t for t in texts if any("а" <= c <= "я" for c in t.lower())]
    assert len(texts) >= 300
    assert len(russian) >= 150
    assert len(texts) - len(russian) >= 80


@pytest.mark.parametrize(("text", "spec"), FIRST, ids=[t[:50] for t, _ in FIRST])
def test_a_message_gives_its_request(text: str, spec: str) -> None:
    if spec.startswith("error="):
        with pytest.raises(QueryError) as error:
            understand(text)
        assert spec == f"error={error.value.code}"
        return
    check(understand(text), spec)


@pytest.mark.parametrize(("case", "spec"), FOLLOWUPS, ids=[t[:50] for t, _ in FOLLOWUPS])
def test_a_reply_changes_the_last_sizing(case: str, spec: str) -> None:
    base, reply = case.split(" || ")
    previous = understand(base)
    assert previous is not None
    check(apply_followup(previous, reply), spec)
