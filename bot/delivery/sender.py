"""The delivery loop: claim a fair batch of due outbox rows -> one message per chat ->
Telegram, several in flight, under its limits (bot.delivery.limiter, shared with replies).

The mechanism is here; what each refusal means and how long things wait is the policy's
(bot.delivery.policy); writing the results, or holding them while the database refuses, is
the journal's (bot.delivery.journal).

Guarantees, and what they rest on:

* Nothing is lost: a row leaves "pending" only when Telegram accepted its message (sent), or
  refused it for good (400, 403, or `max_attempts` failed tries: dropped, the reason kept).
* Nothing is sent twice by this process: a message Telegram accepted is marked sent before
  its chat gets another; if that write fails (read-only or full disk), the ids are held in
  memory and the write retried, and no new message goes out until the database takes writes
  again. After a crash (kill -9) the messages in flight at that moment, at most
  `concurrency`, may be sent again: Telegram had them, the database did not yet know.
  (A network error after Telegram received a request can repeat one too: it cannot be told
  from a lost request.) Held marks that the database never took are lost with the process.
* One chat never waits for another: a chat's 5xx or network error re-queues its rows with a
  per-chat backoff (in the database, so it survives a restart) and the workers go on.
  Transport errors from two chats in a row mean Telegram itself is down: then everything
  pauses with a backoff, and the messages wait in memory without spending attempts.
* A 429 pauses what it covers: that chat, or every send when two chats are flooded within
  FLOOD_WINDOW_S (bot.delivery.policy: a bot-wide flood). A pause lasts at most `flood_cap`;
  a chat's message, and a message whose retry_after is past the cap, goes back to the outbox
  due when Telegram said, so no worker sleeps on it.
* Per chat, order is kept: one message per chat per pass, none while one is in flight, and a
  chat's backoff pushes all of its pending rows back together.
* The stop event interrupts every wait; a send in flight gets `stop_grace` seconds to finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, Protocol

from aiogram import Bot
from aiogram.enums import ParseMode
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.methods.base import Response
from aiogram.types import Message

from bot.deep_links import VERSION, WORDS_VERSION, LinkKind, share_sheet
from bot.delivery.alert_text import AlertMessage, fit_message, render_alerts, summary_message
from bot.delivery.journal import Journal
from bot.delivery.limiter import Limiter
from bot.delivery.policy import DeliveryPolicy
from bot.delivery.session import sending_alert
from estimator.i18n import Translator
from monitor.outbox import OutboxRow
from monitor.subscriptions import WatchFilter
from monitor.users import Language
from monitor.watch_codec import encode
from monitor.watch_words import canonical

logger = logging.getLogger(__name__)

# aiogram parses every answer as Response[Message]; pydantic caches parametrised generics only
# weakly, so that class was garbage-collected and rebuilt (~8 ms each time) about once every 25
# sends in the fan-out benchmark. Holding one reference keeps it cached for the process's life.
_RESPONSE_OF_SEND = Response[Message]

TOO_LONG = "message is too long"

Sleep = Callable[[float], Awaitable[None]]
# Called with one of SEND_OUTCOMES after every send attempt (metrics); must not raise or block.
ResultHook = Callable[[str], object]
SEND_OUTCOMES = (
    "sent",
    "flood_wait",
    "retry",
    "dropped_400",
    "blocked_403",
    "api_error",
    "gave_up",
)


class DeliveryStore(Protocol):
    """What the sender needs: storage.outbox_claims and storage.outbox_marks, plus
    Store.block."""

    async def claim(
        self,
        now: datetime,
        *,
        limit: int,
        per_chat: int,
        lease: timedelta,
        chat_gap: timedelta,
        skip_chats: Collection[int] = (),
        token: int | None = None,
    ) -> list[OutboxRow]: ...

    async def mark_sent(self, ids: Sequence[int], at: datetime) -> int: ...

    async def extend_claims(
        self, ids: Sequence[int], until: datetime, *, token: int | None = None
    ) -> int: ...

    async def mark_dropped(self, ids: Sequence[int], reason: str) -> int: ...

    async def release(
        self,
        ids: Sequence[int],
        *,
        due_at: datetime | None = None,
        error: str | None = None,
        failed: bool = False,
        token: int | None = None,
    ) -> int: ...

    async def retry_chat_later(
        self,
        chat_id: int,
        ids: Sequence[int],
        due_at: datetime,
        error: str,
        *,
        failed: bool,
        token: int | None = None,
    ) -> int: ...

    async def block(self, chat_id: int, *, refused: str | None = None) -> int: ...


@dataclass
class SenderStats:
    """Running totals, for logs and the fan-out benchmark."""

    sent: int = 0
    flood_waits: int = 0  # 429s received
    retries: int = 0  # 5xx and network errors
    dropped: int = 0  # messages refused with 400, or given up after max_attempts
    blocked: int = 0  # chats that answered 403
    shortened: int = 0  # too long for Telegram: sent as a summary instead
    claims_lost: int = 0  # rows dropped unsent because their claims ran out (a freeze)


class _StoppedError(Exception):
    """The stop event fired during a wait."""


class _ClaimsLostError(Exception):
    """This pass's claims ran out before a send: another sender may hold the rows now."""


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Sender:
    def __init__(
        self,
        bot: Bot,
        store: DeliveryStore,
        translators: Mapping[Language, Translator],
        *,
        limiter: Limiter | None = None,
        concurrency: int = 8,
        batch_size: int = 500,
        per_chat: int = 20,
        lease: timedelta = timedelta(minutes=5),
        claim_horizon_s: float | None = None,
        max_attempts: int = 10,
        backoff_base: float = 2.0,
        backoff_cap: float = 600.0,
        flood_cap: float = 30.0,
        idle_interval: float = 1.0,
        stop_grace: float = 2.0,
        default_language: Language = "ru",
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = _utcnow,
        on_result: ResultHook | None = None,
        renew_sleep: Sleep = asyncio.sleep,
        lease_clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`limiter` is shared with the bot's replies (bot.delivery.session); by default the
        sender gets one of its own at 28 messages/s. `per_chat` bounds the rows one chat
        takes of a `batch_size` claim, so a chat with a backlog cannot starve the others.
        `max_attempts` failed tries (5xx, network, other API errors of this chat) drop a
        message, with the reason; between tries the chat backs off exponentially from
        `backoff_base` to `backoff_cap` seconds. `sleep` and `clock` (monotonic seconds) are
        injected so tests never wait for real; `now` is the wall clock of due times.
        `on_result(outcome)` sees every attempt's outcome, one of SEND_OUTCOMES.

        Claims are held for `lease` and renewed every third of it while the pass works, so
        only a dead sender's claims run out. With `claim_horizon_s`, a pass claims what this
        sender can send in about that long at its limiter's rate (never more than
        `batch_size`): replicas sharing an outbox each take a part instead of one of them
        claiming the whole fan-out at its 1/N of the rate.

        Claims are fenced by `lease_clock` (monotonic seconds, which run on while the process
        is frozen): a pass trusts its claims until the time its claim, or its last good
        renewal, was sent plus `lease`, which comes no later than the rows' own
        `claimed_until`. Each send checks that deadline just before it goes; past it (a
        freeze, a stalled database) the pass drops what it holds, without sending, renewing
        or releasing any of it: another sender may have claimed those rows already. The
        deadline is checked here, the token in the database: each pass claims with a token
        of its own (storage.outbox_claims) and renews, releases and re-queues only the rows
        that still carry it, so a freeze between the check and the statement changes nothing
        another sender holds.
        """
        if min(concurrency, batch_size, per_chat) < 1:
            raise ValueError("concurrency, batch_size and per_chat must be >= 1")
        self._bot = bot
        self._store = store
        self._translators = translators
        self._limiter = limiter or Limiter(28.0, 1.5, clock=clock, sleep=sleep)
        self._concurrency = concurrency
        self._batch_size = batch_size
        self._per_chat = per_chat
        self._lease = lease
        self._claim_horizon_s = claim_horizon_s
        # The renewals' own timer, apart from `sleep`: tests that move a fake clock by each
        # pacing sleep must not see it jump by a third of the lease as well.
        self._renew_sleep = renew_sleep
        self._lease_clock = lease_clock
        self._claims_until = 0.0  # on lease_clock: until when this pass's claims are ours
        self._claim_token = 0  # this pass's claim token: the database's fence
        self._policy = DeliveryPolicy(
            clock=clock,
            max_attempts=max_attempts,
            backoff_base=backoff_base,
            backoff_cap=backoff_cap,
            flood_cap=flood_cap,
        )
        self._journal = Journal(store, now)
        self._idle_interval = idle_interval
        self._stop_grace = stop_grace
        # Sends that reached Telegram (granted a slot) and are not settled yet: what a stop
        # waits for. Workers still waiting for a slot send nothing, so a stop cancels them at
        # once rather than spending the grace in a flood pause.
        self._on_wire = 0
        self._wire_idle = asyncio.Event()
        self._wire_idle.set()
        self._default_language = default_language
        self._sleep = sleep
        self._clock = clock
        self._now = now
        self._on_result = on_result
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()
        self._blocks: dict[Language, dict[str, str]] = {}
        self._links: dict[Language, dict[WatchFilter, str | None]] = {}
        self.last_sent_at: float | None = None  # clock of the last accepted message
        self.stats = SenderStats()

    @property
    def limiter(self) -> Limiter:
        return self._limiter

    @property
    def held_writes(self) -> int:
        """Results the database has not taken yet (marks and the rest)."""
        return self._journal.held

    @property
    def store_error(self) -> str | None:
        """Why the database does not take writes, while it does not; /healthz reports it."""
        return self._journal.error

    # --- the loop ----------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until `stop` is set; a send in flight gets `stop_grace` seconds to finish."""
        self._stop = stop
        while not stop.is_set():
            try:
                sent = await self.drain_once()
            except _StoppedError:
                break
            except Exception as error:  # a database hiccup must not end delivery for good
                self._journal.failed(error)
                sent = 0
            if sent == 0 and not stop.is_set():
                delay = self._journal.backoff() if self.store_error else self._idle_interval
                with contextlib.suppress(_StoppedError):
                    await self._wait(delay, wake=self.store_error is None)
        if self.held_writes:
            with contextlib.suppress(Exception):
                await self._journal.flush()
            if self.held_writes:
                logger.error(
                    "stopping with %s delivery results the database did not take: after a"
                    " restart those messages may be sent again",
                    self.held_writes,
                )

    def wake(self) -> None:
        """New rows were queued: start the next pass now rather than after the idle wait."""
        self._wake.set()

    async def drain_once(self) -> int:
        """One pass: every claimed chat gets one message. Returns how many were accepted.

        Nothing is claimed while results the database has not taken are held.
        """
        if not await self._journal.flush():
            return 0
        claimed_at = self._lease_clock()
        # Random, so no two passes of any replica share one; 63 bits fit both backends.
        token = secrets.randbits(63)
        rows = await self._store.claim(
            self._now(),
            limit=self._claim_limit(),
            per_chat=self._per_chat,
            lease=self._lease,
            chat_gap=timedelta(seconds=self._limiter.per_chat_interval),
            skip_chats=self._limiter.busy_chats(),
            token=token,
        )
        self._journal.succeeded()  # the claim was a write
        if not rows:
            return 0
        self._claims_until = claimed_at + self._lease.total_seconds()
        self._claim_token = token
        self._policy.forget_old_floods()
        chats: dict[int, list[OutboxRow]] = {}
        for row in rows:
            chats.setdefault(row.chat_id, []).append(row)
        queue = deque(chats.items())
        self._blocks = {}  # rendered offer blocks, per language, for this pass only
        self._links = {}  # share links of watches, per language, for this pass only
        unsent = {row.id for row in rows}  # claimed, not yet settled: released at the end
        sent = 0

        async def worker() -> None:
            nonlocal sent
            token = sending_alert.set(True)  # replies' middleware: the sender paces these
            try:
                while (
                    queue
                    and not self._stop.is_set()
                    and self.store_error is None
                    and self._claims_held()
                ):
                    chat_id, chat_rows = queue.popleft()
                    if await self._deliver(chat_id, chat_rows, unsent):
                        sent += 1
            finally:
                sending_alert.reset(token)

        count = min(self._concurrency, len(queue))
        workers: list[asyncio.Future[None]] = [
            asyncio.ensure_future(worker()) for _ in range(count)
        ]
        renewing = asyncio.ensure_future(self._renew_claims(unsent))
        try:
            await self._run_workers(workers)
        finally:
            renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewing
            if unsent and not self._claims_held():
                # Another sender may hold them now: releasing would end its claim.
                logger.warning("dropping %s outbox claims that ran out unsent", len(unsent))
                self.stats.claims_lost += len(unsent)
                unsent.clear()
            if unsent:
                release = partial(self._release, tuple(unsent), self._claims_until, token)
                await self._journal.write(release)
        return sent

    async def _release(self, ids: Sequence[int], held_until: float, token: int) -> None:
        """Release this pass's unsent claims, unless they ran out first. The journal holds a
        release the database refused (PostgreSQL restarting or down) and replays it once the
        server is back; by then the lease may have run out and another sender claimed and be
        sending those rows: releasing them would let a third claim and send them again (a
        5 s outage with a 4 s lease re-sent a pass's worth, 71 of 150). The claim token
        makes such a release change nothing in the database; this check spares the call.
        The row's lease ends by itself, so dropping the release loses nothing."""
        if self._lease_clock() >= held_until:
            logger.warning("not releasing %s outbox claims that ran out meanwhile", len(ids))
            return
        await self._store.release(ids, token=token)

    def _claims_held(self) -> bool:
        return self._lease_clock() < self._claims_until

    def _claim_limit(self) -> int:
        if self._claim_horizon_s is None:
            return self._batch_size
        # Two claims' worth of workers at least, so a pass never starves its own workers.
        wanted = math.ceil(self._limiter.rate * self._claim_horizon_s)
        return min(self._batch_size, max(2 * self._concurrency, wanted))

    async def _renew_claims(self, unsent: set[int]) -> None:
        """Keep this pass's unsettled claims alive: a live sender's rows are never re-claimed
        by another, however long a flood pause or a slow Telegram holds the pass."""
        every = self._lease.total_seconds() / 3
        while True:
            await self._renew_sleep(every)
            if not unsent:
                continue
            if not self._claims_held():
                return  # ran out (a freeze): renewing now could extend another's claim
            sent_at = self._lease_clock()
            try:
                await self._store.extend_claims(
                    tuple(unsent), self._now() + self._lease, token=self._claim_token
                )
                self._claims_until = sent_at + self._lease.total_seconds()
            except Exception as error:
                # The lease still runs; if it ends, another sender may send these again.
                logger.warning("could not renew %s outbox claims: %s", len(unsent), error)

    async def _run_workers(self, workers: list[asyncio.Future[None]]) -> None:
        """Until they finish; on stop, they get `stop_grace` s, then are cancelled.

        A cancelled send may or may not have reached Telegram; its rows stay pending, which is
        the in-flight bound on duplicates.
        """
        stopping: asyncio.Future[Any] = asyncio.ensure_future(self._stop.wait())
        running: set[asyncio.Future[Any]] = set(workers)
        try:
            while running:
                done, _ = await asyncio.wait(
                    {*running, stopping}, return_when=asyncio.FIRST_COMPLETED
                )
                running -= done
                failed = [w for w in done if w is not stopping and not w.cancelled()]
                if any(w.exception() for w in failed):
                    break
                if stopping.done():
                    if running and self._on_wire:
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self._wire_idle.wait(), self._stop_grace)
                    break
        finally:
            stopping.cancel()
            for worker in workers:
                worker.cancel()
            results = await asyncio.gather(*workers, return_exceptions=True)
        for result in results:
            if isinstance(result, Exception):
                raise result

    # --- one chat ----------------------------------------------------------------------------

    async def _deliver(self, chat_id: int, rows: Sequence[OutboxRow], unsent: set[int]) -> bool:
        language = rows[0].language or self._default_language
        i18n = self._translators.get(language) or self._translators[self._default_language]
        # Only the first message of a split digest now: the rest is the next pass's, after the
        # chat's 1 s gap (its rows are released at the end of the pass).
        cache = self._blocks.setdefault(i18n.language, {})
        share = await self._share_links(i18n)
        message = fit_message(render_alerts(rows, i18n, cache=cache, share=share)[0], rows, i18n)
        included = set(message.row_ids)
        attempts = max(row.attempts for row in rows if row.id in included)
        return await self._send(chat_id, message, rows, i18n, attempts, unsent)

    async def _share_links(self, i18n: Translator) -> Callable[[WatchFilter], str | None] | None:
        """How a watch becomes a share link in `i18n`'s words (bot.deep_links); None, and no
        button, when the bot's username is not known. A fan-out shares a few watches among
        thousands of chats, so each link is made once per pass."""
        try:
            username = (await self._bot.me()).username  # aiogram keeps it after the first call
        except Exception:  # a share button is never worth holding an alert back for
            return None
        if not username:
            return None
        links = self._links.setdefault(i18n.language, {})
        text, today = i18n("share-watch-text"), datetime.now(UTC).date()

        def share(watch: WatchFilter) -> str | None:
            if watch not in links:
                typed = encode(watch)  # a watch on a run has only its /watch words
                version = VERSION if typed is not None else WORDS_VERSION
                value = typed if typed is not None else canonical(watch)
                links[watch] = share_sheet(
                    username, LinkKind.WATCH, value, text, today=today, version=version
                )
            return links[watch]

        return share

    async def _send(
        self,
        chat_id: int,
        message: AlertMessage,
        rows: Sequence[OutboxRow],
        i18n: Translator,
        attempts: int,
        unsent: set[int],
    ) -> bool:
        ids = message.row_ids
        on_wire = False
        try:
            while True:
                try:
                    async with self._limiter.slot(chat_id):
                        if not self._claims_held():
                            # The in-flight window ends here: past this check a freeze
                            # can repeat only the sends already on their way.
                            raise _ClaimsLostError
                        if not on_wire:
                            on_wire = True
                            self._on_wire += 1
                            self._wire_idle.clear()
                        await self._bot.send_message(
                            chat_id,
                            message.text,
                            parse_mode=ParseMode.HTML,
                            reply_markup=message.markup,
                        )
                except _ClaimsLostError:
                    return False  # the rows stay in `unsent`: the pass drops them
                except TelegramRetryAfter as error:
                    self._count("flood_wait")
                    if self._flood(chat_id, error.retry_after):
                        # Bot-wide and within the cap: the same message, after the pause. It
                        # was refused, so a stop meanwhile has nothing of it to wait for.
                        on_wire = self._off_wire(on_wire)
                        continue
                    self._settle(unsent, ids)
                    reason = f"429: retry after {error.retry_after} s"
                    await self._retry_later(chat_id, ids, error.retry_after, reason, failed=False)
                    return False
                except TelegramForbiddenError as error:
                    self._count("blocked_403")
                    self._settle(unsent, [row.id for row in rows])
                    await self._blocked(chat_id, error.message)
                    return False
                except TelegramBadRequest as error:
                    if TOO_LONG in error.message and not message.shortened:
                        # Telegram counts differently from us, or a block is huge: say less.
                        logger.warning("chat %s: message too long, sending a summary", chat_id)
                        self.stats.shortened += 1
                        message = summary_message(message, rows, i18n)
                        continue
                    logger.error("chat %s refused alert rows %s: %s", chat_id, ids, error.message)
                    self._count("dropped_400")
                    self.stats.dropped += 1
                    self._settle(unsent, ids)
                    reason = f"400: {error.message}"
                    await self._journal.write(partial(self._store.mark_dropped, ids, reason))
                    return False
                except (
                    TelegramServerError,
                    TelegramNetworkError,
                    TelegramUnauthorizedError,
                ) as error:
                    self._count("retry")
                    self.stats.retries += 1
                    pause = self._policy.telegram_down(chat_id, error)
                    if pause is not None:
                        self._limiter.pause(pause)
                        # Everything paused; this message goes first after the pause.
                        on_wire = self._off_wire(on_wire)
                        continue
                    await self._failed(chat_id, ids, attempts, error, unsent)
                    return False
                except TelegramAPIError as error:
                    # 409, a migrated chat...: nothing this message can fix, and nothing that
                    # proves it undeliverable. Retry later; max_attempts ends it.
                    logger.error("chat %s: unexpected Telegram error: %s", chat_id, error)
                    self._count("api_error")
                    await self._failed(chat_id, ids, attempts, error, unsent)
                    return False
                self._settle(unsent, ids)
                self._policy.accepted()
                self.last_sent_at = self._clock()
                await self._journal.record_sent(ids)
                self.stats.sent += 1
                self._count("sent")
                return True
        finally:
            self._off_wire(on_wire)

    def _off_wire(self, on_wire: bool) -> bool:
        """This send no longer reached Telegram unsettled; returns the send's new flag."""
        if on_wire:
            self._on_wire -= 1
            if not self._on_wire:
                self._wire_idle.set()
        return False

    async def _failed(
        self,
        chat_id: int,
        ids: Sequence[int],
        attempts: int,
        error: TelegramAPIError,
        unsent: set[int],
    ) -> None:
        """This chat's try failed: back off, or give up after max_attempts."""
        self._settle(unsent, ids)
        tries = attempts + 1
        reason = f"{type(error).__name__}: {error.message}"
        delay = self._policy.backoff(tries)
        if delay is None:
            logger.error("chat %s: giving up after %s attempts: %s", chat_id, tries, reason)
            self.stats.dropped += 1
            self._count("gave_up")
            final = f"gave up after {tries} attempts: {reason}"
            await self._journal.write(partial(self._store.mark_dropped, ids, final))
            return
        logger.warning("chat %s: %s; next try in %.0f s", chat_id, reason, delay)
        await self._retry_later(chat_id, ids, delay, reason, failed=True)

    async def _retry_later(
        self, chat_id: int, ids: Sequence[int], delay: float, error: str, *, failed: bool
    ) -> None:
        # In memory (the chat is skipped by claims and waits in the limiter) and in the
        # database (the whole chat's rows, so they keep their order, also after a restart).
        self._limiter.hold_chat(chat_id, min(delay, self._policy.flood_cap))
        due = self._now() + timedelta(seconds=delay)
        await self._journal.write(
            partial(
                self._store.retry_chat_later,
                chat_id,
                ids,
                due,
                error,
                failed=failed,
                token=self._claim_token,
            )
        )

    @staticmethod
    def _settle(unsent: set[int], ids: Sequence[int]) -> None:
        unsent.difference_update(ids)

    def _count(self, outcome: str) -> None:
        if outcome == "flood_wait":
            self.stats.flood_waits += 1
        if self._on_result is not None:
            try:
                self._on_result(outcome)
            except Exception:  # metrics must never stop delivery
                logger.exception("send result hook failed")

    async def _blocked(self, chat_id: int, description: str) -> None:
        logger.info("chat %s blocked the bot (%s): pausing its subscriptions", chat_id, description)
        self.stats.blocked += 1

        # One transaction: the user marked, their subscriptions paused, their pending rows
        # dropped. If it fails, the rows stay pending and the 403 comes again.
        await self._journal.write(
            partial(self._store.block, chat_id, refused=f"403: {description}")
        )

    # --- floods -------------------------------------------------------------------------

    def _flood(self, chat_id: int, retry_after: float) -> bool:
        """Pause what a 429 covers; True when the same message should be retried now."""
        flood = self._policy.flood(chat_id, retry_after)
        if flood.pause is not None:
            self._limiter.pause(flood.pause)
        return flood.retry_now

    # --- waiting -------------------------------------------------------------------------------

    async def _wait(self, seconds: float, *, wake: bool = False) -> None:
        """Sleep `seconds`, or less if stopped (raises _StoppedError) or, with `wake`, woken."""
        waits = [
            asyncio.ensure_future(self._sleep(seconds)),
            asyncio.ensure_future(self._stop.wait()),
        ]
        if wake:
            waits.append(asyncio.ensure_future(self._wake.wait()))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waits:
                waiter.cancel()
            await asyncio.gather(*waits, return_exceptions=True)
        self._wake.clear()
        if self._stop.is_set():
            raise _StoppedError
