"""A reverse answer in words (ru or en): the largest value that fits with headroom, and up to
where larger ones fit only tightly, or how far the next step misses.

    «📐 Максимальный контекст на 1× RTX 4090: 4 864 токена; до 6 144 — впритык»
    «📐 Максимальный micro-batch на 1× RTX 3090: 6; следующий шаг (7) не влезет на 0,4 ГиБ»

It heads the short answer (`estimator.sizing_text.render_short`), which goes on to size the
run at the solved value. A reverse question that names no card gets only `needs_gpu_text`;
one that names no model («какой максимальный контекст влезет на 3090?») is read by
`unnamed_reverse` and answered by `needs_model_text`, with its own run as the example.
"""

from __future__ import annotations

from estimator.answer import FitAnswer
from estimator.fit_words import command_for, command_with_method
from estimator.i18n import Html, translator
from estimator.number_text import grouped, money, plain
from estimator.parse import ParsedQuery, parse_question
from estimator.parsing.build import CHEAPEST_NOTE
from estimator.plan_text import gib, where
from estimator.query import METHOD_NAMES, Method
from estimator.solve import Lever, Outcome, Solution

# The size and method a reverse question that names no model is read with, so that the
# example its answer suggests keeps what it did say (the card, the lever, the context): the
# /fit wizard's 7–8B row (bot.views.sizing_reply.SIZES) and QLoRA, the default method
# (estimator.parsing.build), the run most people fit on one rented card.
EXAMPLE_SIZE = "8b"
EXAMPLE_METHOD = Method.QLORA


def gib_text(value: float, language: str) -> str:
    """One decimal, with a decimal comma in Russian: 1,4. Never 0.0 for a real miss."""
    shown = f"{max(value, 0.1):.1f}"
    return shown.replace(".", ",") if language == "ru" else shown


def shown(lever: Lever, value: int, language: str) -> str:
    """A lever's value as the answer writes it: a context grouped (12 288), a batch or a rank
    as the small number it is."""
    return grouped(value, language) if lever is Lever.CTX else str(value)


def _example(answer: FitAnswer, lever: Lever) -> str:
    size = f"{answer.asked_size:g}b" if answer.asked_size is not None else answer.model.id.lower()
    return f"{size} {answer.query.method.value} {lever.value}=max gpu=3090"


def solve_line(answer: FitAnswer, language: str) -> str | None:
    """The reverse answer's first line, or None for a plain question."""
    solution = answer.solved
    if solution is None:
        return None
    i18n = translator(language)
    lever = solution.lever.value
    if solution.outcome is Outcome.NO_GPU or solution.gpu is None:
        return needs_gpu_text(answer, language)
    value = solution.value or 0
    # A card asked about by its size is named by its size, not by the catalogue card that
    # stands for it (estimator.fit.least_card_of_size).
    card = solution.gpu.id
    if answer.capacity is not None and answer.target is None:
        card = i18n("solve-card-of-size", gb=plain(answer.capacity.gb))
    args: dict[str, str | int] = {
        "gpus": f"{solution.gpus}× {card}",
        "value": shown(solution.lever, value, language),
        "count": value,
    }
    if solution.outcome is Outcome.AT_CAP:
        return i18n(f"solve-cap-{lever}", **args)
    over = gib_text(solution.over_gib or 0.0, language)
    # Larger values that fit only «впритык» are named instead of the step that is over.
    tight = solution.tight_value
    args["state"] = "over" if tight is None else "tight"
    args["tight"] = "" if tight is None else shown(solution.lever, tight, language)
    if solution.outcome is Outcome.NONE_FITS:
        return i18n(f"solve-none-{lever}", over=over, **args)
    return i18n(
        f"solve-solved-{lever}",
        next=grouped(solution.next_value or 0, language),
        over=over,
        **args,
    )


def cheapest_line(answer: FitAnswer, language: str) -> str | None:
    """«на какой самой дешёвой карте это пойдёт?»: the planner's first plan (the cheapest
    live offer that holds the run, hourly before monthly); without one, the smallest card
    people rent that holds it. None when the question did not ask."""
    if CHEAPEST_NOTE not in answer.notes:
        return None
    i18n = translator(language)
    plan = next((p for p in answer.plans if not p.monthly), None) or next(iter(answer.plans), None)
    if plan is not None:
        return i18n(
            "solve-cheapest-plan",
            where=Html(where(plan, language)),
            rate=money(plan.server_rub_per_hour, i18n.language),
            headroom=gib(plan.headroom_gib),
        )
    row = answer.smallest
    if row is not None:
        return i18n("solve-cheapest-card", gpu=row.gpu.id, headroom=gib(row.headroom_gib))
    return i18n("solve-cheapest-none")


def head_lines(answer: FitAnswer, language: str) -> list[str]:
    """What heads the short answer: the reverse answer and the cheapest card, when asked."""
    return [
        line for line in (solve_line(answer, language), cheapest_line(answer, language)) if line
    ]


def needs_gpu_text(answer: FitAnswer, language: str) -> str:
    """A reverse question with no card: which card is the question about."""
    i18n = translator(language)
    assert answer.solved is not None
    lever = answer.solved.lever
    return i18n(
        "solve-needs-gpu",
        lever=i18n(f"solve-lever-{lever.value}"),
        example=_example(answer, lever),
    )


def needs_gpu(answer: FitAnswer) -> bool:
    """A reverse question that named no card: its whole answer is `needs_gpu_text`."""
    solution: Solution | None = answer.solved
    return solution is not None and solution.outcome is Outcome.NO_GPU


# What a question may say of the run it sizes (each assumed when left unsaid).
RUN_FACTS = (
    "method",
    "ctx",
    "micro_batch",
    "lora_rank",
    "targets",
    "precision",
    "stack",
    "grad_checkpointing",
)


def unnamed_reverse(text: str) -> ParsedQuery | None:
    """A reverse question that names no model: «какой максимальный контекст влезет на 3090?»,
    «на какой самой дешёвой карте пойдёт с ctx 8k?». Its run, read with EXAMPLE_SIZE standing
    in for the model; None for any other text (a sizing question, a price question)."""
    if not text or parse_question(text) is not None:
        return None
    parsed = parse_question(f"{text} {EXAMPLE_SIZE}")
    if parsed is None:
        return None
    if parsed.solve is not None:
        return parsed
    # «самая дешёвая карта с 48 гигами» asks about the market, not a run: a cheapest-card
    # question is about a run only when it says something of one (a method, a ctx, ...).
    if CHEAPEST_NOTE in parsed.notes and any(parsed.assumed(key) is None for key in RUN_FACTS):
        return parsed
    return None


def example_method(parsed: ParsedQuery) -> Method | None:
    """The method a model-less question's example names in place of an assumed one; None
    when the question named its own."""
    return EXAMPLE_METHOD if parsed.assumed("method") is not None else None


def model_example(parsed: ParsedQuery) -> str:
    """The /fit command of a model-less question's run, with a method named."""
    method = example_method(parsed)
    return command_for(parsed) if method is None else command_with_method(parsed, method)


def needs_model_text(parsed: ParsedQuery, language: str) -> str:
    """The answer to `unnamed_reverse`: which model and method, with the run as an example."""
    return translator(language)("solve-needs-model", example=model_example(parsed))


def example_label(parsed: ParsedQuery, language: str) -> str:
    """The button that sizes the example: «Посчитать: 8B QLoRA»."""
    method = example_method(parsed) or parsed.query.method
    return translator(language)(
        "solve-needs-model-button", model=EXAMPLE_SIZE.upper(), method=METHOD_NAMES[method]
    )
