"""A model the catalog lacks, sized from its config.json: pasted as text or sent as a file.

A message that holds a JSON object with a model's fields (`looks_like_config`), or a .json
document of up to MAX_CONFIG_BYTES, is read by estimator.model_config; the words around the
JSON (or the document's caption) say the run, in the /fit grammar or as a question:
«lora ctx=8192». Without them it is the default run (QLoRA). The answer is the short /fit
answer under one line saying what was read from the file and what was assumed.

The answer has the /fit answer's «Подробнее» and «Следить» buttons, and is remembered as the
chat's last sizing with the model's shapes (bot.conversation), so that «а с ctx 8192?» or «а
на lora?» changes the run on the same model. A /fit command cannot name a model that exists
only in the user's file, so the buttons refer to the remembered sizing
(bot.routers.fit.BY_REFERENCE), and there is no share link and no other-method buttons.
"""

from __future__ import annotations

import io
import json
from typing import Any

from aiogram import F, Router
from aiogram.filters import Filter
from aiogram.types import Message

from bot.conversation import Conversations
from bot.ports import BotStore
from bot.routers.fit import answer_keyboard, error_text
from bot.sizing import build
from estimator.config_query import sizing_for_config
from estimator.i18n import Translator
from estimator.model_config import (
    MAX_CONFIG_BYTES,
    ConfigError,
    ConfigModel,
    looks_like_config,
    read_config,
)
from estimator.parse import QueryError
from estimator.parsing.language import reply_language
from estimator.sizing_text import render_short
from monitor.users import User

# Of the file's assumptions, how many the answer lists (a phone screen; the rest are minor).
SHOWN_ASSUMPTIONS = 3


class PastedConfig(Filter):
    """Text holding one JSON object with a model's fields; hands over the object and the
    words around it."""

    async def __call__(self, message: Message) -> bool | dict[str, Any]:
        text = message.text or ""
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start or text.startswith("/"):
            return False
        try:
            data = json.loads(text[start : end + 1])
        except ValueError:
            return False
        if not looks_like_config(data):
            return False
        return {"config": data, "run_text": f"{text[:start]} {text[end + 1 :]}".strip()}


def _is_json_document(message: Message) -> bool:
    document = message.document
    if document is None:
        return False
    name = (document.file_name or "").lower()
    return name.endswith(".json") or document.mime_type == "application/json"


def create_router() -> Router:
    router = Router(name="model_config")
    router.message.register(on_pasted_config, F.text, PastedConfig())
    router.message.register(on_config_document, F.document, _is_json_document)
    return router


async def on_pasted_config(
    message: Message,
    config: dict[str, Any],
    run_text: str,
    translators: dict[str, Translator],
    i18n: Translator,
    user: User,
    store: BotStore,
    conversations: Conversations,
) -> None:
    await _answer(message, config, run_text, translators, i18n, user, store, conversations)


async def on_config_document(
    message: Message,
    translators: dict[str, Translator],
    i18n: Translator,
    user: User,
    store: BotStore,
    conversations: Conversations,
) -> None:
    document = message.document
    assert document is not None  # the filter let only documents in
    caption = message.caption or ""
    local = translators.get(reply_language(caption, user.language), i18n)
    if (document.file_size or 0) > MAX_CONFIG_BYTES or message.bot is None:
        await message.answer(local("config-too-big", limit=MAX_CONFIG_BYTES // 1024))
        return
    buffer = io.BytesIO()
    await message.bot.download(document, destination=buffer)
    await _answer(
        message, buffer.getvalue(), caption, translators, i18n, user, store, conversations
    )


async def _answer(
    message: Message,
    config: dict[str, Any] | bytes,
    run_text: str,
    translators: dict[str, Translator],
    i18n: Translator,
    user: User,
    store: BotStore,
    conversations: Conversations,
) -> None:
    language = reply_language(run_text, user.language)
    local = translators.get(language, i18n)
    try:
        model = read_config(config)
    except ConfigError as error:
        await message.answer(config_error_text(local, error))
        return
    try:
        parsed = sizing_for_config(model.spec, run_text)
    except QueryError as error:
        await message.answer(error_text(local, error, run_text))
        return
    answer = await build(parsed, store)
    await conversations.remember(message.chat.id, parsed, language)
    keyboard = answer_keyboard(parsed, local, language, answer=answer)
    text = f"{model_line(local, model)}\n\n{render_short(answer, language)}"
    await message.answer(text, reply_markup=keyboard)


def model_line(i18n: Translator, model: ConfigModel) -> str:
    """What was read: name, size, layers, widths, experts; then what was assumed."""
    spec = model.spec
    line = i18n(
        "config-model",
        name=spec.id,
        params=f"{spec.params_b:.1f}",
        layers=spec.layers,
        hidden=spec.hidden,
        heads=spec.heads,
        kv_heads=spec.kv_heads,
        vocab=spec.vocab,
        experts=spec.experts if spec.experts > 1 else 0,
        active=spec.active_experts,
    )
    if model.assumed:
        shown = "; ".join(item.say(i18n) for item in model.assumed[:SHOWN_ASSUMPTIONS])
        line += "\n" + i18n("config-assumed", assumed=shown)
    return line


def config_error_text(i18n: Translator, error: ConfigError) -> str:
    key = {"missing": "config-missing", "not_config": "config-not-config"}.get(
        error.problem, "config-wrong"
    )
    return i18n(key, field=error.key or "", reason=error.reason[:200])
