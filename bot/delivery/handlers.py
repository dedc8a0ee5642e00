"""The alert message's buttons: mute a subscription, unsubscribe, snooze the chat (how long a
mute and a snooze last is monitor.queueing's)."""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import UTC, datetime

from aiogram import F, Router
from aiogram.enums import ChatMemberStatus, ChatType
from aiogram.types import CallbackQuery, ChatMemberUpdated

from bot.delivery.alert_buttons import AlertAction, AlertCallback
from bot.ports import BotStore
from estimator.i18n import Html, Translator
from monitor.queueing import mute_ends, snooze_ends
from monitor.users import DEFAULT_TIMEZONE, User, zone
from monitor.watch_describe import short_label


def create_router() -> Router:
    router = Router(name="alerts")
    router.callback_query.register(on_alert_button, AlertCallback.filter())
    # Telegram tells a bot when a private chat blocks or unblocks it.
    router.my_chat_member.register(on_blocked_or_unblocked, F.chat.type == ChatType.PRIVATE)
    return router


async def on_blocked_or_unblocked(update: ChatMemberUpdated, store: BotStore) -> None:
    """ "kicked": the user blocked the bot (pause as a 403 would); back to "member": they
    unblocked it (resume what the block paused). Any other update from them does the
    latter too (bot.middlewares.user)."""
    chat_id = update.chat.id
    status = update.new_chat_member.status
    try:
        if status == ChatMemberStatus.KICKED:
            await store.block(chat_id)
        elif status == ChatMemberStatus.MEMBER:
            await store.unblock(chat_id)
    except LookupError:  # not a user of ours yet: nothing to pause or resume
        return


async def on_alert_button(
    callback: CallbackQuery,
    callback_data: AlertCallback,
    i18n: Translator,
    store: BotStore,
    user: User | None = None,
) -> None:
    # The pressing chat, never one named in the data: anyone can forge callback_data, and the
    # store scopes each subscription action by this chat id.
    chat_id = callback.message.chat.id if callback.message else callback.from_user.id
    timezone = user.timezone if user is not None else DEFAULT_TIMEZONE
    now = datetime.now(UTC)
    action, sub = callback_data.action, callback_data.sub

    if action is AlertAction.SNOOZE:
        until = snooze_ends(now, timezone)
        await store.defer_chat(chat_id, until)
        await callback.answer(i18n("alert-snoozed", until=_local(until, timezone, "%H:%M")))
        return

    # The toast names the watch the button acted on, as the button did. Toasts are plain
    # text, not HTML: Html() only stops the Translator escaping.
    subscription = await store.get_subscription(sub)
    label = Html(short_label(subscription.filter) if subscription is not None else "")
    if action is AlertAction.MUTE:
        until = mute_ends(now)
        if not await _done(store.mute(chat_id, sub, until)):
            await callback.answer(i18n("alert-stale"), show_alert=True)
            return
        # Queued alerts of a muted subscription would arrive right after the press: drop them.
        await store.drop_subscription(chat_id, sub, "muted")
        until_text = _local(until, timezone, "%d.%m %H:%M")
        await callback.answer(i18n("alert-muted", label=label, until=until_text))
        return

    if not await _done(store.delete_watch(chat_id, sub, "unsubscribed")):
        await callback.answer(i18n("alert-stale"), show_alert=True)
        return
    await callback.answer(i18n("alert-unsubscribed", label=label))


async def _done(call: Awaitable[object]) -> bool:
    """Whether the store found the subscription: False or a LookupError mean "no such
    subscription in this chat"."""
    try:
        result = await call
    except LookupError:
        return False
    return result is not False


def _local(moment: datetime, timezone: str, pattern: str) -> str:
    return moment.astimezone(zone(timezone)).strftime(pattern)
