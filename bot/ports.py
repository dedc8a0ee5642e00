"""BotStore: what the bot's handlers read and write, the one port between them and storage.

The routers, the alert buttons (bot.delivery.handlers), the user middleware and the sizing
memory (bot.conversation) all receive the one Store through aiogram's dependency injection;
only the composition root (bot.app) names the Store itself, since bot modules outside it may
not import storage (tests/test_layout.py). One port rather than one per router: they all
serve the same dispatcher with the same Store, and tests run the real Store, not fakes.
The Mini App's API (bot.miniapp.app_api) answers what /subs and /fit answer, so it takes
this port too. The services that run beside the dispatcher keep their own: the sender's
DeliveryStore and the journal's MarkStore, /healthz's HealthStore, the open data's
OpenDataStore, the webhook's UpdateClaims (bot.webhook_once), and the flood state's
FlowStore, which two classes serve.

Positional-only parameters, so that the Store's own names satisfy it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from monitor.cards import CardFilter
from monitor.freshness import ObservedOffer
from monitor.health import ProviderHealth
from monitor.history import HistoryPoint
from monitor.sizing_memory import RememberedSizing
from monitor.speed_measurements import StoredSpeed
from monitor.subscriptions import Subscription, SubscriptionCounts, WatchEdit, WatchFilter
from monitor.users import Language, QuietHours, User


class BotStore(Protocol):
    # --- users (storage.users): the middleware, /settings, blocks and the error apology
    async def ensure_user(self, chat_id: int, *, language: Language, timezone: str) -> User: ...

    async def get_user(self, chat_id: int, /) -> User | None: ...

    async def set_language(self, chat_id: int, language: Language, /) -> User: ...

    async def set_timezone(self, chat_id: int, timezone: str, /) -> User: ...

    async def set_quiet_hours(self, chat_id: int, quiet_hours: QuietHours | None, /) -> User: ...

    async def block(self, chat_id: int, /) -> int: ...

    async def unblock(self, chat_id: int, /) -> int: ...

    # --- offers and providers (storage.offers): /prices, /watch, /fit and market answers,
    # each offer with its freshness (monitor.freshness)
    async def observed_offers(self) -> list[ObservedOffer]: ...

    async def provider_health(self) -> list[ProviderHealth]: ...

    async def price_series(self, cards: CardFilter, since: datetime, /) -> list[HistoryPoint]: ...

    # --- subscriptions (storage.subscriptions): /watch, /subs, the alert buttons
    async def add_subscription(self, chat_id: int, watch: WatchFilter, /) -> Subscription: ...

    async def subscriptions_of(self, chat_id: int, /) -> list[Subscription]: ...

    async def get_subscription(self, sub_id: int, /) -> Subscription | None: ...

    async def mute(self, chat_id: int, sub_id: int, until: datetime, /) -> bool: ...

    async def delete_watch(self, chat_id: int, sub_id: int, reason: str = ..., /) -> bool: ...

    async def edit_watch(
        self, chat_id: int, sub_id: int, edit: WatchEdit, /
    ) -> Subscription | None: ...

    # --- the outbox (storage.outbox_marks): what a delete, a mute or a snooze does to it
    async def drop_subscription(
        self, chat_id: int, subscription_id: int, reason: str, /
    ) -> int: ...

    async def defer_chat(self, chat_id: int, until: datetime, /) -> int: ...

    async def snoozed_until(self, chat_id: int, now: datetime, /) -> datetime | None: ...

    async def end_snooze(self, chat_id: int, due_at: datetime, /) -> int: ...

    # --- the sizing memory (storage.conversations): follow-ups to a /fit answer
    async def remember_sizing(
        self,
        chat_id: int,
        command: str,
        language: Language,
        at: datetime,
        /,
        model: str | None = None,
    ) -> None: ...

    async def last_sizing(self, chat_id: int, now: datetime, /) -> RememberedSizing | None: ...

    # --- each user's own measured speed (storage.measurements): bot.routers.measurement
    async def save_speed(self, user_id: int, speed: StoredSpeed, /) -> None: ...

    async def speed_of(self, user_id: int, /) -> StoredSpeed | None: ...

    # --- /admin's counts (storage.admin)
    async def subscription_counts(self) -> SubscriptionCounts: ...

    async def count_users(self) -> int: ...

    async def blocked_user_count(self) -> int: ...

    async def offer_count(self) -> int: ...

    async def pending_count(self) -> int: ...
