"""/watch: subscribe by a typed filter or by buttons; /subs: list, pause, edit, delete."""

from __future__ import annotations

import re

from aiogram import F, Router
from aiogram.filters import Command, CommandObject
from aiogram.fsm.context import FSMContext
from aiogram.fsm.state import State, StatesGroup
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder

from bot.button_data import SubsCallback, WatchWizardCallback
from bot.fields import FieldError, read_amount, read_price
from bot.ports import BotStore
from bot.replies import show
from bot.usecases.watches import (
    subscribe,
)
from bot.views.price_caps import cap_choices
from bot.views.watches import subs_view
from estimator.i18n import Html, Translator
from estimator.number_text import money
from monitor.match_rules import offer_meets
from monitor.subscriptions import (
    Subscription,
    WatchEdit,
    with_max_price,
)
from monitor.users import User
from monitor.watch_describe import short_label

# The button flow offers the families people rent most; anything else can be typed.
WIZARD_FAMILIES = ("H100", "H200", "A100", "L40S", "RTX 4090", "RTX 5090", "RTX 3090", "T4")
WIZARD_PRICES = ("0", "100", "200", "300", "500")  # ₽ per GPU-hour; 0 = no limit
# The highest cap a typed value may set, as /watch max= allows (monitor.watch_words).
MAX_TYPED_PRICE = 1_000_000
# A typed cap: «450», «450 ₽», «1 200,5 руб»; anything else is left to the other routers.
_TYPED_PRICE = re.compile(
    r"^\s*-?\d[\d\s\u00a0\u202f]*(?:[.,]\d+)?\s*(?:₽|р\.?|руб\.?|rub)?\s*$", re.I
)
MAX_ARGS = 200


class SubsEdit(StatesGroup):
    """«✏️» pressed: the chat's next number is the new cap of the subscription in the state
    data. aiogram keeps it per chat and user; the number is checked against the chat's own
    subscriptions again when it arrives, and a lost state only means the number is not read
    as a price (the editor's buttons still work)."""

    price = State()


def create_router() -> Router:
    router = Router(name="watch")
    router.message.register(on_watch, Command("watch"))
    router.message.register(on_subs, Command("subs"))
    router.callback_query.register(on_wizard, WatchWizardCallback.filter())
    router.callback_query.register(on_subs_button, SubsCallback.filter())
    router.message.register(on_typed_price, SubsEdit.price, F.text.regexp(_TYPED_PRICE))
    return router


async def on_watch(
    message: Message, command: CommandObject, i18n: Translator, store: BotStore
) -> None:
    if not command.args:
        await message.answer(i18n("watch-wizard-gpu"), reply_markup=family_keyboard())
        return
    if len(command.args) > MAX_ARGS:
        await message.answer(i18n("watch-too-long", limit=MAX_ARGS))
        return
    assert message.chat is not None
    await message.answer(await subscribe(store, i18n, message.chat.id, command.args))


