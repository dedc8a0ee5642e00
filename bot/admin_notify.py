"""Provider alarms to the operators: one message per admin, never an exception to the caller.

`alarm_hook` is the piece the scheduler takes as its outcome hook: it feeds every pipeline
outcome to a `ProviderAlarms` and messages the admins on the outcomes that change something.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Mapping

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError

from bot.config import Settings
from bot.views.provider_health import MAX_ERROR_CHARS, trim
from estimator.i18n import Translator
from monitor.alarms import DEFAULT_THRESHOLD, AlarmEvent, AlarmKind, ProviderAlarms
from monitor.pipeline import PipelineOutcome
from monitor.providers import PROVIDERS
from monitor.users import Language

logger = logging.getLogger("gpuradar.admin")

OutcomeHook = Callable[[PipelineOutcome], Awaitable[None]]


def alarm_text(i18n: Translator, event: AlarmEvent) -> str:
    provider = PROVIDERS.name(event.provider)
    if event.kind is AlarmKind.RECOVERED:
        return i18n("admin-alarm-recovered", provider=provider, failures=event.failures)
    return i18n(
        "admin-alarm-failing",
        provider=provider,
        failures=event.failures,
        error_class=trim(event.error_class or "?", 60),
        error=trim(event.error or "", MAX_ERROR_CHARS),
    )


async def notify_admins(
    bot: Bot,
    admin_ids: Collection[int],
    event: AlarmEvent,
    translators: Mapping[Language, Translator],
    default_language: Language,
) -> int:
    """Send the event to every admin; returns how many messages went out.

    A chat that fails (blocked the bot, never started it, Telegram down) is logged and
    skipped, so one bad admin id cannot keep the others from hearing about the outage.
    """
    text = alarm_text(translators[default_language], event)
    sent = 0
    for admin_id in sorted(admin_ids):
        try:
            await bot.send_message(admin_id, text)
        except TelegramAPIError as error:
            logger.warning(
                "could not tell admin %s that %s is %s: %s",
                admin_id,
                event.provider,
                event.kind,
                error,
            )
        else:
            sent += 1
    return sent


def alarm_hook(
    bot: Bot,
    settings: Settings,
    translators: Mapping[Language, Translator],
    *,
    threshold: int = DEFAULT_THRESHOLD,
) -> OutcomeHook:
    """An `on_outcome` hook: admins hear once when a provider has failed `threshold` refreshes
    in a row and once when it next succeeds. With no admins configured it only keeps count."""
    alarms = ProviderAlarms(threshold)

    async def on_outcome(outcome: PipelineOutcome) -> None:
        event = alarms.observe(outcome)
        if event is None:
            return
        logger.warning(
            "provider %s is %s (%d failures)", event.provider, event.kind, event.failures
        )
        if settings.admin_ids:
            await notify_admins(
                bot, settings.admin_ids, event, translators, settings.default_language
            )

    return on_outcome
