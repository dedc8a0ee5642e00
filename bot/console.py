"""Console mode: the real application, talking to one local user over stdin and stdout.

With no bot token, the bot runs unchanged against the in-process fake Bot API. Each input line
becomes a message from the local user, each reply is printed as plain text with its buttons
numbered, and `#N` presses button N. Lines are handled one at a time (the next one is pushed
only once the bot has confirmed the previous update), so piped input gives the same output
as typing.
"""

from __future__ import annotations

import asyncio
import getpass
import logging
import re
import sys
import threading
from dataclasses import dataclass
from typing import Any, TextIO

from bot.app import build_application
from bot.config import Settings
from bot.fake_telegram import ApiCall, FakeBotApi

logger = logging.getLogger(__name__)

# Not a secret: the in-process fake accepts any well-formed token.
CONSOLE_TOKEN = "1000000:console"  # noqa: S105
CONSOLE_CHAT_ID = 1
# A handler that takes longer than this is reported, and the console moves on.
UPDATE_TIMEOUT_S = 60.0

_PRESS = re.compile(r"^#(\d+)$")
_MESSAGE_METHODS = frozenset({"sendMessage", "editMessageText", "sendPhoto", "sendDocument"})


@dataclass(frozen=True)
class _Button:
    text: str
    callback_data: str | None
    url: str | None


class ConsolePrinter:
    """Renders the bot's calls to one chat as plain text, and remembers the last keyboard."""

    def __init__(self, output: TextIO, chat_id: int) -> None:
        self._output = output
        self._chat_id = chat_id
        self.keyboard_message_id: int | None = None
        self.buttons: list[_Button] = []

    def on_call(self, call: ApiCall) -> None:
        if call.params.get("chat_id") not in (None, str(self._chat_id)):
            return
        # Listeners only see calls the fake accepted; rejected ones surface as the bot's
        # own apology and an error in the log.
        if call.method in _MESSAGE_METHODS and isinstance(call.result, dict):
            self._show_message(call.result, edited=call.method == "editMessageText")
        elif call.method == "answerCallbackQuery" and call.params.get("text"):
            self._print(f"» {call.params['text']}")

    def _show_message(self, message: dict[str, Any], *, edited: bool) -> None:
        text = message.get("text") or message.get("caption") or ""
        if "photo" in message:
            text = f"[picture] {text}".rstrip()
        lines = [f"✎ {text}" if edited else text]
        rows = (message.get("reply_markup") or {}).get("inline_keyboard") or []
        buttons: list[_Button] = []
        for row in rows:
            cells = []
            for raw in row:
                buttons.append(
                    _Button(raw.get("text", ""), raw.get("callback_data"), raw.get("url"))
                )
                cells.append(f"[{len(buttons)}] {raw.get('text', '')}")
            lines.append("  " + "   ".join(cells))
        if buttons:
            self.keyboard_message_id = int(message["message_id"])
            self.buttons = buttons
        self._print("\n".join(lines))

    def note(self, text: str) -> None:
        """A line from the console itself rather than from the bot."""
        self._print(text)

    def _print(self, text: str) -> None:
        self._output.write(text + "\n\n")
        self._output.flush()


def _read_lines(stream: TextIO, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[str | None]:
    """Feed stdin lines into a queue from a daemon thread; None marks end of input.

    A daemon thread, unlike the loop's executor, never keeps the process alive while it
    blocks on a terminal that will not send anything more.
    """
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    def pump() -> None:
        for line in stream:
            loop.call_soon_threadsafe(queue.put_nowait, line.rstrip("\r\n"))
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="console-stdin", daemon=True).start()
    return queue


async def run_console(settings: Settings, stdin: TextIO, stdout: TextIO) -> int:
    # stdout belongs to the conversation; keep aiogram's start/stop chatter off stderr too.
    logging.getLogger("aiogram").setLevel(logging.WARNING)
    api = FakeBotApi()
    await api.start()
    printer = ConsolePrinter(stdout, CONSOLE_CHAT_ID)
    api.add_listener(printer.on_call)
    # One local user cannot flood anyone, and piped lines arrive faster than a second apart.
    application = await build_application(
        settings, token=CONSOLE_TOKEN, api_url=api.base_url, throttle_interval=0.0
    )
    polling = asyncio.create_task(
        application.run_polling(handle_signals=False, handle_as_tasks=False)
    )
    try:
        if stdin.isatty():
            print(
                "gpuradar console: type a message, #N presses button N, Ctrl-D exits.",
                file=sys.stderr,
            )
        lines = _read_lines(stdin, asyncio.get_running_loop())
        first_name = getpass.getuser() or "console"
        while (line := await lines.get()) is not None:
            if not line.strip():
                continue
            update_id = _push(api, printer, line, settings, first_name)
            if update_id is None:
                continue
            try:
                await api.wait_confirmed(update_id, timeout=UPDATE_TIMEOUT_S)
            except TimeoutError:
                logger.error("the bot did not finish handling %r in %.0f s", line, UPDATE_TIMEOUT_S)
    finally:
        await application.stop()
        await polling
        await application.close()
        await api.stop()
    return 0


def _push(
    api: FakeBotApi, printer: ConsolePrinter, line: str, settings: Settings, first_name: str
) -> int | None:
    press = _PRESS.match(line.strip())
    if press is None:
        return api.push_message(
            CONSOLE_CHAT_ID,
            line,
            user_id=CONSOLE_CHAT_ID,
            language_code=settings.default_language,
            first_name=first_name,
        )
    number = int(press.group(1))
    if printer.keyboard_message_id is None or not 1 <= number <= len(printer.buttons):
        printer.note(f"(no button {number} here)")
        return None
    button = printer.buttons[number - 1]
    if button.callback_data is None:
        printer.note(f"(link: {button.url})")
        return None
    return api.push_callback(
        CONSOLE_CHAT_ID,
        printer.keyboard_message_id,
        button.callback_data,
        user_id=CONSOLE_CHAT_ID,
        language_code=settings.default_language,
    )
