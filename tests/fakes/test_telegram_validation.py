"""The fake Telegram validates what Telegram does: texts, buttons, markup, captions, edits."""

import json
from typing import Any

import pytest
from aiogram import Bot
from aiogram.exceptions import (
    TelegramBadRequest,
)
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllPrivateChats,
    BufferedInputFile,
    InlineKeyboardButton,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
)

from tests.fakes.helpers import CHAT, ERR, keyboard, raw_call
from tests.fakes.telegram import FakeTelegram


async def expect_bad_request(coro: Any, description: str) -> None:
    with pytest.raises(TelegramBadRequest) as caught:
        await coro
    assert caught.value.message == description


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("x" * 4096, True),
        ("x" * 4097, False),
        ("😀" * 2048, True),  # 4096 UTF-16 code units
        ("😀" * 2048 + "x", False),
        ("<b>" + "x" * 4096 + "</b>", True),  # tags do not count
        ("&lt;" * 4096, True),  # an entity counts as one character
        ("&lt;" * 4097, False),
    ],
)
async def test_text_length_after_parsing(bot: Bot, text: str, ok: bool) -> None:
    if ok:
        await bot.send_message(CHAT, text)
    else:
        await expect_bad_request(bot.send_message(CHAT, text), "Bad Request: message is too long")


@pytest.mark.parametrize("text", ["", "   ", "<b> </b>"])
async def test_empty_text(bot: Bot, text: str) -> None:
    await expect_bad_request(bot.send_message(CHAT, text), "Bad Request: message text is empty")


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("<div>no</div>", 'Unsupported start tag "div" at byte offset 0'),
        ("<b>open", 'Can\'t find end tag corresponding to start tag "b"'),
        ("close</i>", "Unexpected end tag at byte offset 5"),
        ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
        ("R&D", 'Unsupported HTML entity at byte offset 1 (escape a bare "&" as "&amp;")'),
    ],
)
async def test_bad_html_is_rejected(bot: Bot, text: str, error: str) -> None:
    await expect_bad_request(bot.send_message(CHAT, text), ERR + error)


async def test_html_is_not_parsed_without_parse_mode(bot: Bot, tg: FakeTelegram) -> None:
    await bot.send_message(CHAT, "<div> & </div>", parse_mode=None)
    assert tg.last_message(CHAT).plain_text == "<div> & </div>"


async def test_sent_message_keeps_raw_and_plain_text(bot: Bot, tg: FakeTelegram) -> None:
    sent = await bot.send_message(CHAT, "<b>Price</b> &lt;100 ₽")
    assert sent.text == "Price <100 ₽"
    assert sent.entities is not None
    assert sent.entities[0].type == "bold"
    stored = tg.last_message(CHAT)
    assert (stored.text, stored.plain_text, stored.parse_mode) == (
        "<b>Price</b> &lt;100 ₽",
        "Price <100 ₽",
        "HTML",
    )


async def test_callback_data_limit_is_in_bytes(bot: Bot) -> None:
    fits = "я" * 32  # 64 bytes of UTF-8
    await bot.send_message(
        CHAT, "ok", reply_markup=keyboard(InlineKeyboardButton(text="b", callback_data=fits))
    )
    await expect_bad_request(
        bot.send_message(
            CHAT,
            "too long",
            reply_markup=keyboard(InlineKeyboardButton(text="b", callback_data=fits + "a")),
        ),
        "Bad Request: BUTTON_DATA_INVALID",
    )


BUTTON = "Bad Request: can't parse inline keyboard button: "


def one_button(**button: Any) -> dict[str, Any]:
    return {"inline_keyboard": [[button]]}


@pytest.mark.parametrize(
    ("markup", "description"),
    [
        ("not json", "Bad Request: can't parse reply keyboard markup JSON object"),
        ("[1]", "Bad Request: can't parse reply keyboard markup JSON object"),
        (
            {"inline_keyboard": [{"text": "a", "callback_data": "a"}]},
            'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup '
            "must be an Array of Arrays",
        ),
        (one_button(text="a"), BUTTON + "Text buttons are unallowed in the inline keyboard"),
        (one_button(text="", callback_data="a"), BUTTON + "button text must be non-empty"),
        (one_button(callback_data="a"), BUTTON + 'Field "text" must be of type String'),
        (
            one_button(text="a", callback_data="a", url="https://x.y"),
            BUTTON
            + "exactly one of the optional fields must be used, got ['callback_data', 'url']",
        ),
        (one_button(text="a", callback_data=""), "Bad Request: BUTTON_DATA_INVALID"),
        (one_button(text="a", url="ftp://x.y"), "Bad Request: BUTTON_URL_INVALID"),
        (one_button(text="a", url="https://"), "Bad Request: BUTTON_URL_INVALID"),
        (
            {"inline_keyboard": [[{"text": str(i), "callback_data": "x"}] for i in range(101)]},
            "Bad Request: reply markup is too long",
        ),
    ],
)
async def test_bad_reply_markup(tg: FakeTelegram, markup: Any, description: str) -> None:
    raw = markup if isinstance(markup, str) else json.dumps(markup)
    status, body = await raw_call(
        tg, "sendMessage", data={"chat_id": "1", "text": "t", "reply_markup": raw}
    )
    assert (status, body["description"]) == (400, description)


