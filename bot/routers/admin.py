"""/admin: provider health and the bot's counts, for the user ids in GPURADAR_ADMIN_IDS only.

Anyone else's /admin is not handled here at all: the filter fails, and the fallback router
answers it like any other unknown command, so the command's existence is not revealed.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from aiogram import Router
from aiogram.enums import ChatType
from aiogram.filters import Command, Filter
from aiogram.types import Message

from bot.config import Settings
from bot.ports import BotStore
from bot.views.provider_health import MAX_ERROR_CHARS, admin_part_state, trim
from estimator.i18n import Html, Translator
from monitor.health import PartHealth, ProviderHealth
from monitor.providers import PROVIDERS


class IsAdmin(Filter):
    """The sender is an operator, writing in a private chat (a group would see the table)."""

    async def __call__(self, message: Message, settings: Settings) -> bool:
        sender = message.from_user
        return (
            sender is not None
            and sender.id in settings.admin_ids
            and message.chat.type == ChatType.PRIVATE
        )


def create_router() -> Router:
    router = Router(name="admin")
    router.message.register(on_admin, Command("admin"), IsAdmin())
    return router


async def on_admin(message: Message, i18n: Translator, store: BotStore) -> None:
    await message.answer(await admin_text(store, i18n, datetime.now(UTC)))


async def admin_text(store: BotStore, i18n: Translator, now: datetime) -> str:
    subscriptions = await store.subscription_counts()
    lines = [
        i18n("admin-title"),
        "",
        i18n(
            "admin-users", users=await store.count_users(), blocked=await store.blocked_user_count()
        ),
        i18n("admin-subscriptions", active=subscriptions.active, paused=subscriptions.paused),
        i18n("admin-offers", offers=await store.offer_count()),
        i18n("admin-outbox", pending=await store.pending_count()),
        "",
        i18n("admin-providers"),
    ]
    health = await store.provider_health()
    if not health:
        lines.append(i18n("admin-no-providers"))
    for provider in health:
        lines.extend(health_lines(i18n, provider, now))
    return "\n".join(lines)


def health_lines(i18n: Translator, health: ProviderHealth, now: datetime) -> list[str]:
    name = PROVIDERS.name(health.provider)
    failures = health.consecutive_failures
    if health.last_success_at is None:
        lines = [i18n("admin-provider-never", provider=name, failures=failures)]
    else:
        at, age = _moment(health.last_success_at), age_text(i18n, now - health.last_success_at)
        key = "admin-provider-failing" if health.failing else "admin-provider-ok"
        key = "admin-provider-partial" if health.partly_failing else key
        lines = [i18n(key, provider=name, at=at, age=age, failures=failures)]
    if not health.failing:  # every part failing is the provider's error, below
        lines.extend(part_line(i18n, part) for part in health.troubled_parts)
    if health.last_error_class is not None or health.last_error is not None:
        lines.append(
            i18n(
                "admin-provider-error",
                at=_moment(health.last_error_at) if health.last_error_at else "?",
                error_class=trim(health.last_error_class or "?", 60),
                error=trim(health.last_error or "", MAX_ERROR_CHARS),
            )
        )
    return lines


def part_line(i18n: Translator, part: PartHealth) -> str:
    """One part that did not update: what went wrong, and what is shown meanwhile."""
    return i18n(
        "admin-provider-part",
        part=part.part,
        state=Html(admin_part_state(i18n, part)),
        kept=part.kept,
        error=trim(part.error or "", MAX_ERROR_CHARS),
    )


def age_text(i18n: Translator, age: timedelta) -> str:
    seconds = max(0, int(age.total_seconds()))
    if seconds < 60:
        return i18n("admin-age-seconds", n=seconds)
    if seconds < 3600:
        return i18n("admin-age-minutes", n=seconds // 60)
    if seconds < 2 * 86400:
        return i18n("admin-age-hours", n=seconds // 3600)
    return i18n("admin-age-days", n=seconds // 86400)


def _moment(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
