"""Inline mode: "@bot h100" in any chat lists the best live offers; "@bot 13b qlora ctx=4096"
gives the short sizing answer, ready to send, with a button back to the bot.

Telegram sends an inline query as the user types, so an answer reads only what /prices and
/fit read, and says how long Telegram may cache it. A query that is neither gets one hint
result rather than silence (an empty answer shows the user nothing at all).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from datetime import UTC, datetime

from aiogram import Bot, Router
from aiogram.types import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQuery,
    InlineQueryResultArticle,
    InlineQueryResultUnion,
    InputTextMessageContent,
)

from bot.middlewares.user import initial_language
from bot.ports import BotStore
from bot.usecases.sizing import build
from bot.views.prices import gpu_header, offer_card, ranked, stale_text, stock_text
from estimator.fit_words import understand
from estimator.gpus import find_in_text, singular
from estimator.i18n import Translator
from estimator.number_text import money
from estimator.parse import ParsedQuery, QueryError
from estimator.query import METHOD_NAMES
from estimator.sizing_text import model_label, render_short, to_plain
from monitor.freshness import ObservedOffer
from monitor.price_query import parse_price_query
from monitor.providers import PROVIDERS
from monitor.users import DEFAULT_TIMEZONE, Language

# Telegram shows the first results in a strip above the keyboard; a phone sees about five.
# Ten is plenty and far under answerInlineQuery's 50.
MAX_OFFERS = 10
# Prices change once a scrape (10–15 min); a minute of Telegram's cache spares the database
# the keystrokes and shows a price at most a minute older than /prices would.
CACHE_S = 60
# An inline query is at most 256 characters (Bot API, InlineQuery.query).
MAX_QUERY = 256
# A result's title and description are plain text: to_plain undoes the translator's HTML.
# Words of a market question around a card's name: «где дешевле h100?», "cheapest a100".
_QUESTION = re.compile(
    r"\?|где|дешев|дешёв|почём|почем|сколько|цена|стоит|cheap|price|where|how much", re.I
)


def create_router() -> Router:
    router = Router(name="inline")
    router.inline_query.register(on_inline_query)
    return router


async def on_inline_query(
    inline_query: InlineQuery,
    bot: Bot,
    store: BotStore,
    translators: Mapping[Language, Translator],
    default_language: Language,
) -> None:
    i18n, timezone = await _reader(inline_query, store, translators, default_language)
    text = inline_query.query.strip()
    me = await bot.me()
    back = InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text=i18n("inline-open-bot"), url=f"https://t.me/{me.username}")]
        ]
    )
    results: list[InlineQueryResultUnion] = [*await _results(text, store, i18n, back, timezone)]
    # Personal: the language, and so the text, is the user's own.
    await inline_query.answer(results, cache_time=CACHE_S, is_personal=True)


async def _reader(
    inline_query: InlineQuery,
    store: BotStore,
    translators: Mapping[Language, Translator],
    default_language: Language,
) -> tuple[Translator, str]:
    """The user's chosen language and time zone if they have used the bot, else their
    Telegram language and the market's zone. An inline query names no chat, so the user
    middleware does not run for it."""
    sender = inline_query.from_user
    known = await store.get_user(sender.id)
    if known is not None:
        return translators[known.language], known.timezone
    language = initial_language(sender.language_code, default_language)
    return translators[language], DEFAULT_TIMEZONE


async def _results(
    text: str, store: BotStore, i18n: Translator, back: InlineKeyboardMarkup, timezone: str
) -> list[InlineQueryResultArticle]:
    if not text:
        return [_hint(i18n, i18n("inline-hint-title"), i18n("inline-hint-description"), back)]
    if len(text) > MAX_QUERY:
        return [_hint(i18n, i18n("inline-too-long", limit=MAX_QUERY), text[:60], back)]
    sizing_error: QueryError | None = None
    try:
        parsed = understand(text)
    except QueryError as error:
        parsed, sizing_error = None, error
    if parsed is not None:
        return [await _sizing(parsed, store, i18n, back)]
    try:
        query = parse_price_query(_market_words(text))
    except QueryError as error:
        # A query that starts with a card is a /prices one: its complaint, else the sizing's.
        named = error if find_in_text(text.split(maxsplit=1)[0]) else (sizing_error or error)
        # An unknown key's value is the key it is near, not what was written.
        unread = (named.key if named.code == "unknown_key" else named.value) or text
        description = to_plain(i18n("inline-error-description", words=unread[:40]))
        return [_hint(i18n, i18n("inline-error-title"), description, back)]
    offers = [item for item in await store.observed_offers() if query.accepts(item.offer)]
    if not offers:
        title = i18n("inline-no-offers-title")
        description = to_plain(i18n("inline-no-offers-description", query=text))
        return [_hint(i18n, title, description, back)]
    # Offers one can rent first (while their data counts: monitor.freshness), then the
    # /prices order; the cheapest rentable leads.
    order = sorted(ranked(offers), key=lambda item: not item.rentable)
    now = datetime.now(UTC)
    return [
        _offer_result(i18n, item, back, stale_text(i18n, item, now, timezone))
        for item in order[:MAX_OFFERS]
    ]


async def _sizing(
    parsed: ParsedQuery, store: BotStore, i18n: Translator, back: InlineKeyboardMarkup
) -> InlineQueryResultArticle:
    answer = await build(parsed, store)
    short = render_short(answer, i18n.language)
    title = i18n(
        "inline-fit-title", model=model_label(answer), method=METHOD_NAMES[answer.query.method]
    )
    return InlineQueryResultArticle(
        id=_result_id("fit", short),
        title=to_plain(title),
        description=to_plain(short.split("\n", 1)[0])[:120],
        input_message_content=InputTextMessageContent(message_text=short, parse_mode="HTML"),
        reply_markup=back,
    )


def _offer_result(
    i18n: Translator, item: ObservedOffer, back: InlineKeyboardMarkup, stale: str
) -> InlineQueryResultArticle:
    """One offer, ready to send; a stale one says so in the list and in the message."""
    offer = item.offer
    title = i18n(
        "inline-offer-title",
        gpu=offer.gpu,
        count=offer.gpu_count,
        price=money(offer.rub_per_gpu_hour, i18n.language),
    )
    description = i18n(
        "inline-offer-description",
        provider=PROVIDERS.name(offer.provider),
        location=offer.location,
        stock=to_plain(stock_text(i18n, offer)),
    )
    if stale:
        description = f"{description} · {stale}"
    text = f"{gpu_header(i18n, offer)}\n{offer_card(i18n, offer, stale)}"
    return InlineQueryResultArticle(
        id=_result_id("offer", "|".join(offer.key)),
        title=to_plain(title),
        description=to_plain(description),
        input_message_content=InputTextMessageContent(message_text=text, parse_mode="HTML"),
        reply_markup=back,
    )


def _market_words(text: str) -> str:
    """The /prices words of a query: itself, or in a question («где дешевле h100?», "cheapest
    a100 80gb") the card it names, from its first mention to its last (the memory with it)."""
    if not _QUESTION.search(text):
        return text
    mentions = find_in_text(text)
    if not mentions:
        return text
    return singular(text[mentions[0][1] : mentions[-1][2]])


def _hint(
    i18n: Translator, title: str, description: str, back: InlineKeyboardMarkup
) -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        id=_result_id("hint", title + description),
        title=to_plain(title),
        description=description[:120],
        input_message_content=InputTextMessageContent(
            message_text=i18n("inline-hint-text"), parse_mode="HTML"
        ),
        reply_markup=back,
    )


def _result_id(kind: str, content: str) -> str:
    """At most 64 bytes, the same for the same result (Telegram's cache keys on it)."""
    return f"{kind}:{hashlib.sha256(content.encode()).hexdigest()[:32]}"