@pytest.mark.parametrize(
    "button",
    [
        {"text": "site", "url": "https://example.com/x?y=1"},
        {"text": "profile", "url": "tg://user?id=1"},
        {"text": "copy", "copy_text": {"text": "code"}},
        {"text": "share", "switch_inline_query": ""},
    ],
)
async def test_good_buttons(tg: FakeTelegram, button: dict[str, Any]) -> None:
    markup = json.dumps({"inline_keyboard": [[button]]})
    status, body = await raw_call(
        tg, "sendMessage", data={"chat_id": "1", "text": "t", "reply_markup": markup}
    )
    assert status == 200, body


async def test_reply_keyboard_is_accepted_but_not_echoed(tg: FakeTelegram) -> None:
    markup = json.dumps({"keyboard": [["Yes", {"text": "No"}]], "resize_keyboard": True})
    status, body = await raw_call(
        tg, "sendMessage", data={"chat_id": "1", "text": "t", "reply_markup": markup}
    )
    assert status == 200, body
    assert "reply_markup" not in body["result"]


@pytest.mark.parametrize(
    ("chat_id", "description"),
    [("@some_channel", "Bad Request: chat not found"), ("", "Bad Request: chat_id is empty")],
)
async def test_chat_id_must_be_an_integer(tg: FakeTelegram, chat_id: str, description: str) -> None:
    status, body = await raw_call(tg, "sendMessage", data={"chat_id": chat_id, "text": "t"})
    assert (status, body["description"]) == (400, description)


async def test_caption_limit(bot: Bot) -> None:
    photo = BufferedInputFile(b"img", "a.png")
    await bot.send_photo(CHAT, photo, caption="c" * 1024)
    await expect_bad_request(
        bot.send_photo(CHAT, photo, caption="c" * 1025), "Bad Request: message caption is too long"
    )


async def test_photo_is_required(tg: FakeTelegram) -> None:
    status, body = await raw_call(tg, "sendPhoto", data={"chat_id": "1", "photo": "attach://x"})
    assert (status, body["description"]) == (400, "Bad Request: there is no photo in the request")


async def test_chat_action(bot: Bot, tg: FakeTelegram) -> None:
    assert await bot.send_chat_action(CHAT, "typing") is True
    status, body = await raw_call(tg, "sendChatAction", data={"chat_id": "1", "action": "dance"})
    assert (status, body["description"]) == (400, "Bad Request: wrong parameter action in request")


async def test_answer_callback_query_rules(tg: FakeTelegram, bot: Bot) -> None:
    await bot.send_message(
        CHAT, "m", reply_markup=keyboard(InlineKeyboardButton(text="b", callback_data="b"))
    )
    tg.press(CHAT, "b")
    (update,) = await bot.get_updates()
    assert update.callback_query is not None
    query_id = update.callback_query.id
    assert update.callback_query.message is not None
    await expect_bad_request(
        bot.answer_callback_query(query_id, text="x" * 201), "Bad Request: MESSAGE_TOO_LONG"
    )
    assert await bot.answer_callback_query(query_id, text="x" * 200) is True
    assert tg.callbacks[0].answer == {"callback_query_id": query_id, "text": "x" * 200}
    await expect_bad_request(
        bot.answer_callback_query(query_id),
        "Bad Request: query is too old and response timeout expired or query ID is invalid",
    )


async def test_commands_per_scope_and_language(bot: Bot) -> None:
    ru = [BotCommand(command="start", description="Начать")]
    en = [
        BotCommand(command="start", description="Start"),
        BotCommand(command="help", description="Help"),
    ]
    private = BotCommandScopeAllPrivateChats()
    assert await bot.set_my_commands(ru, language_code="ru") is True
    assert await bot.set_my_commands(en, scope=private, language_code="en") is True

    async def commands(**kwargs: Any) -> list[tuple[str, str]]:
        return [(c.command, c.description) for c in await bot.get_my_commands(**kwargs)]

    assert await commands(language_code="ru") == [("start", "Начать")]
    assert await commands(scope=private, language_code="en") == [
        ("start", "Start"),
        ("help", "Help"),
    ]
    assert await commands() == []  # no fallback: exactly what was set for scope + language
    assert await bot.delete_my_commands(language_code="ru") is True
    assert await commands(language_code="ru") == []
    await expect_bad_request(
        bot.set_my_commands([BotCommand(command="Bad-Name", description="x")]),
        "Bad Request: BOT_COMMAND_INVALID",
    )


NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)


