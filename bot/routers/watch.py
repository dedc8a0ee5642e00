"""/watch: subscribe by a typed filter or by buttons; /subs: list, pause, edit, delete."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.callbacks import SubsCallback, WatchWizardCallback
from bot.i18n import Translator
from bot.replies import show
from monitor.subscriptions import Subscription
from monitor.watch_parse import WatchError, describe, parse_watch
from storage import Store
from storage.subscriptions import MAX_SUBSCRIPTIONS, SubscriptionLimitError

# The button flow offers the families people rent most; anything else can be typed.
WIZARD_FAMILIES = ("H100", "H200", "A100", "L40S", "RTX 4090", "RTX 5090", "RTX 3090", "T4")
WIZARD_PRICES = ("0", "100", "200", "300", "500")  # ₽ per GPU-hour; 0 = no limit
EDIT_PRICES = ("", "100", "150", "200", "250", "300", "400", "600")
MAX_ARGS = 200


def create_router() -> Router:
    router = Router(name="watch")
    router.message.register(on_watch, Command("watch"))
    router.message.register(on_subs, Command("subs"))
    router.callback_query.register(on_wizard, WatchWizardCallback.filter())
    router.callback_query.register(on_subs_button, SubsCallback.filter())
    return router


async def on_watch(
    message: Message, command: CommandObject, i18n: Translator, store: Store
) -> None:
    if not command.args:
        await message.answer(i18n("watch-wizard-gpu"), reply_markup=family_keyboard())
        return
    if len(command.args) > MAX_ARGS:
        await message.answer(i18n("watch-too-long", limit=MAX_ARGS))
        return
    assert message.chat is not None
    await message.answer(await subscribe(store, i18n, message.chat.id, command.args))


async def subscribe(store: Store, i18n: Translator, chat_id: int, text: str) -> str:
    try:
        watch = parse_watch(text)
    except WatchError as error:
        key = f"watch-error-{error.code}"
        return i18n(key if i18n.has(key) else "watch-error-bad_value", value=error.value or "")
    try:
        subscription = await store.add_subscription(chat_id, watch)
    except SubscriptionLimitError:
        return i18n("watch-limit", limit=MAX_SUBSCRIPTIONS)
    return i18n("watch-created", summary=describe(subscription.filter, i18n.language))


async def on_wizard(
    callback: CallbackQuery, callback_data: WatchWizardCallback, i18n: Translator, store: Store
) -> None:
    await callback.answer()
    family = callback_data.family
    if family not in WIZARD_FAMILIES:
        await show(callback, i18n("watch-error-unknown_gpu", value=family), None)
        return
    if not callback_data.max:
        await show(callback, i18n("watch-wizard-price", gpu=family), price_keyboard(family))
        return
    limit = "" if callback_data.max == "0" else f" max={callback_data.max}"
    assert callback.message is not None
    text = await subscribe(store, i18n, callback.message.chat.id, family + limit)
    await show(callback, text, None)


def family_keyboard() -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for family in WIZARD_FAMILIES:
        builder.button(text=family, callback_data=WatchWizardCallback(family=family))
    builder.adjust(4)
    return builder.as_markup()


def price_keyboard(family: str) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for price in WIZARD_PRICES:
        label = "∞" if price == "0" else f"≤ {price} ₽"
        builder.button(text=label, callback_data=WatchWizardCallback(family=family, max=price))
    builder.adjust(5)
    return builder.as_markup()


# --- /subs -----------------------------------------------------------------------------


async def on_subs(message: Message, i18n: Translator, store: Store) -> None:
    assert message.chat is not None
    text, keyboard = await subs_view(store, i18n, message.chat.id)
    await message.answer(text, reply_markup=keyboard)


async def subs_view(
    store: Store, i18n: Translator, chat_id: int
) -> tuple[str, InlineKeyboardMarkup | None]:
    subscriptions = await store.subscriptions_of(chat_id)
    if not subscriptions:
        return i18n("subs-empty"), None
    lines = [i18n("subs-title", count=len(subscriptions), limit=MAX_SUBSCRIPTIONS), ""]
    builder = InlineKeyboardBuilder()
    for number, sub in enumerate(subscriptions, start=1):
        lines.append(subs_line(i18n, number, sub))
        pause = "▶️" if sub.paused else "⏸"
        builder.button(
            text=f"{pause} {number}",
            callback_data=SubsCallback(action="resume" if sub.paused else "pause", sub=sub.id),
        )
        builder.button(text=f"✏️ {number}", callback_data=SubsCallback(action="edit", sub=sub.id))
        builder.button(text=f"🗑 {number}", callback_data=SubsCallback(action="delete", sub=sub.id))
    builder.adjust(3)
    return "\n".join(lines), builder.as_markup()


def subs_line(i18n: Translator, number: int, sub: Subscription) -> str:
    state = i18n("subs-paused") if sub.paused else ""
    return i18n("subs-line", number=number, summary=describe(sub.filter, i18n.language)) + state


async def on_subs_button(
    callback: CallbackQuery, callback_data: SubsCallback, i18n: Translator, store: Store
) -> None:
    assert callback.message is not None
    chat_id = callback.message.chat.id
    action, sub_id = callback_data.action, callback_data.sub
    owned = {sub.id for sub in await store.subscriptions_of(chat_id)}
    if sub_id not in owned:
        await callback.answer(i18n("subs-stale"), show_alert=True)
        return
    if action == "edit":
        await callback.answer()
        await show(callback, i18n("subs-edit-price"), edit_keyboard(sub_id))
        return
    if action in ("pause", "resume"):
        await store.set_paused(chat_id, sub_id, action == "pause")
    elif action == "delete":
        await store.delete_subscription(chat_id, sub_id)
    elif action == "price":
        value = float(callback_data.value) if callback_data.value else None
        await store.update_max_price(chat_id, sub_id, value)
    await callback.answer(i18n("settings-saved"))
    text, keyboard = await subs_view(store, i18n, chat_id)
    await show(callback, text, keyboard)


def edit_keyboard(sub_id: int) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for price in EDIT_PRICES:
        builder.button(
            text=f"≤ {price} ₽" if price else "∞",
            callback_data=SubsCallback(action="price", sub=sub_id, value=price),
        )
    builder.adjust(4)
    return builder.as_markup()
