"""docs/design.md names only what exists, and its numbers are the code's: every path it names
is in the repository, every code name it puts in backticks is defined or used in the code it
describes, and every cooldown, lease, limit, retry, interval and size it states is the value of
the constant that decides it.

A renamed module or function, or a constant changed on either side, breaks this test instead of
leaving the design of record wrong.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import bot.__main__
import bot.app
import bot.deep_links
import bot.delivery.alert_text
import bot.delivery.journal
import bot.delivery.limiter
import bot.delivery.policy
import bot.fake_telegram.methods
import bot.hold
import bot.jobs
import bot.middlewares.user
import bot.ops.open_data
import bot.ops.server
import bot.replay
import bot.routers.inline
import bot.topology
import bot.webhook_once
import monitor.alarms
import monitor.alerts
import monitor.diff
import monitor.health
import monitor.matcher
import monitor.offers
import monitor.parts
import monitor.queueing
import monitor.watch_words
import scrapers.http
import storage.database
import storage.history
import storage.history_tiers
import storage.leader
import storage.postgres
import storage.refresh
import storage.replicas
import storage.subscriptions
import storage.updates
import tests.bot.miniapp.test_bundle
from bot.config import Settings
from bot.delivery.sender import Sender
from monitor.providers import HOSTKEY, IMMERS, SELECTEL

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "design.md"
PACKAGES = ("bot", "monitor", "scrapers", "storage", "estimator")
# Where a bare relative path in the doc may start: the root, a package, or a folder that the
# doc's layout table lists under a package ("delivery/sender.py" is bot/delivery/sender.py).
BASES = (
    ROOT,
    *(ROOT / name for name in PACKAGES),
    ROOT / "bot" / "delivery",
    ROOT / "bot" / "ops",
    ROOT / "bot" / "miniapp",
    ROOT / "bot" / "routers",
    ROOT / "bot" / "usecases",
    ROOT / "bot" / "views",
    ROOT / "bot" / "middlewares",
    ROOT / "storage" / "schema",
    ROOT / "tests",
    ROOT / "deploy",
)
_PATH = re.compile(r"(?<![\w/.*-])((?:[\w.-]+/)*[\w.-]+\.(?:py|sql|ftl|csv|yaml|md|toml))(?![\w/])")
_DIR = re.compile(r"(?<![\w/.-])((?:[\w-]+/)+)(?=[\s),.:;]|$)")
_TICKED = re.compile(r"`([^`\n]+)`")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Backticked words that are values, settings or shell, not names in the code.
_NOT_CODE = re.compile(r"^(?:GPURADAR_[\w<>]+|https?://.*|/\w.*|\d.*|python -m .*|make .*)$")


def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _exists(path: str) -> bool:
    if "*" in path or "NNNN" in path or "<" in path:
        return True  # a pattern, not a file
    if "/" not in path and "." in path and path.split(".")[0] in PACKAGES:
        # A dotted module ("storage.sql"), not a file name.
        return (ROOT / path.replace(".", "/")).with_suffix(".py").exists()
    return any((base / path).exists() for base in BASES)


def test_every_path_the_design_names_exists():
    text = doc()
    named = {m.group(1) for m in _PATH.finditer(text)}
    named |= {m.group(1).rstrip("/") for m in _DIR.finditer(text)}
    missing = sorted(path for path in named if not _exists(path))
    assert not missing, f"docs/design.md names paths that do not exist: {missing}"


@cache
def _code_words() -> frozenset[str]:
    words: set[str] = set()
    for folder in (*PACKAGES, "deploy", "tests", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".py", ".sql", ".ftl", ".yaml", ".csv"} or path.name == "Caddyfile":
                words.update(_NAME.findall(path.read_text(encoding="utf-8", errors="replace")))
                words.add(path.stem)
    words.update(_NAME.findall((ROOT / "Makefile").read_text(encoding="utf-8")))
    return frozenset(words)


def _code_names(ticked: str) -> list[str]:
    """The identifiers of a backticked span that look like code: dotted, snake_case or
    CamelCase names (plain words such as `load` are checked too when they stand alone)."""
    if _NOT_CODE.match(ticked.strip()):
        return []
    names = _NAME.findall(ticked)
    return [name for name in names if len(name) >= 3]


def test_every_code_name_the_design_ticks_exists():
    words = _code_words()
    missing = set()
    for match in _TICKED.finditer(doc()):
        for name in _code_names(match.group(1)):
            if name not in words:
                missing.add(name)
    assert not missing, f"docs/design.md names code that does not exist: {sorted(missing)}"


# --- the numbers -----------------------------------------------------------------------------


def default(function: Callable[..., Any], parameter: str) -> Any:
    """A keyword's default: where the code states a number as the default of its parameter."""
    return inspect.signature(function).parameters[parameter].default


