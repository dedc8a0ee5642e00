"""A FitAnswer as a Telegram-ready HTML message (or plain text for the CLI), in ru or en."""

from __future__ import annotations

import html
import re

from estimator.answer import FitAnswer
from estimator.cost import PriceQuote, RunCost
from estimator.fit import GpuFit, Verdict
from estimator.query import Method
from estimator.texts import Markup, text

# The cards people actually rent, smallest first: the table shows these (plus the target).
LADDER = (
    "T4",
    "RTX 3090",
    "RTX 4090",
    "RTX 5090",
    "L40S",
    "A100 40GB PCIe",
    "A100 80GB SXM",
    "H100 SXM",
    "H200",
    "B200",
)
MESSAGE_LIMIT = 4096
METHOD_NAMES = {Method.FULL: "full", Method.LORA: "LoRA", Method.QLORA: "QLoRA"}


def gib(value: float) -> str:
    return f"{value:.1f}"


def duration(language: str, hours: float) -> str:
    if hours < 1:
        return text(language, "fit-minutes", minutes=str(max(1, round(hours * 60))))
    if hours < 48:
        return text(language, "fit-hours", hours=f"{hours:.1f}" if hours < 10 else f"{hours:.0f}")
    return text(language, "fit-days", days=f"{hours / 24:.1f}")


def rubles(value: float) -> str:
    """Russian money format: thin spaces between thousands, decimal comma below 1000 ₽."""
    if value >= 1000:
        return f"{round(value):,}".replace(",", "\u202f")
    return f"{value:.2f}".replace(".", ",")


def render(answer: FitAnswer, language: str) -> str:
    """The full answer; long details go into an expandable blockquote."""
    parts = [_headline(answer, language), _table(answer, language)]
    if answer.advice:
        parts.append(_advice(answer, language))
    if answer.cautions:
        parts.append(_cautions(answer, language))
    parts.append(_prices(answer, language))
    if answer.assumptions:
        parts.append(_assumptions(answer, language))
    parts.append(f"<blockquote expandable>{_details(answer, language)}</blockquote>")
    message = "\n\n".join(parts)
    if len(message) > MESSAGE_LIMIT:
        # The details are the only part that can go; everything above is the answer.
        message = "\n\n".join(parts[:-1])
    return message