async def on_wizard(
    callback: CallbackQuery,
    callback_data: WatchWizardCallback,
    i18n: Translator,
    store: BotStore,
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


async def on_subs(message: Message, i18n: Translator, store: BotStore, user: User) -> None:
    assert message.chat is not None
    text, keyboard = await subs_view(store, i18n, message.chat.id, user.timezone)
    await message.answer(text, reply_markup=keyboard)


async def on_subs_button(
    callback: CallbackQuery,
    callback_data: SubsCallback,
    i18n: Translator,
    store: BotStore,
    user: User,
    state: FSMContext,
) -> None:
    assert callback.message is not None
    chat_id = callback.message.chat.id
    action, sub_id = callback_data.action, callback_data.sub
    subscriptions = await store.subscriptions_of(chat_id)
    owned = {sub.id: sub for sub in subscriptions}
    if sub_id not in owned or action not in _TOASTS:
        await callback.answer(i18n("subs-stale"), show_alert=True)
        return
    if action == "edit":
        await callback.answer()
        await state.set_state(SubsEdit.price)
        await state.update_data(sub=sub_id)
        number = [sub.id for sub in subscriptions].index(sub_id) + 1
        editor, editor_keyboard = await edit_view(store, i18n, number, owned[sub_id])
        await show(callback, editor, editor_keyboard)
        return
    await state.clear()
    if action == "back":
        await callback.answer()
        text, keyboard = await subs_view(store, i18n, chat_id, user.timezone)
        await show(callback, text, keyboard)
        return
    # Toasts are plain text: Html() only stops the Translator escaping the label.
    label = Html(short_label(owned[sub_id].filter))
    price = ""
    if action in ("pause", "resume"):
        await store.edit_watch(chat_id, sub_id, WatchEdit(paused=action == "pause"))
    elif action == "delete":
        await store.delete_watch(chat_id, sub_id)
    elif action == "price":
        value = _price(callback_data.value)
        updated = await store.edit_watch(chat_id, sub_id, WatchEdit.new_cap(value))
        if updated is not None:
            label = Html(short_label(updated.filter))
        price = money(value, i18n.language) if value is not None else ""
    toast = _TOASTS[action] if action != "price" or price else "subs-toast-price-off"
    await callback.answer(i18n(toast, label=label, max=price))
    text, keyboard = await subs_view(store, i18n, chat_id, user.timezone)
    await show(callback, text, keyboard)


# What each /subs button did, said in its toast.
_TOASTS = {
    "pause": "subs-toast-paused",
    "resume": "subs-toast-resumed",
    "delete": "subs-toast-deleted",
    "price": "subs-toast-price",
    "edit": "",
    "back": "",
}


def _price(value: str) -> float | None:
    try:
        price = float(value) if value else None
    except ValueError:
        return None
    return price if price is not None and price > 0 else None


async def edit_view(
    store: BotStore, i18n: Translator, number: int, sub: Subscription
) -> tuple[str, InlineKeyboardMarkup]:
    """The cap now, the steps (as high as what the watch follows costs now), «Назад»."""
    uncapped = with_max_price(sub.filter, None)
    prices = [
        item.offer.rub_per_gpu_hour
        for item in await store.observed_offers()
        if offer_meets(uncapped, item.offer)
    ]
    cap = sub.filter.max_rub_per_gpu_hour
    label = short_label(sub.filter)  # a message, not a toast: the Translator escapes it
    current = (
        i18n("subs-edit-current", number=number, label=label, max=money(cap, i18n.language))
        if cap is not None
        else i18n("subs-edit-current-none", number=number, label=label)
    )
    text = "\n".join([i18n("subs-edit-price"), current, i18n("subs-edit-type")])
    return text, edit_keyboard(i18n, sub.id, cap_choices(prices), cap)


def edit_keyboard(
    i18n: Translator, sub_id: int, steps: tuple[int, ...], current: float | None
) -> InlineKeyboardMarkup:
    builder = InlineKeyboardBuilder()
    for step in steps:
        mark = "• " if current == step else ""
        builder.button(
            text=f"{mark}≤ {money(step, i18n.language)} ₽",
            callback_data=SubsCallback(action="price", sub=sub_id, value=str(step)),
        )
    builder.button(
        text=("• " if current is None else "") + "∞",
        callback_data=SubsCallback(action="price", sub=sub_id, value=""),
    )
    builder.button(
        text=i18n("subs-edit-back"), callback_data=SubsCallback(action="back", sub=sub_id)
    )
    builder.adjust(4)
    return builder.as_markup()


def typed_price(text: str) -> float | None:
    """«450», «1 200,5 ₽» -> 450.0, 1200.5; «0» -> 0.0 (no cap); None when it is not a
    usable price (negative, or above MAX_TYPED_PRICE). Read as the Mini App's cap field is
    (bot.fields.read_price)."""
    if read_amount(text.strip()) == 0:
        return 0.0
    try:
        return read_price(text, "cap", high=MAX_TYPED_PRICE)
    except FieldError:
        return None


async def on_typed_price(
    message: Message, i18n: Translator, store: BotStore, user: User, state: FSMContext
) -> None:
    assert message.chat is not None
    chat_id = message.chat.id
    sub_id = (await state.get_data()).get("sub")
    value = typed_price(message.text or "")
    if value is None:
        await message.answer(i18n("subs-edit-bad", limit=money(MAX_TYPED_PRICE, i18n.language)))
        return
    cap = value or None  # 0: no cap
    updated = (
        await store.edit_watch(chat_id, sub_id, WatchEdit.new_cap(cap))
        if isinstance(sub_id, int)
        else None
    )
    await state.clear()
    if updated is None:  # deleted meanwhile, or a state from before a restart
        await message.answer(i18n("subs-stale"))
        return
    label = short_label(updated.filter)  # a message: the Translator escapes it
    toast = (
        i18n("subs-toast-price", label=label, max=money(cap, i18n.language))
        if cap is not None
        else i18n("subs-toast-price-off", label=label)
    )
    text, keyboard = await subs_view(store, i18n, chat_id, user.timezone)
    await message.answer(f"{toast}\n\n{text}", reply_markup=keyboard)
