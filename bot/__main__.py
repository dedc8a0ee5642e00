"""`python -m bot`, what `make run` calls: check settings, then serve Telegram or the console.

GPURADAR_MODE picks console, polling or webhook. Unset, it is console when stdin is a
terminal and there is no token, polling with a token; no token and no terminal (a container
started without one) exits 2 with one line saying a token is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
from collections.abc import Iterator

from bot.config import ConfigError, Settings, load_settings, resolve_mode

EXIT_CONFIG = 2  # bad configuration, or start-up gave up
EXIT_CRASH = 1  # the running bot stopped on an error


async def serve_telegram(settings: Settings) -> None:
    from bot.app import build_application
    from bot.startup import reach_telegram

    assert settings.bot_token is not None
    token = settings.bot_token.get_secret_value()
    with starting():
        application = await build_application(
            settings,
            token=token,
            api_url=settings.telegram_api_url,
            warm_charts=settings.chart_warm_up,
        )
    try:
        with starting():
            await reach_telegram(application.bot, settings, budget_s=settings.startup_retry_s)
        if settings.mode == "webhook":
            await application.run_webhook()
        else:
            await application.run_polling()
    finally:
        await application.close()


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """Any failure inside is a start-up failure (exit 2): the known kinds pass as they are,
    anything else (aiohttp's InvalidURL, ...) becomes a StartupError with its one line."""
    from aiogram.exceptions import TelegramUnauthorizedError

    from bot.logging_setup import one_line
    from bot.startup import StartupError

    try:
        yield
    except (ConfigError, StartupError, TelegramUnauthorizedError):
        raise
    except Exception as error:
        raise StartupError(one_line(error)) from error


def main(*, own_process: bool = False) -> int:
    """`own_process`: main() is this process's whole life (`python -m bot`), not a call in
    someone else's (tests/in_process.py)."""
    try:
        settings = resolve_mode(load_settings(), interactive=_interactive())
    except ConfigError as error:
        print(f"gpuradar: {error}", file=sys.stderr)
        return EXIT_CONFIG
    if own_process:
        # No cyclic collection while importing: aiogram builds hundreds of pydantic models,
        # whose allocations set off full collections that find next to nothing (a tenth of
        # the import's CPU time, before the first reply). Frozen below, then collected again.
        gc.disable()
    # Imported only now: a bad setting is reported before aiogram's second of import time.
    from aiogram.exceptions import TelegramUnauthorizedError

    from bot.console import run_console
    from bot.logging_setup import configure_console_logging, configure_logging, one_line, redact
    from bot.startup import StartupError

    if own_process:
        # What the imports made (aiogram's hundreds of models) lives as long as the process:
        # frozen, the cyclic collector never walks it again, neither at each full collection
        # nor at exit, where walking it took about a second of CPU after SIGTERM.
        gc.freeze()
        gc.enable()
    secrets = settings.secrets
    if settings.console_mode:
        # stdout is the chat: logs go to a file, warnings and errors to stderr once each.
        log_file = settings.console_log_file
        try:
            configure_console_logging(settings.log_level, secrets, log_file)
        except OSError as error:
            print(f"gpuradar: cannot write the log file {log_file}: {error}", file=sys.stderr)
            return EXIT_CONFIG
    else:
        configure_logging(settings.log_level, secrets)
    try:
        if settings.console_mode:
            return asyncio.run(run_console(settings, sys.stdin, sys.stdout))
        asyncio.run(serve_telegram(settings))
    except ConfigError as error:
        print(f"gpuradar: {error}", file=sys.stderr)
        return EXIT_CONFIG
    except TelegramUnauthorizedError:
        print("gpuradar: Telegram rejected GPURADAR_BOT_TOKEN (401 Unauthorized)", file=sys.stderr)
        return EXIT_CONFIG
    except StartupError as error:
        print(f"gpuradar: {redact(str(error), secrets)}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        pass
    except Exception as error:
        # One line, never the traceback: aiohttp's errors carry the request URL, and with it
        # the token; whatever else they carry is redacted too.
        print(f"gpuradar: stopped: {redact(one_line(error), secrets)}", file=sys.stderr)
        return EXIT_CRASH
    return 0


def _interactive() -> bool:
    """Is stdin a terminal someone types into (not /dev/null in a container, not a pipe)?"""
    return sys.stdin is not None and sys.stdin.isatty()


if __name__ == "__main__":
    sys.exit(main(own_process=True))