def to_plain(message: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", message))


def _headline(answer: FitAnswer, language: str) -> str:
    query = answer.query
    gpus = (
        text(language, "fit-gpus-suffix", count=str(query.gpus), shard=query.shard.value)
        if query.gpus > 1
        else ""
    )
    lines = [
        text(
            language,
            "fit-title",
            model=answer.model.id,
            method=METHOD_NAMES[query.method],
            ctx=str(query.ctx),
            bs=str(query.micro_batch),
            gpus=Markup(html.escape(gpus, quote=False)),
        )
    ]
    if answer.model_from_size:
        size = f"{answer.model.params_b:.0f}B" if answer.model.params_b >= 1 else "<1B"
        lines.append(text(language, "fit-from-size", size=size, model=answer.model.id))
    lines.append(text(language, "fit-peak", peak=gib(answer.memory.peak)))
    if answer.target is not None:
        lines.append(_target_line(answer.target, language))
    if answer.smallest is not None:
        lines.append(
            text(
                language,
                "fit-smallest",
                gpu=answer.smallest.gpu.id,
                usable=gib(answer.smallest.usable_gib),
            )
        )
    else:
        lines.append(text(language, "fit-none"))
    return "\n".join(lines)


def _target_line(row: GpuFit, language: str) -> str:
    common = {"gpu": row.gpu.id, "usable": gib(row.usable_gib)}
    if row.verdict is Verdict.FITS:
        return text(language, "fit-target-fits", headroom=gib(row.headroom_gib), **common)
    if row.verdict is Verdict.TIGHT:
        return text(language, "fit-target-tight", headroom=gib(row.headroom_gib), **common)
    if row.min_gpus and row.min_gpus > 1:
        return text(language, "fit-target-no-multi", count=str(row.min_gpus), **common)
    return text(language, "fit-target-no", missing=gib(-row.headroom_gib), **common)


def _shown_rows(answer: FitAnswer) -> list[GpuFit]:
    wanted = list(LADDER)
    if answer.target is not None and answer.target.gpu.id not in wanted:
        wanted.insert(0, answer.target.gpu.id)
    by_id = {row.gpu.id: row for row in answer.table}
    return [by_id[gpu_id] for gpu_id in wanted if gpu_id in by_id]


def _table(answer: FitAnswer, language: str) -> str:
    lines = [text(language, "fit-table-title")]
    for row in _shown_rows(answer):
        timing = answer.times.get(row.gpu.id)
        time_text = (
            text(language, "fit-row-time", time=duration(language, timing.hours)) if timing else ""
        )
        time_arg = Markup(html.escape(time_text, quote=False))
        if row.verdict is Verdict.FITS:
            line = text(
                language,
                "fit-row-fits",
                gpu=row.gpu.id,
                headroom=gib(row.headroom_gib),
                time=time_arg,
            )
        elif row.verdict is Verdict.TIGHT:
            line = text(
                language,
                "fit-row-tight",
                gpu=row.gpu.id,
                headroom=gib(row.headroom_gib),
                time=time_arg,
            )
        elif row.min_gpus and row.min_gpus > 1:
            line = text(
                language,
                "fit-row-no-multi",
                gpu=row.gpu.id,
                count=str(row.min_gpus),
                time=time_arg,
            )
        else:
            line = text(language, "fit-row-no", gpu=row.gpu.id, missing=gib(-row.headroom_gib))
        lines.append(line)
    return "\n".join(lines)


def _advice(answer: FitAnswer, language: str) -> str:
    lines = [text(language, "fit-advice-title")]
    for item in answer.advice[:5]:
        lines.append(
            "• "
            + text(
                language,
                f"advice-{item.code}",
                saves=gib(item.saves_gib),
                value=item.value,
                method=METHOD_NAMES[answer.query.method],
            )
        )
    return "\n".join(lines)


def _cautions(answer: FitAnswer, language: str) -> str:
    lines = [text(language, "fit-warnings-title")]
    lines += ["• " + text(language, f"caution-{c.code}", value=c.value) for c in answer.cautions]
    return "\n".join(lines)


def _prices(answer: FitAnswer, language: str) -> str:
    if answer.costs:
        lines = [text(language, "fit-prices-title")]
        lines += [_price_line(cost, language) for cost in answer.costs]
        return "\n".join(lines)
    if answer.rates:
        lines = [text(language, "fit-prices-title")]
        lines += [_rate_line(quote, language) for quote in answer.rates]
        return "\n".join(lines)
    if answer.prices_known:
        return text(language, "fit-prices-none-fit")
    return text(language, "fit-prices-none")


def _rate_line(quote: PriceQuote, language: str) -> str:
    common = {"provider": quote.provider, "gpu": quote.gpu_id, "count": str(quote.gpus)}
    if quote.rub_per_hour is not None:
        return text(language, "fit-rate-hour", rate=rubles(quote.rub_per_hour), **common)
    assert quote.rub_per_month is not None
    return text(language, "fit-rate-month", rate=rubles(quote.rub_per_month), **common)


def _price_line(cost: RunCost, language: str) -> str:
    quote = cost.quote
    common = {"provider": quote.provider, "gpu": quote.gpu_id, "count": str(quote.gpus)}
    if cost.monthly_is_cheaper or cost.hourly_total_rub is None:
        assert cost.monthly_total_rub is not None
        hourly = rubles(cost.hourly_total_rub) if cost.hourly_total_rub is not None else "—"
        return text(
            language,
            "fit-price-row-monthly",
            total=rubles(cost.monthly_total_rub),
            hourly=hourly,
            **common,
        )
    assert quote.rub_per_hour is not None
    return text(
        language,
        "fit-price-row",
        total=rubles(cost.hourly_total_rub),
        time=duration(language, cost.hours),
        rate=rubles(quote.rub_per_hour),
        **common,
    )


# Assumptions are shown in the command's own words, so the user can copy and change them.
COMMAND_KEYS = {
    "micro_batch": "bs",
    "lora_rank": "rank",
    "grad_checkpointing": "gc",
    "optimizer": "optim",
    "dataset_examples": "dataset",
    "tokens_per_example": "tokens",
}


def _assumptions(answer: FitAnswer, language: str) -> str:
    items = ", ".join(
        f"{COMMAND_KEYS.get(a.key, a.key)}={a.value}"
        for a in answer.assumptions
        if not (a.key == "model" and answer.model_from_size)
    )
    query = answer.query
    example = f"{answer.model.params_b:.0f}b {query.method.value} ctx={query.ctx} bs=1"
    return text(language, "fit-assumed", items=items, example=example)


def _details(answer: FitAnswer, language: str) -> str:
    memory, model, query = answer.memory, answer.model, answer.query
    breakdown = {key: gib(value) for key, value in memory.breakdown().items()}
    lines = [
        text(language, "fit-details-breakdown", **breakdown),
        text(
            language,
            "fit-details-model",
            model=model.id,
            params=f"{model.params_b:.2f}",
            layers=str(model.layers),
            hidden=str(model.hidden),
            heads=str(model.heads),
            kv_heads=str(model.kv_heads),
            vocab=str(model.vocab),
        ),
        text(
            language,
            "fit-details-setup",
            precision=query.precision.value,
            optimizer=query.optimizer.value,
            gc=query.grad_checkpointing.value,
            rank=str(query.lora_rank),
            targets=query.targets.value,
            stack=query.stack.value,
            trainable=f"{memory.trainable_params:,}".replace(",", "\u202f"),
        ),
    ]
    timing = next(iter(answer.times.values()), None)
    if timing is not None:
        lines.append(
            text(
                language,
                "fit-details-time",
                tokens=f"{timing.tokens:,.0f}".replace(",", "\u202f"),
                flops=f"{timing.flops_per_token:.2e}",
                mfu=f"{timing.mfu * 100:.0f}",
            )
        )
    lines.append(text(language, "fit-details-method"))
    return "\n".join(lines)
