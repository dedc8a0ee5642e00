"""The /watch grammar, both ways: words -> WatchFilter (`parse_watch`) and WatchFilter -> the
words that read back as it (`canonical`). In the style of /fit: positional words, then
key=value pairs.

    /watch h100                             family H100 (PCIe, SXM and NVL)
    /watch a100 80gb max=250                family A100, ≥ 80 GB per GPU, ≤ 250 ₽ per GPU-hour
    /watch 70b qlora ctx=8192 max=400       whatever the estimator says holds that run
    /watch 4090 provider=immers             one card at one provider
    /watch 8x h100 до 300₽ провайдер=селектел kinds=in_stock,price_drop cooldown=1h

Keys: max, count, vram (per GPU), total_vram, provider, location, kinds, cooldown, gpu, plus
the /fit keys (ctx, bs, rank, ...) for a fit subscription. Russian spellings are welcome.
Unlike /fit, nothing is silently skipped: a subscription built on a misread word would stay
quiet for weeks, so every word must be understood or the user hears which one was not.
Mistakes are estimator.parse.QueryError, the one user-input error: codes empty, unknown_gpu,
bad_value, unknown_key, no_filter, fit_error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from estimator import gpus
from estimator.answer import build_answer
from estimator.fit_words import understand
from estimator.followup import stated_command
from estimator.models import find_model_in_text
from estimator.number_text import plain
from estimator.parse import ParsedQuery, QueryError, parse_command
from estimator.parsing.patterns import amount_value, size_value
from estimator.parsing.words import COMMAND_KEYS, COMMAND_METHOD_WORDS
from estimator.planner import Sizing, job_hours
from monitor.cards import CardFilter, card_filter
from monitor.providers import PROVIDERS
from monitor.subscriptions import AlertKind, WatchFilter, default_kinds

_WATCH_KEYS: dict[str, tuple[str, ...]] = {
    "max": ("max", "max_price", "price", "макс", "максимум", "цена", "до"),
    # "gpus=8" is the offer's size here: the fit works out on its own how few cards suffice.
    "count": ("count", "cards", "n", "кол-во", "количество", "штук", *COMMAND_KEYS["gpus"]),
    "vram": ("vram", "vram_gb", "mem", "memory", "память", "видеопамять"),
    "total_vram": ("total_vram", "total", "total_mem", "всего", "суммарно"),
    "provider": ("provider", "providers", "провайдер", "провайдеры", "хостинг"),
    "location": ("location", "loc", "region", "dc", "локация", "регион", "город", "где"),
    "kinds": ("kinds", "kind", "events", "event", "notify", "события", "когда"),
    "cooldown": ("cooldown", "every", "кулдаун", "интервал", "не_чаще"),
    "gpu": COMMAND_KEYS["gpu"],
}
WATCH_KEY_OF = {alias: key for key, aliases in _WATCH_KEYS.items() for alias in aliases}
# Every other /fit key describes the training run of a fit subscription.
_FIT_KEY_OF = {
    alias: key
    for key, aliases in COMMAND_KEYS.items()
    for alias in aliases
    if alias not in WATCH_KEY_OF
}

_KIND_WORDS = {
    alias: kind
    for kind, aliases in {
        AlertKind.IN_STOCK: ("in_stock", "instock", "stock", "appeared", "наличие", "в_наличии"),
        AlertKind.PRICE_DROP: ("price_drop", "drop", "drops", "cheaper", "снижение", "дешевле"),
        AlertKind.BELOW_TARGET: ("below_target", "below", "target", "ниже_цели", "цель", "ниже"),
    }.items()
    for alias in aliases
}

# Words that carry no filter: "whatever fits 70b", «любая в наличии для 70b с лорой».
_FILLER = frozenset(
    {
        "any",
        "anything",
        "whatever",
        "fits",
        "fit",
        "that",
        "for",
        "with",
        "in",
        "stock",
        "on",
        "gpu",
        "gpus",
        "nvidia",  # "NVIDIA A100-SXM4-80GB": vendor words are not part of a GPU mention
        "tesla",
        "geforce",
        "любая",
        "любую",
        "любой",
        "что",
        "угодно",
        "влезет",
        "подойдет",
        "подойдёт",
        "для",
        "в",
        "наличии",
        "с",
        "со",
        "на",
        "гпу",
        "видеокарта",
        "видеокарту",
    }
)

_NUMBER = r"\d+(?:[.,]\d+)?"
_RUB = r"(?:₽|руб(?:\.|лей|ля|ль)?|р\.?|rub|rur)"
_PER_HOUR = r"(?:\s*/\s*(?:gpu\s*[·.*]?\s*)?(?:час|ч|hour|hr|h)\.?)?"
_PRICE_WORDS = r"(?:до|под|не\s+дороже|дешевле|макс|максимум|max|under|below|up\s+to|<=|≤|<)"
# "до 250₽/ч", "under 250", "≤250": a price cap written as words.
_PRICE_PHRASE = re.compile(
    rf"(?<!\w){_PRICE_WORDS}\s*({_NUMBER})\s*(?:{_RUB}{_PER_HOUR})?(?!\w)", re.IGNORECASE
)
# "250₽", "250 руб/ч": a bare price is a cap too.
_BARE_PRICE = re.compile(rf"(?<![\w=.,])({_NUMBER})\s*{_RUB}{_PER_HOUR}(?!\w)", re.IGNORECASE)
_UNIT_TAIL = re.compile(rf"\s*{_RUB}?{_PER_HOUR}\s*$", re.IGNORECASE)
# "8x h100", "2×4090", "8 х a100" (Cyrillic х), "h100 x8", "8 gpu", "4 карты".
_COUNT_BEFORE = re.compile(r"(?<![\w.])(\d{1,2})\s*[x×х*](?=\s*[^\W\d_]|\s*\d{3})", re.IGNORECASE)
_COUNT_AFTER = re.compile(r"(?<!\w)[x×х](\d{1,2})(?!\w)", re.IGNORECASE)
_COUNT_WORDS = re.compile(
    r"(?<![\w.])(\d{1,2})\s*(?:gpus?|гпу|cards?|карт[аыу]?)(?!\w)", re.IGNORECASE
)
_VRAM_WORD = re.compile(rf"({_NUMBER})\s*(?:gb|gib|гб|g)", re.IGNORECASE)
_COMMAND = re.compile(r"^\s*/watch(?:@\w+)?(?:\s+|$)", re.IGNORECASE)
_COOLDOWN = re.compile(rf"({_NUMBER})\s*([a-zа-яё]*)", re.IGNORECASE)
_SECONDS = {
    **dict.fromkeys(("s", "sec", "с", "сек"), 1),
    **dict.fromkeys(("m", "min", "мин", "м"), 60),
    **dict.fromkeys(("h", "hr", "hour", "hours", "ч", "час", "часа", "часов"), 3600),
    **dict.fromkeys(("d", "day", "days", "д", "дн", "день", "дня", "дней", "сут"), 86400),
}
WATCH_LIMITS: dict[str, tuple[float, float]] = {
    "max": (0.01, 1_000_000),
    "count": (1, 64),
    "vram": (1, 1024),
    "total_vram": (1, 65_536),
    "cooldown": (0, 30 * 86400),
}


@dataclass
class Parts:
    keyed: dict[str, str] = field(default_factory=dict)  # watch key -> raw value (last wins)
    fit_pairs: list[str] = field(default_factory=list)  # "ctx=8192" for the estimator
    words: list[str] = field(default_factory=list)  # positional, in order
    providers: set[str] = field(default_factory=set)


def tidy(text: str) -> str:
    """Spell price caps and GPU counts as keys, so the rest of the parser sees one form."""
    text = _COMMAND.sub("", text)
    text = re.sub(r"[\u00a0\u202f\t\r\n]", " ", text).strip()
    text = re.sub(r"\s*=\s*", "=", text)
    text = _PRICE_PHRASE.sub(lambda m: f" max={m.group(1)} ", text)
    text = _BARE_PRICE.sub(lambda m: f" max={m.group(1)} ", text)
    text = _COUNT_WORDS.sub(lambda m: f" count={m.group(1)} ", text)
    text = _COUNT_BEFORE.sub(lambda m: f" count={m.group(1)} ", text)
    return _COUNT_AFTER.sub(lambda m: f" count={m.group(1)} ", text)


def _split(text: str) -> Parts:
    parts = Parts()
    for token in text.split():
        if "=" in token and not token.startswith("="):
            raw_key, value = token.split("=", 1)
            key = raw_key.lower()
            if key in WATCH_KEY_OF:
                parts.keyed[WATCH_KEY_OF[key]] = value
            elif key in _FIT_KEY_OF:
                parts.fit_pairs.append(token)
            else:
                allowed = tuple(_WATCH_KEYS)
                raise QueryError(
                    "unknown_key", f"unknown key {raw_key!r}", value=raw_key, allowed=allowed
                )
        elif (provider := PROVIDERS.find(token)) is not None:
            parts.providers.add(provider)
        elif token.lower() not in _FILLER:
            parts.words.append(token)
    return parts


def _bad(key: str, value: str, reason: str, allowed: tuple[str, ...] = ()) -> QueryError:
    return QueryError(
        "bad_value", f"{key}={value!r}: {reason}", key=key, value=f"{key}={value}", allowed=allowed
    )


def _number(key: str, raw: str, *, integer: bool = False) -> float:
    text = _UNIT_TAIL.sub("", raw) if key == "max" else raw
    if key in ("vram", "total_vram"):
        unit = _VRAM_WORD.fullmatch(text)
        text = unit.group(1) if unit else text
    value = amount_value(text, thousand=1000)
    low, high = WATCH_LIMITS[key]
    if value is None:
        raise _bad(key, raw, "not a number")
    if integer and value != int(value):
        raise _bad(key, raw, "must be a whole number")
    if not low <= value <= high:
        raise _bad(key, raw, f"must be between {plain(low)} and {plain(high)}")
    return value


def _cooldown(raw: str) -> int:
    m = _COOLDOWN.fullmatch(raw.strip())
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in _SECONDS:
        raise _bad("cooldown", raw, "write it like 30m, 6h or 1d", ("30m", "6h", "1d"))
    seconds = round(min(float(m.group(1).replace(",", ".")) * _SECONDS[unit], 1e18))  # not inf
    low, high = WATCH_LIMITS["cooldown"]
    if not low <= seconds <= high:
        raise _bad("cooldown", raw, "must be at most 30 days")
    return seconds


def _providers(raw: str) -> set[str]:
    found = set()
    for name in filter(None, re.split(r"[,+|;]", raw.lower())):
        provider = PROVIDERS.find(name)
        if provider is None:
            raise _bad("provider", raw, "unknown provider", PROVIDERS.ids)
        found.add(provider)
    if not found:
        raise _bad("provider", raw, "name a provider", PROVIDERS.ids)
    return found


def _kinds(raw: str) -> frozenset[AlertKind]:
    kinds = set()
    for word in filter(None, re.split(r"[,+|;]", raw.lower())):
        if word not in _KIND_WORDS:
            raise _bad("kinds", raw, "unknown kind", tuple(k.value for k in AlertKind))
        kinds.add(_KIND_WORDS[word])
    if not kinds:
        raise _bad("kinds", raw, "name a kind", tuple(k.value for k in AlertKind))
    return frozenset(kinds)


def _resolve_gpu(name: str) -> CardFilter:
    """An exact card, else a family narrowed by the memory size the name states."""
    found = card_filter(name)
    if found is None:
        raise QueryError("unknown_gpu", f"unknown GPU {name!r}", value=name, key="gpu")
    return found


def gpu_in_words(words: list[str]) -> tuple[CardFilter | None, list[str]]:
    """The GPU the positional words name, and the words left over."""
    text = " ".join(words)
    model = find_model_in_text(text)
    mentions = [
        (label, start, end)
        for label, start, end in gpus.find_in_text(text)
        # A model's own name ("... A10 ...") is never read as a GPU.
        if model is None or end <= model[1] or start >= model[2]
    ]
    if not mentions:
        return None, words
    if len(mentions) > 1:
        names = ", ".join(text[start:end] for _, start, end in mentions)
        raise QueryError(
            "bad_value", f"one GPU per subscription, got {names}", key="gpu", value=names
        )
    _, start, end = mentions[0]
    return _resolve_gpu(gpus.singular(text[start:end])), (text[:start] + " " + text[end:]).split()


def _is_fit_word(word: str) -> bool:
    return size_value(word) is not None or word.lower() in COMMAND_METHOD_WORDS


def _fit(text: str) -> tuple[dict[str, int], ParsedQuery]:
    """GPU id -> fewest cards that hold the run, from the estimator's fit table, and the run
    as read."""
    try:
        # A watch's run is command words: pairs among them are read by the grammar alone, so
        # a word it cannot place is refused below, never read loosely as a question's.
        parsed = parse_command(text) if "=" in text else understand(text)
    except QueryError as error:
        raise QueryError("fit_error", error.reason, value=error.value or text) from None
    if parsed is None:
        raise QueryError("fit_error", f"no model or size in {text!r}", value=text)
    ignored = [note.split(":", 1)[1] for note in parsed.notes if note.startswith("ignored:")]
    if ignored:
        words = " ".join(ignored)
        raise QueryError("fit_error", f"could not read {words!r}", value=words)
    return _fit_need(parsed, text), parsed


def _fit_need(parsed: ParsedQuery, text: str) -> dict[str, int]:
    answer = build_answer(parsed, gpus.load_gpus())
    need = {row.gpu.id: row.min_gpus for row in answer.table if row.min_gpus is not None}
    if not need:
        raise QueryError("fit_error", "no GPU holds this run, even 8 in one server", value=text)
    return need


def watch_for_run(parsed: ParsedQuery, words: str, budget: float | None = None) -> WatchFilter:
    """A watch for offers that hold `parsed`, typed (a button's run, a model from the user's
    config.json), with `budget` the most the whole run may cost; `words` say it back to the
    user. QueryError when no card holds it, or a budget is set for a run with no dataset."""
    need = _fit_need(parsed, words)
    job = None if budget is None else _job_cost(parsed, budget, need, words)
    return WatchFilter(
        kinds=default_kinds(None, max_job_rub=budget),
        fit_query=words,
        fit_need=need,
        job_hours=None if job is None else job[0],
        max_job_rub=budget,
    )


def watch_for_run_cost(parsed: ParsedQuery, budget: float) -> WatchFilter:
    """The watch on a sized run's whole cost (the run-cost question's button), typed: offers
    that hold the run and price all of it within `budget`, on the card it was sized on when
    it named one. Its words (the run as /fit says it, and the budget) only say it back."""
    named = parsed.target_gpu or parsed.target_family
    card = _resolve_gpu(named) if named is not None else None
    run = replace(parsed, budget_rub=None, target_gpu=None, target_family=None)
    watch = watch_for_run(run, f"{stated_command(run)} budget={plain(budget)}", budget)
    if card is None:
        return watch
    return replace(watch, gpu=card.gpu, family=card.family, min_vram_gb=card.min_vram_gb)


def _job_cost(
    parsed: ParsedQuery, budget: float, need: Mapping[str, int], text: str
) -> tuple[dict[str, dict[int, float]], float]:
    """A fit watch with budget=: the run's hours by card and count, and the budget. A budget
    without a dataset has no run to price, so it is refused rather than ignored."""
    hours = job_hours(Sizing(parsed.query, parsed.model), need)
    if not hours:
        raise QueryError(
            "fit_error", "a budget for the run needs its dataset (dataset=20k)", value=text
        )
    return hours, budget


def parse_watch(text: str, *, narrow: bool = True) -> WatchFilter:
    """Read a /watch filter (with or without the "/watch" itself). Raises QueryError only.

    `narrow=False` accepts a filter that names only providers, a location or a count: too
    wide to alert on, fine for narrowing a price list (/prices provider=selectel).
    """
    parts = _split(tidy(text))
    if not (parts.keyed or parts.fit_pairs or parts.words or parts.providers):
        raise QueryError(
            "empty", "say what to watch: a GPU, a model to train, or a price", value=""
        )
    gpu, rest = gpu_in_words(parts.words)
    if "gpu" in parts.keyed:
        named = _resolve_gpu(parts.keyed["gpu"])
        if gpu is not None and gpu != named:
            raise QueryError(
                "bad_value", "two different GPUs given", key="gpu", value=parts.keyed["gpu"]
            )
        gpu = named
    # A bare "80gb" is a memory floor ("anything with 80 GB").
    vram_words = [w for w in rest if _VRAM_WORD.fullmatch(w)]
    rest = [w for w in rest if not _VRAM_WORD.fullmatch(w)]

    fit_query: str | None = None
    fit_need: dict[str, int] | None = None
    job: tuple[dict[str, dict[int, float]], float] | None = None
    if parts.fit_pairs or find_model_in_text(" ".join(rest)) or any(map(_is_fit_word, rest)):
        fit_query = " ".join([*rest, *parts.fit_pairs])
        fit_need, run = _fit(fit_query)
        if run.budget_rub is not None:
            job = _job_cost(run, run.budget_rub, fit_need, fit_query)
    elif rest:
        words = " ".join(rest)
        raise QueryError("unknown_gpu", f"not a GPU or a model: {words!r}", value=words, key="gpu")

    keyed = parts.keyed
    max_price = _number("max", keyed["max"]) if "max" in keyed else None
    vram = _number("vram", keyed["vram"]) if "vram" in keyed else None
    for word in vram_words:
        vram = max(vram or 0.0, _number("vram", word))
    if gpu is not None and gpu.min_vram_gb is not None:
        vram = max(vram or 0.0, gpu.min_vram_gb)
    budget = None if job is None else job[1]
    kinds = (
        _kinds(keyed["kinds"]) if "kinds" in keyed else default_kinds(max_price, max_job_rub=budget)
    )
    if AlertKind.BELOW_TARGET in kinds and max_price is None and budget is None:
        raise _bad("kinds", keyed["kinds"], "below_target needs max=")
    location = keyed.get("location", "").replace("_", " ").strip() or None
    if "location" in keyed and location is None:
        raise _bad("location", "", "name a location")

    watch = WatchFilter(
        gpu=gpu.gpu if gpu else None,
        family=gpu.family if gpu else None,
        min_count=int(_number("count", keyed["count"], integer=True)) if "count" in keyed else None,
        min_vram_gb=vram,
        min_total_vram_gb=_number("total_vram", keyed["total_vram"])
        if "total_vram" in keyed
        else None,
        max_rub_per_gpu_hour=max_price,
        providers=frozenset(
            parts.providers | (_providers(keyed["provider"]) if "provider" in keyed else set())
        ),
        location=location,
        kinds=kinds,
        fit_query=fit_query,
        fit_need=fit_need,
        job_hours=None if job is None else job[0],
        max_job_rub=None if job is None else job[1],
        cooldown_s=_cooldown(keyed["cooldown"]) if "cooldown" in keyed else None,
    )
    if narrow and not has_filter(watch):
        raise QueryError(
            "no_filter",
            "name a GPU, a model to train, a memory size or a price",
            value=text.strip(),
        )
    return watch


def has_filter(watch: WatchFilter) -> bool:
    # Provider, location or count alone would alert on nearly every offer: that is spam.
    return any(
        value is not None
        for value in (
            watch.gpu,
            watch.family,
            watch.fit_need,
            watch.min_vram_gb,
            watch.min_total_vram_gb,
            watch.max_rub_per_gpu_hour,
        )
    )


def canonical(watch: WatchFilter) -> str:
    """ASCII words that `parse_watch(..., narrow=False)` reads back as `watch` exactly: what
    a button carries (well inside Telegram's 64 bytes for a card watch) and what a watch
    built from a question is created from."""
    words: list[str] = []
    if watch.fit_query is not None:
        words.append(watch.fit_query)  # the run's own words; its budget= among them
    name = watch.gpu or watch.family
    if name:
        words.append(name)
    if watch.min_count is not None:
        words.append(f"count={watch.min_count}")
    if watch.min_vram_gb is not None:
        words.append(f"vram={_number_word(watch.min_vram_gb)}")
    if watch.min_total_vram_gb is not None:
        words.append(f"total_vram={_number_word(watch.min_total_vram_gb)}")
    if watch.max_rub_per_gpu_hour is not None:
        words.append(f"max={_number_word(watch.max_rub_per_gpu_hour)}")
    if watch.providers:
        words.append("provider=" + ",".join(sorted(watch.providers)))
    if watch.location is not None:
        words.append("location=" + watch.location.replace(" ", "_"))
    if watch.kinds != default_kinds(watch.max_rub_per_gpu_hour, max_job_rub=watch.max_job_rub):
        words.append("kinds=" + ",".join(kind.value for kind in AlertKind if kind in watch.kinds))
    if watch.cooldown_s is not None:
        words.append(f"cooldown={_seconds_word(watch.cooldown_s)}")
    return " ".join(words)


def _number_word(value: float) -> str:
    """«250», «199.5»: short where that is exact, every digit where it is not, and never
    an exponent («1e+06» is not a number to the grammar)."""
    if value == int(value):
        return str(int(value))
    short = plain(value)
    return short if "e" not in short and float(short) == value else repr(value)


def _seconds_word(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
