"""A FitAnswer as Telegram-ready HTML (or plain text for the CLI), in ru or en.

`render_short` is the first answer, sized for a phone (under 900 characters): the verdict,
the peak, the best three live options. `render_details` is what «Подробнее» opens: the fit
table, the levers, the warnings, prices, hourly against monthly, checkpoint size and the
breakdown. `render` is both, for the CLI.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence

from estimator import speed_accuracy
from estimator.accuracy import ALL, AccuracyLine, band, band_line, for_stack, overall
from estimator.answer import FitAnswer
from estimator.fit import (
    MAX_GPUS_PER_SERVER,
    RENTED_CARDS,
    TIGHT_HEADROOM,
    GpuFit,
    Verdict,
    trains_in_bf16,
)
from estimator.hardware import runs_unsloth
from estimator.i18n import Html, translator
from estimator.inference import inference_memory
from estimator.lever_text import (
    READ_KEYS,
    TITLE_KEYS,
    lever_details,
    lever_lines,
    offload_details,
    offload_line,
    ram_short_line,
    read_line,
)
from estimator.measurement import Measurement
from estimator.models import LLAMA_LADDER
from estimator.number_text import grouped, money, plain
from estimator.parsing.build import ASK_EPOCHS_NOTE, LIMITS, covering_ctx
from estimator.parsing.market import Constraints as StatedConstraints
from estimator.parsing.slots import FOREIGN_MONEY_NOTE
from estimator.parsing.text import (
    ALIAS_NOTE,
    APPLE_NOTE,
    INFERENCE_NOTE,
    INT8_BASE_NOTE,
    PREFERENCE_NOTE,
    PRETRAIN_NOTE,
)
from estimator.plan_text import (
    break_even_line,
    budget_line,
    duration,
    gib,
    no_hourly_line,
    plan_line,
    size_text,
    time_span,
    unmet_line,
    usage_line,
)
from estimator.planner import Plan, shown_plans
from estimator.query import METHOD_NAMES, Method, Sharding, Stack
from estimator.solve_text import head_lines, needs_gpu, needs_gpu_text
from estimator.stacks import profile
from estimator.timing import TrainingTime

MESSAGE_LIMIT = 4096
SHORT_LIMIT = 900
BEST = 3


def to_plain(message: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", message))


def _too_long(message: str) -> bool:
    """Whether a short answer reaches SHORT_LIMIT as Telegram counts (UTF-16 code units: an
    emoji is two)."""
    return len(to_plain(message).encode("utf-16-le")) // 2 >= SHORT_LIMIT


def model_label(answer: FitAnswer) -> str:
    """The model as the user asked: "7B" for a bare size, the catalog id otherwise."""
    if answer.asked_size is not None:
        return f"{plain(answer.asked_size)}B"
    return answer.model.id


# --- the short answer --------------------------------------------------------------------------


def render_short(answer: FitAnswer, language: str) -> str:
    if needs_gpu(answer):  # a reverse question with no card: it says which card, no more
        return needs_gpu_text(answer, language)
    asked = sum(comparison.asked for comparison in answer.levers)
    defaults = True
    message = _short(answer, language, defaults=defaults, asked=asked)
    # Past a phone screen, the unstated defaults that decide the verdict go to «Подробнее»
    # first, then the last levers asked about (the details compare every one).
    while _too_long(message):
        if defaults:
            defaults = False
        elif asked > 1:
            asked -= 1
        else:
            break
        message = _short(answer, language, defaults=defaults, asked=asked)
    return message


def _short(answer: FitAnswer, language: str, *, defaults: bool, asked: int) -> str:
    # What was assumed about the method comes first: a verdict never rests on it unsaid.
    i18n = translator(language)
    # A reverse answer (ctx=max) or the cheapest card asked for heads the answer.
    lines = [
        *_inference_line(answer, language),
        *head_lines(answer, language),
        *_method_line(answer, language),
        *_preference_line(answer, language),
        *_pretrain_line(answer, language),
        _title(answer, language),
    ]
    # Every setting read beyond the title, so a misread word shows before the verdict.
    read = read_line(answer, language)
    if read is not None:
        lines.append(read)
    lines += _unread_line(answer, language)
    lines += _steps_line(answer, language)
    if INT8_BASE_NOTE in answer.notes:
        lines.append(translator(language)("fit-int8-base"))
    if APPLE_NOTE in answer.notes:
        lines.append(translator(language)("fit-apple"))
    for alias in _noted(answer, ALIAS_NOTE):
        lines.append(translator(language)("fit-alias", alias=alias, model=answer.model.id))
    lines += _time_budget_line(answer, language)
    lines += _constraints_line(answer, language)
    lines += _ctx_lines(answer, language)
    if answer.model_from_size:
        lines.append(_from_size(answer, language))
    lines.append(_verdict(answer, language))
    lines += _capacity_line(answer, language)
    # Every card the question compared gets its own verdict, not just the first one named.
    lines += [_target_line(answer, row, language) for row in answer.compared]
    # A card's own limits belong next to its verdict, not only under «Подробнее».
    for row in (answer.target, *answer.compared):
        if row is not None and not trains_in_bf16(row.gpu):
            lines.append(i18n("fit-card-no-bf16", gpu=row.gpu.id))
    also = answer.also
    if also is not None and also.verdict is Verdict.TIGHT:
        # Its range reaches past what the card has free: no headroom to quote.
        high = gib(also.high_gib)
        lines.append(
            i18n("fit-also-tight", gpu=also.gpu.id, high=high, usable=gib(also.usable_gib))
        )
    elif also is not None:
        headroom = gib(also.headroom_gib)
        lines.append(
            i18n("fit-also", gpu=also.gpu.id, headroom=headroom, usable=gib(also.usable_gib))
        )
    lines.append(_peak(answer, language))
    offload = offload_line(answer, language)
    if offload is not None:
        lines.append(offload)
    # A question is not an instruction: each lever asked about, and each unstated default
    # that decides the verdict, sized both ways.
    lines += lever_lines(answer, language, defaults=defaults, asked=asked)
    other = _stack_that_fits(answer)
    if other is not None:
        stack, peak = other
        lines.append(
            i18n(
                "fit-stack-fits",
                stack=profile(stack).label,
                peak=gib(peak),
                code=stack.value,
            )
        )
    if answer.budget is not None:
        lines.append(_budget(answer, language))
    if answer.measured is not None:
        lines.append(_measured(answer.measured, language))
    parts = ["\n".join(lines), _best(answer, language)]
    if answer.cautions:
        parts.append(i18n("fit-warnings-count", count=len(answer.cautions)))
    elif answer.advice:
        parts.append(i18n("fit-more-advice"))
    message = "\n\n".join(part for part in parts if part)
    if _too_long(message):
        message = "\n\n".join(part for part in parts[:2] if part)
    return message


def _title(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    query = answer.query
    gpus = (
        i18n("fit-gpus-suffix", count=str(query.gpus), shard=query.shard.value)
        if query.gpus > 1
        else ""
    )
    return i18n(
        "fit-title",
        model=model_label(answer),
        method=METHOD_NAMES[query.method],
        ctx=str(query.ctx),
        bs=str(query.micro_batch),
        gpus=Html(html.escape(gpus, quote=False)),
    )


def _method_line(answer: FitAnswer, language: str) -> list[str]:
    """«Метод не указан — считаю QLoRA.» / «Без QLoRA — считаю LoRA.»; nothing when named."""
    i18n = translator(language)
    if not any(a.key == "method" for a in answer.assumptions):
        return []
    method = METHOD_NAMES[answer.query.method]
    ruled = _noted(answer, "negated")
    if ruled:
        names = ", ".join(METHOD_NAMES[Method(m)] for m in ruled)
        return [i18n("fit-method-ruled-out", ruled=names, method=method)]
    return [i18n("fit-method-assumed", method=method)]


def _ctx_lines(answer: FitAnswer, language: str) -> list[str]:
    """ctx raised to hold the examples, or examples that a given ctx will cut."""
    i18n = translator(language)
    ctx = answer.query.ctx
    lines = []
    for note in answer.notes:
        code, _, value = note.partition(":")
        if code == "ctx_from_tokens" and value.isdigit():
            lines.append(i18n("fit-ctx-from-tokens", tokens=value, ctx=str(ctx)))
    cut = [int(v) for v in _noted(answer, "tokens_clamped", "longest_cut") if v.isdigit()]
    if cut:
        longest = max(cut)
        covering = str(covering_ctx(longest))
        lines.append(i18n("fit-ctx-cut", tokens=str(longest), ctx=str(ctx), covering=covering))
    return lines


def _capacity_line(answer: FitAnswer, language: str) -> list[str]:
    """«хватит ли 24 гб?»: the verdict on a card sold with that memory, by the least such
    cards give, on the range's high end like every card's."""
    capacity = answer.capacity
    if capacity is None:
        return []
    judged = capacity.judged
    args = {
        "gb": plain(capacity.gb),
        "usable": gib(capacity.usable_gib),
        "low": gib(judged.band.low),
        "high": gib(judged.band.high),
        "headroom": gib(capacity.usable_gib - judged.band.high),
    }
    key = {Verdict.FITS: "fits", Verdict.TIGHT: "tight", Verdict.NO: "no"}[judged.verdict]
    i18n = translator(language)
    count = answer.query.gpus
    if count == 1:
        return [i18n(f"fit-capacity-{key}", **args)]
    # «4 карты по 24 гб»: the verdict is each card's, under the run's sharding.
    line = i18n(f"fit-capacity-set-{key}", count=str(count), shard=answer.query.shard.value, **args)
    sharded = capacity.sharded
    if sharded is not None and sharded.verdict is not Verdict.NO:
        line += i18n("fit-capacity-set-fsdp", high=gib(sharded.band.high))
    return [line]


def _time_budget_line(answer: FitAnswer, language: str) -> list[str]:
    """«успею за 5 часов?»: on which cards that hold the run its hours stay within the time —
    by the high end of their range (what the time model's error allows), the safe side."""
    budget = answer.time_budget_hours
    if budget is None:
        return []
    i18n = translator(language)
    # As said: «5 ч», not the 5.0 a computed duration would print.
    limit = i18n("fit-hours", hours=plain(budget)) if budget >= 1 else duration(language, budget)
    # The card asked about, when the run fits it; else the cards that hold it (its own
    # verdict says it does not).
    target = answer.target
    asked = (
        target is not None and target.verdict is not Verdict.NO and target.gpu.id in answer.times
    )
    rows = [target] if asked else _fitting_cards(answer)
    timed = [
        (row, answer.times[row.gpu.id])
        for row in rows
        if row is not None and row.gpu.id in answer.times
    ]
    if not timed:
        query = answer.query
        has_data = query.dataset_examples is not None or query.dataset_tokens is not None
        return [
            i18n("fit-time-budget-no-card" if has_data else "fit-time-budget-no-data", limit=limit)
        ]
    timed.sort(key=lambda item: item[1].band.high)
    if ASK_EPOCHS_NOTE in answer.notes:
        # «сколько эпох успею за 10 часов?»: each card's epochs within the limit, from the
        # ends of its time range (the slow end first: what the limit surely holds).
        epochs = answer.query.epochs
        counts = [
            i18n(
                "fit-time-budget-epochs-card",
                gpu=row.gpu.id,
                low=f"{budget * epochs / time.band.high:.1f}",
                high=f"{budget * epochs / time.band.low:.1f}",
            )
            for row, time in timed[:3]
        ]
        return [i18n("fit-time-budget-epochs", limit=limit, cards=", ".join(counts))]

    def named(item: tuple[GpuFit, TrainingTime]) -> str:
        row, time = item
        return i18n("fit-time-budget-card", gpu=row.gpu.id, time=time_span(language, time))

    within = [item for item in timed if item[1].band.high <= budget]
    if within:
        cards = ", ".join(named(item) for item in within[:3])
        return [i18n("fit-time-budget-yes", limit=limit, cards=cards)]
    if timed[0][1].band.low <= budget:
        return [i18n("fit-time-budget-tight", limit=limit, cards=named(timed[0]))]
    return [i18n("fit-time-budget-no", limit=limit, cards=named(timed[0]))]


def _steps_line(answer: FitAnswer, language: str) -> list[str]:
    """«60 шагов» with no dataset: the examples they stand for, so the hours can be checked."""
    for note in answer.notes:
        code, _, value = note.partition(":")
        steps, _, per_step = value.partition(":")
        if code == "dataset_from_steps" and steps.isdigit() and per_step.isdigit():
            examples = grouped(int(steps) * int(per_step), language)
            return [
                translator(language)(
                    "fit-steps",
                    steps=grouped(int(steps), language),
                    per=per_step,
                    examples=examples,
                )
            ]
    return []


def _inference_line(answer: FitAnswer, language: str) -> list[str]:
    """«сколько памяти надо для инференса 70b?»: what running the model holds, first, so the
    training sizing below is not taken for it."""
    if INFERENCE_NOTE not in answer.notes:
        return []
    held = inference_memory(answer.model, answer.query.ctx)
    return [
        translator(language)(
            "fit-inference",
            model=answer.model.id,
            bf16=gib(held.weights_bf16_gib),
            int8=gib(held.weights_int8_gib),
            int4=gib(held.weights_int4_gib),
            kv=gib(held.kv_cache_gib),
            ctx=grouped(held.ctx, language),
            context=gib(held.cuda_context_gib),
        )
    ]


def _noted(answer: FitAnswer, *codes: str) -> list[str]:
    """The values of the reader's notes of these kinds ("unread:24 гб" -> "24 гб"), in order."""
    return [value for code, _, value in (n.partition(":") for n in answer.notes) if code in codes]


def _pretrain_line(answer: FitAnswer, language: str) -> list[str]:
    """«обучить модель с нуля»: its memory is a full fine-tune's (every weight, its gradient
    and optimizer state); what differs is the data, so the time needs its tokens."""
    if PRETRAIN_NOTE not in answer.notes:
        return []
    return [translator(language)("fit-pretrain", method=METHOD_NAMES[answer.query.method])]


def _preference_line(answer: FitAnswer, language: str) -> list[str]:
    """«dpo на 8b, lora»: sized as supervised fine-tuning, and said what DPO adds. TRL's
    DPOTrainer pads each chosen and rejected completion together and runs them as one batch
    of twice the examples, then the reference's forward under no_grad; with PEFT the reference
    is the model with its adapter off, without PEFT a second copy of the model
    (trl/trainer/dpo_trainer.py @f2cd5771: `torch.cat(pad([chosen_ids, rejected_ids]))`,
    `self.ref_model = create_model_from_path(...)` unless PEFT or precomputed log-probs).
    The reference's forward then runs after the policy's, so its logits sit beside the
    policy's graph at the peak; the line says the batch and the copy, not that."""
    objective = next(iter(_noted(answer, PREFERENCE_NOTE)), None)
    if objective is None:
        return []
    i18n = translator(language)
    query = answer.query
    if objective == "kto":
        # TRL's KTOTrainer (trainer/kto_trainer.py `_compute_loss` @f2cd57710) runs each
        # example alone, desirable or not, at the batch asked: no pair concatenated.
        line = i18n("fit-preference-kto", bs=str(query.micro_batch))
    else:
        line = i18n("fit-preference", objective=objective.upper(), bs=str(2 * query.micro_batch))
    # ORPO and SimPO are reference-free; DPO and KTO without an adapter to turn off keep a copy
    # (KTOTrainer creates one from the model's path when no ref_model is given).
    if query.method is Method.FULL and objective in ("dpo", "kto"):
        # Loaded as the model is (16-bit), and prepared as it is: TRL's prepare_deepspeed and
        # prepare_fsdp shard it under ZeRO-3 and FSDP; ZeRO-1/2 and DDP keep it whole.
        shards = query.gpus if query.shard in (Sharding.ZERO3, Sharding.FSDP) else 1
        reference = answer.model.total_params * 2 / 2**30 / shards
        line += " " + i18n("fit-preference-reference", gib=gib(reference))
    return [line]


def _unread_line(answer: FitAnswer, language: str) -> list[str]:
    """Numbers the reader found no place for («хватит ли 24 гб…»): said, so that a person
    does not take the answer for one that counted them."""
    unread = [value for value in _noted(answer, "unread") if _sizing_number(value)]
    i18n = translator(language)
    lines = []
    foreign = _noted(answer, FOREIGN_MONEY_NOTE)
    if unread:
        quoted = ", ".join(i18n("fit-unread-item", words=words) for words in unread)
        lines.append(i18n("fit-unread", items=quoted))
    if foreign:
        quoted = ", ".join(i18n("fit-unread-item", words=words) for words in foreign)
        lines.append(i18n("fit-unread-currency", items=quoted))
    lines += _second_values(answer, language)
    # «бюджет 0 рублей», «0 эпох»: a value read for its setting but outside what it can be,
    # so dropped; said, with the range, instead of an answer that looks as if it counted it.
    for key in _noted(answer, "out_of_range"):
        if key in LIMITS:
            low, high = LIMITS[key]
            lines.append(
                i18n("fit-out-of-range", key=key, low=plain(low), high=grouped(high, language))
            )
    # «lora r=16 alpha=32»: settings read that change neither memory nor time, said so.
    no_effect = _noted(answer, "no_effect")
    if no_effect:
        lines.append(i18n("fit-no-effect", settings=", ".join(no_effect)))
    return lines


# A number worth saying it was not counted: with a unit or multiplier («24 гб», «10 тыс»,
# «$100», «50k»), or bare and large enough to be a length or a count («20000»); a small bare
# number («2 собаки», «3 года опыта»), a spelled-out one ("quick one"), a version («3.11») or a
# year («в 2024 году») is the person's life, not a setting.
_BARE_SMALL = re.compile(r"\d{1,2}|\d+[.,]\d+|(?:19|20)\d\d")


def _sizing_number(words: str) -> bool:
    if not any(ch.isdigit() for ch in words):
        return False
    return not _BARE_SMALL.fullmatch(words.strip())


# The /fit key a repeated slot is named by in the answer (its FitQuery field's, else these).
_SLOT_KEYS = {
    **dict((*TITLE_KEYS, *READ_KEYS)),
    "budget_rub": "budget",
    "time_budget_hours": "hours",
    "card_gb": "cardgb",
    "longest_tokens": "longest",
}


_FIELD_OF_KEY = {key: field for field, key in _SLOT_KEYS.items()}


def _second_values(answer: FitAnswer, language: str) -> list[str]:
    """A setting given twice («ctx 4096, контекст 8к»), a second model or method named: only
    the first is sized, and the answer says the second was not counted (it was silent)."""
    i18n = translator(language)
    compared = any(c.lever == "method" and c.asked for c in answer.levers)
    lines = []
    for code, _, value in (n.partition(":") for n in answer.notes):
        if code in ("repeated", "repeated_key"):
            # Free text keeps the first value; /fit, like a config file, the last.
            field = value if code == "repeated" else _FIELD_OF_KEY.get(value, value)
            key = _SLOT_KEYS.get(field, field)
            sized = getattr(answer.query, field, None)
            shown = getattr(sized, "value", sized)
            if isinstance(shown, float):
                shown = plain(shown)
            used = "" if shown is None else f" ({key}={shown})"
            which = "fit-repeated" if code == "repeated" else "fit-repeated-last"
            lines.append(i18n(which, key=key, first=used))
        elif code == "extra_size":
            lines.append(i18n("fit-extra-size", size=value))
        elif code == "extra_method" and not compared:
            lines.append(i18n("fit-extra-method", method=value))
    return lines


def _constraints_line(answer: FitAnswer, language: str) -> list[str]:
    """What the offers must be, as the user said it (the planner applies it)."""
    line = constraints_text(answer.constraints, language)
    return [] if line is None else [line]


def constraints_text(said: StatedConstraints, language: str) -> str | None:
    """«Условия: до 300 ₽/ч · в России»: what the user said of the offers; None for nothing.
    The sizing answer and the market answer say it the same way."""
    i18n = translator(language)
    items = []
    if said.min_vram_gib is not None:
        items.append(i18n("fit-constraint-vram", gb=plain(said.min_vram_gib)))
    if said.russia_only:
        items.append(i18n("fit-constraint-russia"))
    if said.max_rub_per_hour is not None:
        items.append(i18n("fit-constraint-rate", rate=plain(said.max_rub_per_hour)))
    if said.max_rub_per_gpu_hour is not None:
        items.append(i18n("fit-constraint-gpu-rate", rate=plain(said.max_rub_per_gpu_hour)))
    if said.max_rub_per_month is not None:
        month = money(said.max_rub_per_month, language)
        items.append(i18n("fit-constraint-month-rate", rate=month))
    if said.hours_per_month is not None:
        items.append(i18n("fit-constraint-hours", hours=plain(said.hours_per_month)))
    if not items:
        return None
    return i18n("fit-constraints", items=" · ".join(items))


def _from_size(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    model = answer.model
    size = model_label(answer)
    if model.id in LLAMA_LADDER:
        return i18n("fit-from-size", size=size, model=model.id)
    return i18n(
        "fit-from-size-synthetic",
        size=size,
        layers=model.layers,
        hidden=str(model.hidden),
        vocab=f"{model.vocab // 1000}k",
    )


def _verdict(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    if answer.target is not None:
        return _target_line(answer, answer.target, language)
    smallest = answer.smallest
    if smallest is not None:
        gpus = answer.query.gpus
        name = smallest.gpu.id if gpus == 1 else f"{gpus}× {smallest.gpu.id}"
        return i18n("fit-smallest", gpu=name, usable=gib(smallest.usable_gib))
    fewest = answer.fewest
    if fewest is not None and fewest.min_gpus is not None:
        return i18n(
            "fit-smallest-multi",
            count=str(fewest.min_gpus),
            gpu=fewest.gpu.id,
            usable=gib(fewest.usable_gib),
        )
    return i18n("fit-none")


def _target_line(answer: FitAnswer, row: GpuFit, language: str) -> str:
    line = _target_verdict(answer, row, language)
    # «сколько часов на h100?»: the card asked about carries its own time, at the count asked
    # for, beside its verdict, not only when it happens to be among the best plans.
    timing = answer.times.get(row.gpu.id)
    at_run_count = row.gpus == answer.query.gpus  # the times are the run's, at its count
    if timing is None or row.verdict is Verdict.NO or row.min_gpus != row.gpus or not at_run_count:
        return line
    return line + translator(language)("fit-row-time", time=time_span(language, timing))


def _target_verdict(answer: FitAnswer, row: GpuFit, language: str) -> str:
    i18n = translator(language)
    query = answer.query
    common = {"gpu": row.gpu.id, "usable": gib(row.usable_gib)}
    span = {"low": gib(row.low_gib), "high": gib(row.high_gib)}
    # The count that holds the run, said as tight where it holds it only without headroom.
    tight = "-tight" if row.min_gpus_tight else ""
    if row.gpus > 1:
        # The user asked for several cards: the verdict is about that set, per card.
        sized = {**common, "count": str(row.gpus), "shard": query.shard.value}
        if row.verdict is Verdict.FITS:
            headroom = gib(row.headroom_gib)
            return i18n("fit-target-set-fits", headroom=headroom, high=span["high"], **sized)
        if row.verdict is Verdict.TIGHT:
            return i18n("fit-target-set-tight", **span, **sized)
        if query.shard is Sharding.DDP and row.min_gpus:
            # Under DDP every card holds the whole model: more of them never fit it. The
            # count that does (estimator.fit.fewest_gpus) is with FSDP; say so, or following
            # the advice with the same DDP would fail again.
            missing = gib(row.missing_gib)
            if row.min_gpus <= row.gpus:
                return i18n("fit-target-set-ddp-fsdp", missing=missing, **sized)
            need = str(row.min_gpus)
            key = "fit-target-set-ddp-more" + tight
            return i18n(key, missing=missing, need=need, **sized)
        if row.min_gpus and row.min_gpus > row.gpus:
            return i18n("fit-target-set-more" + tight, need=str(row.min_gpus), **sized)
        return i18n("fit-target-set-no", missing=gib(row.missing_gib), **sized)
    if row.verdict is Verdict.FITS:
        headroom = gib(row.headroom_gib)
        return i18n("fit-target-fits", headroom=headroom, high=span["high"], **common)
    if row.verdict is Verdict.TIGHT:
        return i18n("fit-target-tight", **span, **common)
    if row.min_gpus and row.min_gpus > 1:
        return i18n("fit-target-no-multi" + tight, count=str(row.min_gpus), **common)
    if row is answer.target and answer.across_servers is not None:
        # «How many H100s for a 70B full fine-tune?»: no server of 8 holds it; so many do.
        count = answer.across_servers
        servers = str(count // MAX_GPUS_PER_SERVER)
        return i18n("fit-target-no-servers", count=str(count), servers=servers, **common)
    return i18n("fit-target-no", missing=gib(row.missing_gib), **common)


def _peak(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    peak = gib(answer.memory.peak)
    span = {"low": gib(answer.band.low), "high": gib(answer.band.high)}
    # On one card the figure is the run's whole peak: when the answer then says that no one
    # card holds it, "на GPU" would read as the need of each card of the set it suggests.
    per = "single" if answer.query.gpus == 1 else "each"
    stack = answer.query.stack
    if answer.stack_peaks:
        others = {s: p for s, p in answer.stack_peaks.items() if s is not stack}
        low, high = min(others.values()), max(others.values())
        spread = gib(low) if f"{low:.1f}" == f"{high:.1f}" else f"{gib(low)}–{gib(high)}"
        return i18n(
            "fit-peak-stacks",
            peak=peak,
            stack=profile(stack).label,
            range=spread,
            others=", ".join(profile(s).label for s in others),
            **span,
        )
    if stack is not Stack.HF:
        return i18n("fit-peak-stack", peak=peak, stack=profile(stack).label, per=per, **span)
    return i18n("fit-peak", peak=peak, per=per, **span)


def _stack_that_fits(answer: FitAnswer) -> tuple[Stack, float] | None:
    """With no stack named and the asked card too small, the common stack that would fit."""
    target = answer.target
    if target is None or target.verdict is not Verdict.NO or not answer.stack_peaks:
        return None
    room = target.usable_gib * (1 - TIGHT_HEADROOM)  # the margin of a "fits" verdict
    fitting = [
        (s, p)
        for s, p in answer.stack_peaks.items()
        if band(p, s).high <= room and (s is not Stack.UNSLOTH or runs_unsloth(target.gpu))
    ]
    return min(fitting, key=lambda item: item[1], default=None)


def _budget(answer: FitAnswer, language: str) -> str:
    assert answer.budget is not None
    return budget_line(answer.budget, language)


def _best(answer: FitAnswer, language: str) -> str:
    """The best live plans (with an hourly one among them whenever one exists), else the
    cards that hold the run and why there is no price."""
    i18n = translator(language)
    if answer.plans:
        target = answer.target.gpu if answer.target is not None else None
        shown = shown_plans(answer.plans, BEST, target)
        lines = [i18n("fit-best-title")]
        lines += [plan_line(n, plan, language) for n, plan in enumerate(shown, start=1)]
        missing = no_hourly_line(answer.plans, language)
        if missing is not None:
            lines.append(missing)
        if all(plan.hours is None for plan in shown):
            lines.append(i18n("fit-time-hint"))
        return "\n".join(lines)
    note = _no_plan_note(answer, language)
    cards = _fitting_cards(answer)
    if not cards:
        return note
    lines = [i18n("fit-best-cards-title")]
    for n, row in enumerate(cards[:BEST], start=1):
        timing = answer.times.get(row.gpu.id)
        time_text = i18n("fit-row-time", time=time_span(language, timing)) if timing else ""
        card = row.gpu.id if (row.min_gpus or 1) == 1 else f"{row.min_gpus}× {row.gpu.id}"
        shown_time = Html(html.escape(time_text, quote=False))
        if row.verdict is Verdict.TIGHT:
            # The range reaches past what is left free: no headroom to quote, only the range.
            line = i18n(
                "fit-best-card-tight",
                n=str(n),
                gpu=card,
                high=gib(row.high_gib),
                usable=gib(row.usable_gib),
                time=shown_time,
            )
        else:
            line = i18n(
                "fit-best-card", n=str(n), gpu=card, headroom=gib(row.headroom_gib), time=shown_time
            )
        lines.append(line)
    return "\n".join([*lines, note])


def _no_plan_note(answer: FitAnswer, language: str) -> str:
    """Why no live offer is a plan: a stated constraint, the servers' RAM for the run's
    offload, or nothing in stock that holds it."""
    if answer.unmet:
        return unmet_line(answer.unmet, language)
    ram = ram_short_line(answer, language)
    if ram is not None:
        return ram
    return translator(language)("fit-prices-none-fit" if answer.prices_known else "fit-prices-none")


def _fitting_cards(answer: FitAnswer) -> list[GpuFit]:
    """Table cards that hold the run (on the user's card count), ordered as the smallest
    card is chosen: room to spare before a tight fit, then by memory - so the first card
    listed is the «smallest card» the verdict names."""
    rows = [
        row
        for row in _shown_rows(answer)
        if row.verdict is not Verdict.NO and trains_in_bf16(row.gpu)
    ]
    ordered = sorted(rows, key=lambda row: (row.verdict is Verdict.TIGHT, row.usable_gib))
    first = answer.smallest
    if first is None:
        return ordered
    return [first, *(row for row in ordered if row != first)]


# --- details ---------------------------------------------------------------------------------


def render_details(answer: FitAnswer, language: str) -> str:
    parts = [_title(answer, language), _length(answer, language), _table(answer, language)]
    levers = lever_details(answer, language)
    if levers is not None:
        parts.append(levers)
    offload = offload_details(answer, language)
    if offload is not None:
        parts.append(offload)
    if answer.advice:
        parts.append(_advice(answer, language))
    if answer.cautions:
        parts.append(_cautions(answer, language))
    parts.append(_prices(answer, language))
    if answer.break_even is not None:
        parts.append(_break_even(answer, language))
    if answer.checkpoint is not None:
        parts.append(_checkpoint(answer, language))
    if answer.assumptions:
        parts.append(_assumptions(answer, language))
    parts.append(_details(answer, language))
    message = "\n\n".join(parts)
    while len(message) > MESSAGE_LIMIT and len(parts) > 2:
        parts.pop(-2)  # the assumptions and extras go before the table and the breakdown
        message = "\n\n".join(parts)
    return message


def render(answer: FitAnswer, language: str) -> str:
    """The whole answer (the CLI prints this)."""
    if needs_gpu(answer):
        return needs_gpu_text(answer, language)
    return render_short(answer, language) + "\n\n" + render_details(answer, language)


def _shown_rows(answer: FitAnswer) -> list[GpuFit]:
    wanted = list(RENTED_CARDS)  # the cards people rent, and the target
    if answer.target is not None and answer.target.gpu.id not in wanted:
        wanted.insert(0, answer.target.gpu.id)
    by_id = {row.gpu.id: row for row in answer.table}
    return [by_id[gpu_id] for gpu_id in wanted if gpu_id in by_id]


def _table(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    lines = [i18n("fit-table-title")]
    for row in _shown_rows(answer):
        timing = answer.times.get(row.gpu.id)
        time_text = i18n("fit-row-time", time=time_span(language, timing)) if timing else ""
        mark = "" if trains_in_bf16(row.gpu) else i18n("fit-row-fp16")
        common = {
            "gpu": row.gpu.id,
            "time": Html(html.escape(time_text, quote=False)),
            "mark": Html(html.escape(mark, quote=False)),
        }
        if row.verdict is Verdict.FITS:
            line = i18n("fit-row-fits", headroom=gib(row.headroom_gib), **common)
        elif row.verdict is Verdict.TIGHT:
            usable = gib(row.usable_gib)
            line = i18n("fit-row-tight", high=gib(row.high_gib), usable=usable, **common)
        elif row.min_gpus and row.min_gpus > 1:
            line = i18n("fit-row-no-multi", count=str(row.min_gpus), **common)
        else:
            common.pop("time")
            line = i18n("fit-row-no", missing=gib(row.missing_gib), **common)
        lines.append(line)
    return "\n".join(lines)


def _advice(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    lines = [i18n("fit-advice-title")]
    for item in answer.advice[:5]:
        lines.append(
            "• "
            + i18n(
                f"advice-{item.code}",
                saves=gib(item.saves_gib),
                value=item.value,
                method=METHOD_NAMES[answer.query.method],
            )
        )
    return "\n".join(lines)


def _cautions(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    lines = [i18n("fit-warnings-title")]
    lines += ["• " + i18n(f"caution-{c.code}", value=c.value) for c in answer.cautions]
    return "\n".join(lines)


def _prices(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    if answer.plans:
        lines = [i18n("fit-prices-title")]
        target = answer.target.gpu if answer.target is not None else None
        shown = shown_plans(answer.plans, 5, target)
        lines += [plan_line(n, plan, language) for n, plan in enumerate(shown, start=1)]
        return "\n".join(lines)
    return _no_plan_note(answer, language)


def _break_even(answer: FitAnswer, language: str) -> str:
    point = answer.break_even
    assert point is not None
    line = break_even_line(point, language)
    usage = usage_line(point, language, per_month=answer.hours_per_month is not None)
    return line if usage is None else f"{line} {usage}"


def _checkpoint(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    size = answer.checkpoint
    assert size is not None
    model = size_text(language, size.model_bytes)
    if size.adapter_bytes is not None:
        adapter = size_text(language, size.adapter_bytes)
        return i18n("fit-checkpoint-adapter", adapter=adapter, model=model)
    resume = size_text(language, size.resume_bytes or size.model_bytes)
    return i18n("fit-checkpoint-full", model=model, resume=resume)


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
    i18n = translator(language)
    items = [
        f"{COMMAND_KEYS.get(a.key, a.key)}={a.value}"
        for a in answer.assumptions
        if not (a.key == "model" and answer.model_from_size) and a.key != "dataset_tokens"
    ]
    items += _text_token_notes(answer, language)
    query = answer.query
    size = model_label(answer).lower()
    # The user's own run with its assumed values spelled out, never another one.
    example = f"{size} {query.method.value} ctx={query.ctx} bs={query.micro_batch}"
    return i18n("fit-assumed", items=", ".join(items), example=example)


def _text_token_notes(answer: FitAnswer, language: str) -> list[str]:
    i18n = translator(language)
    notes = []
    tokens = answer.query.dataset_tokens
    for note in answer.notes:
        if note.startswith("text_tokens:") and tokens:
            _, text_language, per_token = note.split(":")
            notes.append(
                i18n(
                    "fit-text-tokens",
                    tokens=grouped(tokens),
                    bytes=per_token,
                    lang=text_language,
                )
            )
    return notes


def _details(answer: FitAnswer, language: str) -> str:
    i18n = translator(language)
    memory, model, query = answer.memory, answer.model, answer.query
    breakdown = {key: gib(value) for key, value in memory.breakdown().items()}
    lines = [
        i18n("fit-details-breakdown", **breakdown),
        # The three quantities people measure, side by side: a published figure or the
        # user's own log can be compared with the one it is.
        i18n(
            "fit-details-figures",
            allocated=gib(memory.allocated),
            reserved=gib(memory.reserved),
            smi=gib(memory.peak),
        ),
        i18n(
            "fit-details-model",
            model=model.id,
            params=f"{model.params_b:.2f}",
            layers=model.layers,
            hidden=str(model.hidden),
            heads=str(model.heads),
            kv_heads=str(model.kv_heads),
            vocab=str(model.vocab),
        ),
        i18n(
            "fit-details-setup",
            precision=query.precision.value,
            optimizer=query.optimizer.value,
            gc=query.grad_checkpointing.value,
            rank=str(query.lora_rank),
            targets=query.targets.value,
            stack=query.stack.value,
            trainable=grouped(memory.trainable_params),
        ),
    ]
    # The card the answer is about (the one asked, else the smallest that holds the run),
    # named, never whichever card happened to come first in the table.
    card = answer.target or answer.smallest or answer.fewest
    timing = answer.times.get(card.gpu.id) if card is not None else None
    if card is not None and timing is not None:
        lines.append(
            i18n(
                "fit-details-time",
                gpu=card.gpu.id,
                tokens=grouped(timing.tokens),
                flops=f"{timing.flops_per_token:.2e}",
                tps=grouped(timing.tokens_per_second),
                mfu=f"{timing.mfu * 100:.0f}",
            )
        )
        lines += _time_lines(answer, timing, card.min_gpus or 1, language)
    lines.append(_accuracy(answer, language))
    return "\n".join(lines)


def _length(answer: FitAnswer, language: str) -> str:
    """Which length the peak is sized at: the longest batch, ctx being the cap of a sample."""
    query = answer.query
    typical = query.tokens_per_example
    shown = "none" if typical is None or typical >= query.ctx else str(typical)
    return translator(language)(
        "fit-details-length", bs=str(query.micro_batch), ctx=str(query.ctx), typical=shown
    )


def _accuracy(answer: FitAnswer, language: str) -> str:
    """What the estimate's accuracy is for this run's stack, as the bench measured it on
    repositories it had not seen (estimator/data/accuracy.csv): the stack's own figures when
    enough repositories measured it, else every stack's, saying so."""
    i18n = translator(language)
    stack = answer.query.stack
    line = band_line(stack)
    own = for_stack(stack)
    scope = "stack" if line.scope != ALL else "all"
    metric_lines = [
        found
        for metric in ("allocated", "reserved", "nvidia-smi")
        if (found := _metric_line(line, metric)) is not None
    ]
    metrics = ", ".join(
        i18n(
            "fit-details-metric",
            metric=found.metric,
            median=_up(found.median_abs),
            rows=found.rows,
        )
        if found.independent
        else i18n("fit-details-metric-few", metric=found.metric, repos=found.repositories)
        for found in metric_lines
    )
    everything = overall()
    return i18n(
        "fit-details-method",
        rows=everything.rows,
        repos=everything.repositories,
        scope=scope,
        stack=profile(stack).label,
        own="none" if own is None else own.repositories,
        median=_up(line.median_abs),
        within=str(math.floor(round(line.within_25 * 100, 6))),
        under=_up(line.under_15),
        direction="low" if line.median_signed < 0 else "high",
        bias=f"{abs(line.median_signed) * 100:.1f}",
        metrics=metrics,
    )


def _metric_line(line: AccuracyLine, metric: str) -> AccuracyLine | None:
    if line.scope == ALL:
        return overall(metric)
    return for_stack(Stack(line.scope), metric)


def _time_lines(answer: FitAnswer, timing: TrainingTime, gpus: int, language: str) -> list[str]:
    """Under «Время на …»: how the cards talk, the range of the hours, and what the time
    model claims of itself on repositories it was not fitted on (estimator.speed_accuracy)."""
    i18n = translator(language)
    lines = []
    if timing.link is not None:
        lines.append(i18n("fit-details-link", count=str(gpus), link=timing.link.link.value))
    query = answer.query
    claim = speed_accuracy.band_line(query.stack, query.method)
    everything = speed_accuracy.overall()
    lines.append(
        i18n(
            "fit-details-time-claim",
            span=time_span(language, timing),
            rows=everything.rows,
            repos=everything.repositories,
            scope=_claim_scope(claim),
            stack=profile(query.stack).label,
            method=METHOD_NAMES[query.method],
            median=_up(claim.median_abs),
            within=str(math.floor(round(claim.within_25 * 100, 6))),
            short=_up(claim.under_15),
        )
    )
    return lines


def _measured(measured: Measurement, language: str) -> str:
    """The person's own measurement, which every time in the answer is scaled by."""
    return translator(language)(
        "fit-measured",
        tps=grouped(measured.tokens_per_second),
        count=str(measured.gpus),
        gpu=measured.gpu_id,
        ratio=f"{measured.factor:.2f}",
    )


def _claim_scope(line: AccuracyLine) -> str:
    if line.scope != ALL:
        return "stack"
    return "method" if line.metric != ALL else "all"


def _up(fraction: float) -> str:
    """An error share as a whole percent, rounded up: the answer never promises more."""
    return str(math.ceil(round(fraction * 100, 6)))


# --- /fit compare ------------------------------------------------------------------------------


def render_compare(answers: Sequence[FitAnswer], language: str) -> str:
    """One line per method: peak, the smallest card that holds it, its cheapest live rate and
    (with a dataset) the time."""
    i18n = translator(language)
    first = answers[0]
    lines = [
        i18n(
            "fit-compare-title",
            model=model_label(first),
            ctx=str(first.query.ctx),
            bs=str(first.query.micro_batch),
        )
    ]
    for answer in answers:
        lines.append(_compare_row(answer, language))
    size = model_label(first).lower()
    lines.append(
        i18n(
            "fit-compare-footer",
            rank=str(first.query.lora_rank),
            example=f"{size} qlora ctx={first.query.ctx}",
        )
    )
    return "\n".join(lines)


def _compare_row(answer: FitAnswer, language: str) -> str:
    """Peak, then the cheapest live plan (its cards, rate and time on its own count); with
    no live plan, the smallest rented card (or set of cards) that holds it."""
    i18n = translator(language)
    method = METHOD_NAMES[answer.query.method]
    peak = gib(answer.memory.peak)
    plan = _compare_plan(answer)
    if plan is not None:
        gpu = plan.gpu.id if plan.gpus == 1 else f"{plan.gpus}× {plan.gpu.id}"
        key = "fit-compare-price-month" if plan.monthly else "fit-compare-price"
        rate = plan.quote.rub_per_month if plan.monthly else plan.quote.rub_per_hour
        price = i18n(key, rate=money(rate or 0.0, i18n.language))
        hours = plan.hours
    else:
        row = answer.smallest or answer.fewest
        if row is None or row.min_gpus is None:
            return i18n("fit-compare-row-none", method=method, peak=peak)
        gpu = row.gpu.id if row.min_gpus == 1 else f"{row.min_gpus}× {row.gpu.id}"
        price = ""
        timing = answer.times.get(row.gpu.id)
        hours = timing.hours if timing is not None else None
    time_text = "" if hours is None else i18n("fit-compare-time", time=duration(language, hours))
    return i18n(
        "fit-compare-row",
        method=method,
        peak=peak,
        gpu=gpu,
        price=Html(html.escape(price, quote=False)),
        time=Html(html.escape(time_text, quote=False)),
    )


def _compare_plan(answer: FitAnswer) -> Plan | None:
    """The cheapest live hourly plan, else the cheapest plan at all."""
    hourly = [plan for plan in answer.plans if not plan.monthly]
    return next(iter(hourly or answer.plans), None)