async def test_edit_flow(tg: FakeTelegram, bot: Bot) -> None:
    markup = keyboard(InlineKeyboardButton(text="More", callback_data="more"))
    sent = await bot.send_message(CHAT, "<b>v1</b>", reply_markup=markup)
    edited = await bot.edit_message_text(
        text="<b>v2</b>", chat_id=CHAT, message_id=sent.message_id, reply_markup=markup
    )
    assert isinstance(edited, Message)
    assert (edited.text, edited.edit_date is not None) == ("v2", True)
    stored = tg.last_message(CHAT)
    assert (stored.text, stored.plain_text, stored.edited) == ("<b>v2</b>", "v2", True)
    assert [b.text for b in tg.buttons(stored)] == ["More"]

    await expect_bad_request(
        bot.edit_message_text(
            text="<b>v2</b>", chat_id=CHAT, message_id=sent.message_id, reply_markup=markup
        ),
        NOT_MODIFIED,
    )
    # Same text but no reply_markup: Telegram removes the keyboard, so this is a change.
    await bot.edit_message_text(text="<b>v2</b>", chat_id=CHAT, message_id=sent.message_id)
    assert tg.last_message(CHAT).reply_markup is None
    # Same words, different formatting: modified.
    await bot.edit_message_text(text="v2", chat_id=CHAT, message_id=sent.message_id)

    await bot.edit_message_reply_markup(
        chat_id=CHAT, message_id=sent.message_id, reply_markup=markup
    )
    await expect_bad_request(
        bot.edit_message_reply_markup(
            chat_id=CHAT, message_id=sent.message_id, reply_markup=markup
        ),
        NOT_MODIFIED,
    )
    assert len(tg.messages(CHAT)) == 1


async def test_edit_rules(tg: FakeTelegram, bot: Bot) -> None:
    await expect_bad_request(
        bot.edit_message_text(text="x", chat_id=CHAT, message_id=999),
        "Bad Request: message to edit not found",
    )
    tg.push_message(CHAT, "user text")
    user_message_id = tg.user_messages(CHAT)[0].message_id
    await expect_bad_request(
        bot.edit_message_text(text="x", chat_id=CHAT, message_id=user_message_id),
        "Bad Request: message can't be edited",
    )
    sent = await bot.send_message(CHAT, "short")
    await expect_bad_request(
        bot.edit_message_text(text="x" * 4097, chat_id=CHAT, message_id=sent.message_id),
        "Bad Request: message is too long",
    )
    await expect_bad_request(
        bot.edit_message_text(text="<p>x</p>", chat_id=CHAT, message_id=sent.message_id),
        ERR + 'Unsupported start tag "p" at byte offset 0',
    )
    photo = await bot.send_photo(CHAT, BufferedInputFile(b"img", "a.png"))
    await expect_bad_request(
        bot.edit_message_text(text="x", chat_id=CHAT, message_id=photo.message_id),
        "Bad Request: there is no text in the message to edit",
    )
    await bot.edit_message_caption(chat_id=CHAT, message_id=photo.message_id, caption="<i>c</i>")
    assert tg.last_message(CHAT).plain_text == "c"


async def test_delete_message(tg: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_message(CHAT, "bye")
    assert await bot.delete_message(CHAT, sent.message_id) is True
    assert tg.messages(CHAT) == []
    assert tg.messages(CHAT, include_deleted=True)[0].deleted
    await expect_bad_request(
        bot.delete_message(CHAT, sent.message_id), "Bad Request: message to delete not found"
    )
    await expect_bad_request(
        bot.edit_message_text(text="x", chat_id=CHAT, message_id=sent.message_id),
        "Bad Request: message to edit not found",
    )


async def test_message_ids_are_shared_per_chat(tg: FakeTelegram, bot: Bot) -> None:
    tg.push_message(CHAT, "hi")
    first = await bot.send_message(CHAT, "a")
    other = await bot.send_message(CHAT + 1, "b")
    assert (first.message_id, other.message_id) == (2, 1)


def article(result_id: str, text: str = "hi") -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        id=result_id, title="t", input_message_content=InputTextMessageContent(message_text=text)
    )


async def test_inline_answers_are_checked_like_telegram(bot: Bot, tg: FakeTelegram):
    too_many = tg.push_inline_query(7, "h100")
    await expect_bad_request(
        bot.answer_inline_query(too_many, [article(str(i)) for i in range(51)]),
        "Bad Request: RESULTS_TOO_MUCH",
    )
    twins = tg.push_inline_query(7, "h100")
    await expect_bad_request(
        bot.answer_inline_query(twins, [article("a"), article("a")]),
        "Bad Request: RESULT_ID_DUPLICATE",
    )
    await expect_bad_request(
        bot.answer_inline_query(twins, [article("x" * 65)]), "Bad Request: RESULT_ID_INVALID"
    )
    await expect_bad_request(
        bot.answer_inline_query(twins, [article("long", "x" * 4097)]),
        "Bad Request: message is too long",
    )
    assert await bot.answer_inline_query(twins, [article(str(i)) for i in range(50)])
    assert tg.inline_answer(twins).results is not None
    # Answered once: a second answer is too late, as with callbacks.
    await expect_bad_request(
        bot.answer_inline_query(twins, [article("b")]),
        "Bad Request: query is too old and response timeout expired or query ID is invalid",
    )
