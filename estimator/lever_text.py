"""What the answer read and what its levers cost, in ru or en (estimator/locales/*/levers.ftl).

- `read_line`: the settings read that differ from the defaults and are not in the title,
  with the words that set them when the reader recorded them.
- `lever_lines`: one line per lever asked about and per unstated default that decides the
  verdict (estimator.asked): the run as read, then the lever switched, with its host RAM
  and time. `lever_details`: every way each lever was sized, for «Подробнее».
- `offload_line` / `offload_details`: the host RAM and CPU time of the run's own offload.
"""

from __future__ import annotations

import html

from estimator.answer import FitAnswer
from estimator.asked import Comparison, Variant
from estimator.i18n import Html, translator
from estimator.number_text import plain
from estimator.offload import OffloadCost
from estimator.plan_text import duration, gib, size_text
from estimator.query import FitQuery, Method, Offload

# The FitQuery fields the header names when they differ from the default, with their /fit
# keys; the title already names the model, method, ctx, micro-batch, card count and sharding.
READ_KEYS: tuple[tuple[str, str], ...] = (
    ("lora_rank", "rank"),
    ("targets", "targets"),
    ("optimizer", "optim"),
    ("precision", "precision"),
    ("grad_checkpointing", "gc"),
    ("stack", "stack"),
    ("offload", "offload"),
    ("loss", "loss"),
    ("packing", "packing"),
    ("grad_accum", "ga"),
    ("dataset_examples", "dataset"),
    ("dataset_tokens", "dataset"),
    ("tokens_per_example", "tokens"),
    ("epochs", "epochs"),
)
# Values written with their unit, as /fit reads them back: a dataset in tokens.
_UNIT_OF = {"dataset_tokens": "tok"}
# Title fields: named in the header only beside the words that set them.
TITLE_KEYS: tuple[tuple[str, str], ...] = (
    ("method", "method"),
    ("ctx", "ctx"),
    ("micro_batch", "bs"),
    ("gpus", "gpus"),
    ("shard", "shard"),
)
ADAPTER_ONLY = frozenset({"lora_rank", "targets"})
# Levers the reader assumes when unsaid (each is then in FitAnswer.assumptions).
_ASSUMABLE = frozenset({"lora_rank", "targets", "precision", "stack", "grad_checkpointing"})
_DEFAULT = FitQuery(model="-")
# A speed within this share of the asked run's is "the same".
SAME_SPEED = 0.05


def _shown(value: object) -> str:
    raw = value.value if hasattr(value, "value") else value
    return plain(raw) if isinstance(raw, float) else str(raw)


def read_line(answer: FitAnswer, language: str) -> str | None:
    """«Прочитал: optim=adamw8bit · offload=params» — None when nothing is left to name."""
    i18n = translator(language)
    query = answer.query
    assumed = {a.key for a in answer.assumptions}
    items = []
    for name, key in (*TITLE_KEYS, *READ_KEYS):
        value = getattr(query, name)
        words = answer.words.get(name)
        in_title = (name, key) in TITLE_KEYS
        if words is None and (
            in_title
            or value is None
            # at its default: shown only when said (a lever the reader may assume, stated:
            # «без unsloth» is stack=hf read, not assumed)
            or (value == getattr(_DEFAULT, name) and (name in assumed or name not in _ASSUMABLE))
            # a dataset said as text is read, its tokens assumed from its bytes: shown «≈»
            or (name in assumed and name != "dataset_tokens")
            or (name in ADAPTER_ONLY and query.method is Method.FULL)
        ):
            continue
        shown = _shown(value) + _UNIT_OF.get(name, "")
        sign = "≈" if name in assumed else "="
        setting = shown if name == "method" else f"{key}{sign}{shown}"
        if words is not None:
            setting = i18n("fit-read-words", setting=setting, words=words)
        items.append(setting)
    if not items:
        return None
    return i18n("fit-read", items=" · ".join(items))


def _code(setting: str) -> Html:
    return Html(f"<code>{html.escape(setting, quote=False)}</code>")


def _outcome(comparison: Comparison, variant: Variant, language: str) -> str:
    i18n = translator(language)
    peak = gib(variant.peak_gib)
    card = variant.card
    if comparison.on_card:
        assert card is not None
        return i18n(f"lever-outcome-{card.verdict.value}", peak=peak)
    if card is None:
        return i18n("lever-outcome-nothing", peak=peak)
    count = card.min_gpus or 1
    gpu = card.gpu.id if count == 1 else f"{count}× {card.gpu.id}"
    return i18n("lever-outcome-card", peak=peak, gpu=gpu)


def _times(ratio: float) -> float | int:
    """A speed ratio as said: whole from 5 up, one decimal below."""
    return round(ratio) if ratio >= 5 else round(ratio, 1)


def _speed(current: Variant, other: Variant, language: str) -> str | None:
    i18n = translator(language)
    if current.hours is not None and other.hours is not None:
        return i18n(
            "lever-cost-hours",
            time=duration(language, other.hours),
            was=duration(language, current.hours),
        )
    if current.tokens_per_second is None or other.tokens_per_second is None:
        return None
    slower = current.tokens_per_second / other.tokens_per_second
    if abs(slower - 1) < SAME_SPEED:
        return i18n("lever-cost-same-speed")
    if slower >= 2:
        return i18n("lever-cost-slower", times=_times(slower))
    if slower > 1:
        return i18n("lever-cost-percent-slower", percent=round((slower - 1) * 100))
    faster = 1 / slower
    if faster >= 2:
        return i18n("lever-cost-faster", times=_times(faster))
    return i18n("lever-cost-percent-faster", percent=round((faster - 1) * 100))


