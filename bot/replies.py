"""Answering a callback's message: edit it in place when possible, else send a new one."""

from __future__ import annotations

from aiogram.exceptions import TelegramBadRequest
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, LinkPreviewOptions, Message


async def show(
    callback: CallbackQuery,
    text: str,
    markup: InlineKeyboardMarkup | None,
    *,
    preview: bool = True,
) -> None:
    """Replace the menu the button belongs to; messages older than 48 h can't be edited.

    `preview=False` keeps Telegram from adding a link preview (a list full of offer links).
    """
    message = callback.message
    options = None if preview else LinkPreviewOptions(is_disabled=True)
    if isinstance(message, Message):
        try:
            await message.edit_text(text, reply_markup=markup, link_preview_options=options)
        except TelegramBadRequest as error:
            # A double tap re-renders the same view; Telegram rejects that as "not modified".
            if "message is not modified" not in error.message:
                raise
        return
    if callback.bot is not None and message is not None:
        await callback.bot.send_message(
            message.chat.id, text, reply_markup=markup, link_preview_options=options
        )
