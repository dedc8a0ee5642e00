"""A notify-me question in words («сообщи, когда 8×H100 будет дешевле 600 ₽», "notify me
when my run costs under 3000 rub") read as the watch it asks for: the /watch words of a card
price watch, or the budget of a watch on the whole run's cost."""

from __future__ import annotations

import re
from dataclasses import replace

from estimator import gpus
from estimator.fit_words import command_for, understand
from estimator.number_text import plain
from estimator.parse import QueryError
from estimator.parsing.patterns import amount_value
from monitor.providers import PROVIDERS
from monitor.watch_words import WATCH_KEY_OF, Parts, gpu_in_words, parse_watch, tidy

# «сообщи, когда…», "notify me when…": a question asking to be told later, i.e. a watch.
_NOTIFY = re.compile(
    r"сообщ|уведом|оповест|напомн|дай(?:те)?\s+знать|напиши(?:те)?,?\s+(?:когда|если)|"
    r"скажи(?:те)?,?\s+(?:когда|если)|notify|let\s+me\s+know|tell\s+me\s+when|alert\s+me|ping\s+me|"
    r"message\s+me\s+when",
    re.IGNORECASE,
)
# Keys a question's own phrasing can produce (tidy spells «дешевле 600 ₽» as max=600).
_QUESTION_KEYS = ("max", "count")


# «мой запуск», "my run": the question is about the whole run's cost, not a card's price.
_RUN = re.compile(
    r"запуск|обучени|дообучени|прогон|трениров|файнтюн|fine-?tun|\bmy\s+run\b|\bthe\s+run\b|"
    r"\bthis\s+run\b|\btraining\b|\bmy\s+job\b",
    re.IGNORECASE,
)
_RUBLES = re.compile(
    r"(?<![\w.,])(\d[\d\s\u202f]*(?:[.,]\d+)?)\s*(к|k|тыс\.?)?\s*(?:₽|руб|rub|р\b)",
    re.IGNORECASE,
)
# A price per hour («₽/ч», «за GPU-час», "per GPU-hour", "an hour") is a cap on offers, never
# the cost of a whole run: "under 600 rub per GPU-hour for my fine-tune" is a card watch.
_PER_HOUR = re.compile(
    r"(?:/|\bper\b|\ban?\b|\bза\b|\bв\b)\s*(?:(?:gpu|гпу|карт[уы]?|server|сервер)[\s\-·.]*)?"
    r"(?:hour|hr|h|час|ч)(?!\w)|\b(?:gpu|гпу)[\s\-·]*(?:hour|час)",
    re.IGNORECASE,
)
# «за сервер», "per server-hour", "for the whole server": the cap is the whole server's.
_PER_SERVER = re.compile(
    r"(?:\bper\b|\bза\b|\bfor\b|\bна\b)\s*(?:the\s+)?(?:whole\s+|весь\s+)?(?:server|сервер)",
    re.IGNORECASE,
)


def run_budget_in_question(text: str) -> float | None:
    """The budget of «сообщи, когда мой запуск будет стоить меньше 5 000 ₽» (5000.0): a
    notify-me question about the whole run's cost, or None for any other text."""
    if _NOTIFY.search(text) is None or _RUN.search(text) is None:
        return None
    if _PER_HOUR.search(text) is not None:
        return None  # a price per hour caps the offers (watch_words_in_question)
    found = _RUBLES.search(text)
    if found is None:
        return None
    digits = re.sub(r"[\s\u202f]", "", found.group(1)).replace(",", ".")
    try:
        value = float(digits) * (1000 if found.group(2) else 1)
    except ValueError:
        return None
    return value if value >= 1 else None


def watch_words_in_question(text: str) -> str | None:
    """The /watch words a notify-me question states («сообщи, когда 8×H100 будет дешевле
    600 ₽» -> "count=8 H100 max=600"), or None when it is no such question or names neither
    a GPU nor a price. Only the GPU, its count, the price cap and providers are kept: the
    rest of a sentence ("when", "will be") is not a filter, and parse_watch would refuse it.
    The words always parse with parse_watch."""
    if _NOTIFY.search(text) is None or run_budget_in_question(text) is not None:
        return None  # a run's total cost is its own watch (run_budget_in_question)
    try:
        parts = _split_loosely(tidy(text))
        gpu, _rest = gpu_in_words(parts.words)
    except QueryError:
        return None
    run = _run_words(text) if gpu is None else None
    if gpu is None and run is None and "max" not in parts.keyed:
        return None
    count = parts.keyed.get("count") or _count_before_card(text)
    words = [f"count={count}"] if count else []
    if run is not None:
        words.append(run)  # «что-то для 70b qlora»: offers that hold the run
    if gpu is not None:
        words.append(gpu.gpu or gpu.family or "")
        if gpu.min_vram_gb is not None:
            words.append(f"vram={plain(gpu.min_vram_gb)}")
    if "max" in parts.keyed:
        words.append(f"max={_per_gpu(text, parts.keyed['max'], count)}")
    words += [f"provider={provider}" for provider in sorted(parts.providers)]
    spec = " ".join(words)
    try:
        parse_watch(spec)
    except QueryError:
        return None
    return spec


def _run_words(text: str) -> str | None:
    """«сообщи, когда появится что-то для 70b qlora»: the run a watch holds offers to, as its
    /fit words, or None when the question names no model."""
    try:
        parsed = understand(text)
    except QueryError:
        return None
    if parsed is None or parsed.model is None:
        return None
    # Only what says the run: a cap or a budget in the question is the watch's own.
    return command_for(replace(parsed, budget_rub=None, max_rub_per_hour=None))


# «сервер с 8 h100», "a box with 4 a100": a count right before the card's name.
_COUNT_BEFORE = re.compile(r"(?<![\w.,])(\d{1,2})\s*[x×х*]?\s*$", re.IGNORECASE)


def _count_before_card(text: str) -> str | None:
    """The card count said right before the first card named, when there is one."""
    mentions = gpus.find_in_text(text)
    if not mentions:
        return None
    found = _COUNT_BEFORE.search(text[: mentions[0][1]])
    return found.group(1) if found and int(found.group(1)) > 1 else None


def _per_gpu(text: str, cap: str, count: str | None) -> str:
    """The cap per GPU-hour, as /watch max= reads it: a cap said for the whole server («до
    4800 ₽ в час за сервер» on 8 cards) is divided by its cards; else it is per GPU already."""
    if _PER_SERVER.search(text) is None or count is None:
        return cap
    value, cards = amount_value(cap, thousand=1000), amount_value(count, thousand=1000)
    if value is None or not cards:
        return cap
    return f"{value / cards:.2f}".rstrip("0").rstrip(".")


def _split_loosely(text: str) -> Parts:
    """Like the grammar's own split (monitor.watch_words), but a sentence's own words and
    unknown keys are dropped, not refused."""
    parts = Parts()
    for token in text.split():
        token = token.strip(",.!?;:«»\"'()")
        if "=" in token:
            key, value = token.split("=", 1)
            if WATCH_KEY_OF.get(key.lower()) in _QUESTION_KEYS and value:
                parts.keyed[WATCH_KEY_OF[key.lower()]] = value
        elif (provider := PROVIDERS.find(token)) is not None:
            parts.providers.add(provider)
        elif token:
            parts.words.append(token)
    return parts