def setting(name: str) -> Any:
    """A setting's default (bot/config.py), which the README's table gives too."""
    return Settings.model_fields[name].default


def seconds(span: timedelta) -> float:
    return span.total_seconds()


# Each number docs/design.md states, with the constant that decides it: the phrase as the doc
# writes it (line breaks aside), `{n}` where the number stands, and the constant's value in
# the phrase's unit. A phrase the doc no longer holds fails too: reword the entry with the
# doc. Section 6 (the estimator) is left to its own tests, but for the bot's answers at its end.
NUMBERS: tuple[tuple[str, float], ...] = (
    # section 3: one refresh
    ("interval_s`: Selectel {n} s", SELECTEL.interval_s),
    ("HOSTKEY and immers {n} s), jitter", HOSTKEY.interval_s),
    ("HOSTKEY and immers {n} s), jitter", IMMERS.interval_s),
    ("no redirect to another host, at most {n} within it", scrapers.http.MAX_REDIRECTS),
    ("once after {n} failed runs in a row", monitor.alarms.DEFAULT_THRESHOLD),
    ("a page (`LOAD_PAGE`, {n}) per query", monitor.matcher.LOAD_PAGE),
    ("slices of about `TURN_S` ({n} ms)", monitor.matcher.TURN_S * 1000),
    # section 4: one delivery
    ("(`DELIVERY_POLL_S`, {n} s)", bot.app.DELIVERY_POLL_S),
    ("or the {n} s poll", bot.app.DELIVERY_POLL_S),
    ("`claim(now, limit={n},", default(Sender, "batch_size")),
    ("limit=500, per_chat={n},", default(Sender, "per_chat")),
    ("per_chat=20, lease={n} min,", seconds(bot.topology.SOLE_CLAIMS.lease) / 60),
    ("whole chats with at most {n} rows each", default(Sender, "per_chat")),
    ("replicas claim whole chats with {n} s leases", setting("claim_lease_s")),
    ("`fit_message`, {n} characters", bot.delivery.alert_text.MESSAGE_LIMIT),
    ("`GPURADAR_SEND_CONCURRENCY` ({n}) workers", setting("send_concurrency")),
    ("GCRA at `GPURADAR_SEND_RATE` ({n}/s)", setting("send_rate")),
    ("with a burst of {n}, one message in flight per chat", bot.app.SEND_BURST),
    ("the next {n} s after Telegram answered", bot.delivery.limiter.CHAT_GAP_S),
    ("429s from two chats within {n} s", bot.delivery.policy.FLOOD_WINDOW_S),
    ("for `retry_after` (at most {n} s)", default(Sender, "flood_cap")),
    ("every send pauses ({n} s doubling to 30 s)", bot.delivery.policy.OUTAGE_BACKOFF_S[0]),
    ("every send pauses (1 s doubling to {n} s)", bot.delivery.policy.OUTAGE_BACKOFF_S[1]),
    ("its rows back off ({n} s doubling to 10 min)", default(Sender, "backoff_base")),
    ("its rows back off (2 s doubling to {n} min)", default(Sender, "backoff_cap") / 60),
    ("are dropped after {n} tries", default(Sender, "max_attempts")),
    ("Idle: wait {n} s (or the storage backoff)", default(Sender, "idle_interval")),
    # section 5: domain rules
    ("per hour and per month ({n} h)", monitor.offers.HOURS_PER_MONTH),
    ("held until seen in {n} scrapes in a row", monitor.parts.CONFIRM_AFTER),
    ("the range cut into {n} buckets shared", storage.history.HISTORY_BUCKETS),
    ("per span of {n} hours and of a day", storage.history_tiers.FOUR_HOURS / 3600),
    ("for {n} days (`FULL_DETAIL`)", seconds(storage.history_tiers.FULL_DETAIL) / 86400),
    ("in batches of {n} rows", storage.history_tiers.COMPACT_BATCH),
    ("₽/h moved by more than {n} %", default(monitor.diff.diff, "price_epsilon") * 100),
    ("at `removal_after` ({n}) consecutive misses", default(monitor.diff.diff, "removal_after")),
    (
        "{n} h by default (`monitor.alerts.DEFAULT_COOLDOWN_S`)",
        monitor.alerts.DEFAULT_COOLDOWN_S / 3600,
    ),
    ("`cooldown=` from {n} to 30 days", monitor.watch_words.WATCH_LIMITS["cooldown"][0]),
    ("`cooldown=` from 0 to {n} days", monitor.watch_words.WATCH_LIMITS["cooldown"][1] / 86400),
    ("until the next {n}:00 on the user's clock", monitor.queueing.MORNING_MINUTE / 60),
    ("outbox rows are purged after {n} days", seconds(bot.jobs.OUTBOX_KEEP) / 86400),
    (
        "all but the last {n} subscription changes",
        default(storage.subscriptions.SubscriptionQueries.prune_subscription_changes, "keep"),
    ),
    # section 6, the bot's answers: inline mode, shared links
    ("at most `MAX_OFFERS` {n} of", bot.routers.inline.MAX_OFFERS),
    ("`MAX_OFFERS` 10 of Telegram's {n})", bot.fake_telegram.methods.INLINE_RESULTS_LIMIT),
    ("cached by Telegram for `CACHE_S` {n} s", bot.routers.inline.CACHE_S),
    ("in Telegram's {n} characters of", bot.deep_links.PAYLOAD_LIMIT),
    ("older-than-{n}-days payload", bot.deep_links.MAX_AGE.days),
    # section 7: settings
    ("`python -m bot` prints that line and exits {n};", bot.__main__.EXIT_CONFIG),
    ("with one line, a crash of the running bot exits {n}.", bot.__main__.EXIT_CRASH),
    # section 8: operations
    ("a due row waited {n} min with nothing sent", bot.ops.server.STUCK_AFTER_S / 60),
    ("no good scrape within {n} of its intervals", monitor.health.STALE_AFTER_INTERVALS),
    ("read has a {n} s timeout", bot.ops.server.DATABASE_TIMEOUT_S),
    ("unfinished after `CLAIM_S` ({n} s,", bot.webhook_once.CLAIM_S),
    ("Claims are kept `KEEP_UPDATES` ({n} h,", seconds(storage.updates.KEEP_UPDATES) / 3600),
    ("a send in flight gets {n} s, in-flight", default(Sender, "stop_grace")),
    ("in-flight webhook requests {n} s", bot.ops.server.SHUTDOWN_TIMEOUT_S),
    ("`Cache-Control: public, max-age={n}`", int(bot.ops.open_data.CACHE_CONTROL.split("=")[1])),
    ("(`MAX_ANSWERS` {n},", bot.ops.open_data.MAX_ANSWERS),
    ("`ANSWER_TTL_S` {n})", bot.ops.open_data.ANSWER_TTL_S),
    ("(`BURST` {n}, one more a second", bot.ops.open_data.BURST),
    ("`BURST` 30, {n} more a second", 1 / bot.ops.open_data.REFILL_S),
    ("at most {n} clients", bot.ops.open_data.MAX_CLIENTS),
    ("the size (< {n} KB gzipped)", tests.bot.miniapp.test_bundle.MAX_GZIPPED / 1024),
    # section 9: storage
    ("`busy_timeout` {n} s", storage.database.BUSY_TIMEOUT_MS / 1000),
    ("one of {n} read-only connections", storage.database.READ_CONNECTIONS),
    ("exponential backoff (from {n} s, at most", storage.postgres.CONNECT_FIRST_DELAY_S),
    ("from 0.5 s, at most {n} s apart", storage.postgres.CONNECT_MAX_DELAY_S),
    # section 10: replicas
    ("renews it every {n} s (`ELECTION_INTERVAL_S`", storage.leader.ELECTION_INTERVAL_S),
    ("renews it every {n} s (`ELECTION_INTERVAL_S`", setting("election_interval_s")),
    ("to `now() + {n} s` (`LEADER_LEASE_S`", storage.leader.LEADER_LEASE_S),
    ("to `now() + {n} s` (`LEADER_LEASE_S`", setting("leader_lease_s")),
    ("`idle_in_transaction_session_timeout` to {n} s", storage.refresh.FROZEN_COMMIT_S),
    ("any chat messaged less than {n} s ago by any replica", bot.delivery.limiter.CHAT_GAP_S),
    ("A claim's lease is {n} s (`GPURADAR_CLAIM_LEASE_S`", setting("claim_lease_s")),
    ("a pass claims what the replica sends in {n} s", bot.topology.REPLICA_HORIZON_S),
    ("keeps {n}-minute leases and 500-row", seconds(bot.topology.SOLE_CLAIMS.lease) / 60),
    ("5-minute leases and {n}-row passes", default(Sender, "batch_size")),
    ("Every replica heartbeats every {n} s", storage.replicas.BEAT_INTERVAL_S),
    ("gone after {n} s without one", storage.replicas.STALE_AFTER_S),
    ("a little under the ceiling for up to {n} s", storage.replicas.STALE_AFTER_S),
    ("when the lease runs out (at most {n} s)", setting("claim_lease_s")),
    ("its lease runs out within {n} s and", setting("leader_lease_s")),
    ("at its next try (every {n} s)", setting("election_interval_s")),
    ("from {n} s doubling to 4 s (`STORE_BACKOFF_S`)", bot.delivery.journal.STORE_BACKOFF_S[0]),
    ("from 1 s doubling to {n} s (`STORE_BACKOFF_S`)", bot.delivery.journal.STORE_BACKOFF_S[1]),
    ("(`/readyz` 503: both bounded by {n} s)", bot.ops.server.DATABASE_TIMEOUT_S),
    ("shorter than the claim lease ({n} s)", setting("claim_lease_s")),
    ("(at most {n} messages, `HOLD_LIMIT`", bot.hold.HOLD_LIMIT),
    ("cannot be read (within {n} s)", bot.middlewares.user.LANGUAGE_READ_S),
    ("probes storage every {n} s (`PROBE_EVERY_S`", bot.replay.PROBE_EVERY_S),
    ("one that fails {n} times with the probe", bot.replay.MAX_TRIES),
    ("once every {n} s (`HELD_POLL_S`", bot.hold.HELD_POLL_S),
)
# A number as the doc writes it: digits, thousands apart by a space ("10 000"), a decimal
# point, or a word for the small ones.
_NUMBER = r"(\d+(?:[ \u00a0\u202f]\d{3})*(?:\.\d+)?|one|two|three)"
_WORDS = {"one": 1.0, "two": 2.0, "three": 3.0}


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _value(written: str) -> float:
    return _WORDS.get(written) or float(re.sub(r"[ \u00a0\u202f]", "", written))


def stated(phrase: str) -> list[float]:
    """Every number docs/design.md states where `phrase` puts `{n}`."""
    before, after = (re.escape(_flat(part)) for part in phrase.split("{n}"))
    return [_value(found) for found in re.findall(before + _NUMBER + after, _flat(doc()))]


@pytest.mark.parametrize(("phrase", "actual"), NUMBERS, ids=[phrase for phrase, _ in NUMBERS])
def test_each_number_the_design_states_is_the_codes(phrase: str, actual: float):
    numbers = stated(phrase)
    assert numbers, f"docs/design.md no longer says {phrase!r}: reword this entry with the doc"
    assert numbers == [float(actual)] * len(numbers), (
        f"docs/design.md says {phrase.replace('{n}', str(numbers[0]))!r}; the code says {actual}"
    )


def test_a_number_is_read_as_the_doc_writes_it():
    assert stated("all but the last {n} subscription changes") == [10000.0]
    assert stated("₽/h moved by more than {n} %") == [0.5]
    assert stated("`BURST` 30, {n} more a second") == [1.0]
    assert stated("no such words in the doc {n}") == []