def _costs(current: Variant, other: Variant, language: str) -> str:
    """What switching costs besides the GPU: host RAM and the CPU step where the switch
    changes them, and time."""
    i18n = translator(language)
    items = []
    if other.host_ram_gb > 0 and other.host_ram_gb != current.host_ram_gb:
        items.append(i18n("lever-cost-ram", ram=size_text(language, other.host_ram_gb * 1e9)))
    if other.step_seconds > 0 and other.step_seconds != current.step_seconds:
        items.append(i18n("lever-cost-step", seconds=f"{other.step_seconds:.0f}"))
    speed = _speed(current, other, language)
    if speed is not None:
        items.append(speed)
    return "; " + ", ".join(items) if items else ""


def _current(comparison: Comparison, language: str) -> Html | str:
    setting = comparison.current.setting
    if setting == f"offload={Offload.NONE.value}":
        return translator(language)("lever-current-none")
    return _code(setting)


def lever_lines(
    answer: FitAnswer, language: str, *, defaults: bool = True, asked: int | None = None
) -> list[str]:
    """One short line per comparison: how the run was sized (its verdict is the line above)
    and the way of the lever that matters most. `defaults=False` leaves out the unstated
    defaults and `asked` keeps only that many levers asked about (a short answer that would
    not fit a phone otherwise)."""
    i18n = translator(language)
    lines = []
    kept = [c for c in answer.levers if c.asked][:asked]
    for comparison in answer.levers:
        if (comparison.asked and comparison not in kept) or (not comparison.asked and not defaults):
            continue
        other = comparison.pick
        lines.append(
            i18n(
                "lever-asked" if comparison.asked else "lever-default",
                name=i18n(f"lever-name-{comparison.lever}"),
                current=_current(comparison, language),
                setting=_code(other.setting),
                other=_outcome(comparison, other, language),
                costs=Html(html.escape(_costs(comparison.current, other, language), quote=False)),
            )
        )
    return lines


def lever_details(answer: FitAnswer, language: str) -> str | None:
    """Every way each lever was sized, the run as read first."""
    if not answer.levers:
        return None
    i18n = translator(language)
    lines = [i18n("lever-details-title")]
    offloads = False
    for comparison in answer.levers:
        name = i18n(f"lever-name-{comparison.lever}")
        lines.append(
            i18n("lever-details-asked" if comparison.asked else "lever-details-default", name=name)
        )
        current = comparison.current
        for variant in (current, *comparison.others):
            offloads |= variant.host_ram_gb > 0
            costs = "" if variant is current else _costs(current, variant, language)
            mark = i18n("lever-details-as-read") if variant is current else ""
            lines.append(
                i18n(
                    "lever-details-row",
                    setting=_code(variant.setting),
                    as_read=mark,
                    outcome=_outcome(comparison, variant, language),
                    costs=Html(html.escape(costs, quote=False)),
                )
            )
    if offloads:
        lines.append(i18n("lever-details-offload-note"))
    return "\n".join(lines)


def offload_line(answer: FitAnswer, language: str) -> str | None:
    """The run's own offload: the host RAM it needs and its CPU step."""
    cost = answer.offload
    if cost is None:
        return None
    i18n = translator(language)
    stream = ""
    if cost.stream_seconds > 0:
        stream = i18n("offload-stream", seconds=f"{cost.stream_seconds:.1f}")
    return i18n(
        "offload-line",
        value=cost.offload.value,
        ram=size_text(language, cost.ram.needed),
        seconds=_seconds(cost),
        stream=Html(html.escape(stream, quote=False)),
    )


def _seconds(cost: OffloadCost) -> str:
    return f"{cost.step_seconds:.1f}" if cost.step_seconds < 10 else f"{cost.step_seconds:.0f}"


def offload_details(answer: FitAnswer, language: str) -> str | None:
    """What the offload keeps in host RAM, part by part, and the CPU step's source."""
    cost = answer.offload
    if cost is None:
        return None
    i18n = translator(language)
    ram = cost.ram
    parts = [
        i18n(f"offload-part-{name}", size=size_text(language, size))
        for name, size in (
            ("master", ram.master),
            ("gradients", ram.gradients),
            ("optimizer", ram.optimizer),
            ("params", ram.params),
        )
        if size > 0
    ]
    return i18n(
        "offload-details",
        value=cost.offload.value,
        parts=" · ".join(parts),
        ram=size_text(language, ram.needed),
        checkpoint=size_text(language, ram.checkpoint),
        seconds=_seconds(cost),
    )


def ram_short_line(answer: FitAnswer, language: str) -> str | None:
    """No plan because the servers that hold the cards lack the RAM the offload needs."""
    if not answer.ram_short or answer.offload is None:
        return None
    return translator(language)("fit-ram-short", ram=size_text(language, answer.offload.ram.needed))
