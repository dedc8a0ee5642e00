"""Console mode: the real application, talking to one local user over stdin and stdout.

The bot runs unchanged against the in-process fake Bot API. Each input line becomes a message
from the local user; each reply is printed as plain text, numbered (`#3`), with its buttons
numbered too. `#N` presses button N of the latest message that has buttons, `#M.N` button N
of message #M, however many messages came since (an alert's buttons stay pressable). A
picture is saved as a PNG file and its path printed. Lines are handled one at a time (the next
one is pushed only once the bot has confirmed the previous update), so piped input gives the
same output as typing; piped lines are echoed (`› /start`) so the transcript reads as a chat.
"""

from __future__ import annotations

import asyncio
import getpass
import logging
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TextIO

from bot.app import build_application
from bot.config import Settings
from bot.fake_telegram import ApiCall, FakeBotApi
from bot.runtime import Application

logger = logging.getLogger(__name__)

# Not a secret: the in-process fake accepts any well-formed token.
CONSOLE_TOKEN = "1000000:console"  # noqa: S105
CONSOLE_CHAT_ID = 1
# A handler that takes longer than this is reported, and the console moves on.
UPDATE_TIMEOUT_S = 60.0

_PRESS = re.compile(r"^#(?:(\d+)\.)?(\d+)$")
_MESSAGE_METHODS = frozenset({"sendMessage", "editMessageText", "sendPhoto", "sendDocument"})
HINT = (
    "gpuradar console: type a message; #N presses button N of the latest buttons,"
    " #M.N button N of message #M; Ctrl-D exits."
)


@dataclass(frozen=True)
class _Button:
    text: str
    callback_data: str | None
    url: str | None


@dataclass
class _Shown:
    """A bot message as the console numbered it."""

    number: int
    message_id: int
    buttons: list[_Button] = field(default_factory=list)


class ConsolePrinter:
    """Renders the bot's calls to one chat as plain text and remembers every keyboard."""

    def __init__(self, output: TextIO, chat_id: int, files_dir: Path) -> None:
        self._output = output
        self._chat_id = chat_id
        self._files_dir = files_dir
        self._by_id: dict[int, _Shown] = {}  # Telegram message_id -> how it was shown
        self._by_number: dict[int, _Shown] = {}
        self.latest_keyboard: int | None = None  # the number of the latest message with buttons

    def on_call(self, call: ApiCall) -> None:
        if call.params.get("chat_id") not in (None, str(self._chat_id)):
            return
        # Listeners only see calls the fake accepted; rejected ones surface as the bot's
        # own apology and an error in the log.
        if call.method in _MESSAGE_METHODS and isinstance(call.result, dict):
            self._show_message(call, call.result, edited=call.method == "editMessageText")
        elif call.method == "answerCallbackQuery" and call.params.get("text"):
            self._print(f"» {call.params['text']}")

    def find(self, message: int | None, button: int) -> tuple[int, _Button] | str:
        """(Telegram message_id, button) for `#message.button`, or a note saying why not."""
        number = self.latest_keyboard if message is None else message
        shown = self._by_number.get(number) if number is not None else None
        if shown is None or not 1 <= button <= len(shown.buttons):
            where = f" on message #{message}" if message is not None else " here"
            return f"(no button {button}{where})"
        return shown.message_id, shown.buttons[button - 1]

    def _show_message(self, call: ApiCall, message: dict[str, Any], *, edited: bool) -> None:
        message_id = int(message["message_id"])
        shown = self._by_id.get(message_id)
        if shown is None:
            shown = _Shown(len(self._by_number) + 1, message_id)
            self._by_id[message_id] = self._by_number[shown.number] = shown
        text = message.get("text") or message.get("caption") or ""
        if "photo" in message or "document" in message:
            text = f"{self._save_file(call, shown.number)}\n{text}".rstrip()
        mark = "✎ " if edited else ""
        lines = [f"#{shown.number} {mark}{text}"]
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
        shown.buttons = buttons
        if buttons:
            self.latest_keyboard = shown.number
        self._print("\n".join(lines))

    def _save_file(self, call: ApiCall, number: int) -> str:
        """Write the uploaded picture (or document) next to the database; say where."""
        upload = next(iter(call.files.values()), None)
        if upload is None:
            return "🖼 [picture]"
        suffix = Path(upload.filename or "").suffix or ".png"
        path = self._files_dir / f"message-{number}{suffix}"
        try:
            self._files_dir.mkdir(parents=True, exist_ok=True)
            path.write_bytes(upload.data)
        except OSError as error:
            logger.warning("could not save the picture of message #%s: %s", number, error)
            return "🖼 [picture, not saved]"
        return f"🖼 {path}"

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


class Console:
    """The application against an in-process fake Telegram, one line at a time.

    `async with Console(settings, stdout) as console: await console.say("/start")`; the demo
    (tests/fakes/demo.py) drives it the same way between its scripted provider changes.
    """

    def __init__(self, settings: Settings, output: TextIO, *, echo: bool = False) -> None:
        self.settings = settings
        self.api = FakeBotApi()
        self.printer = ConsolePrinter(output, CONSOLE_CHAT_ID, settings.local_folder / "console")
        self._echo = echo
        self._first_name = getpass.getuser() or "console"
        self._application: Application | None = None
        self._polling: asyncio.Task[None] | None = None

    @property
    def application(self) -> Application:
        if self._application is None:
            raise RuntimeError("the console is not started")
        return self._application

    async def __aenter__(self) -> Self:
        await self.api.start()
        self.api.add_listener(self.printer.on_call)
        try:
            # One local user cannot flood anyone, and piped lines come faster than 1 a second.
            # The chart workers warm as the served bot's do (GPURADAR_CHART_WARM_UP): the
            # first /history typed then waits for its drawing only, not for matplotlib.
            self._application = await build_application(
                self.settings,
                token=CONSOLE_TOKEN,
                api_url=self.api.base_url,
                throttle_interval=0.0,
                warm_charts=self.settings.chart_warm_up,
            )
        except BaseException:
            await self.api.stop()
            raise
        self._polling = asyncio.create_task(
            self._application.run_polling(handle_signals=False, handle_as_tasks=False)
        )
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self._application is not None:
                await self._application.stop()
            if self._polling is not None:
                await self._polling
        finally:
            if self._application is not None:
                await self._application.close()
            await self.api.stop()

    async def say(self, line: str) -> None:
        """One line from the user: a message, or `#N` / `#M.N` pressing a button."""
        if not line.strip():
            return
        if self._echo:
            self.printer.note(f"› {line}")
        update_id = self._push(line)
        if update_id is None:
            return
        try:
            await self.api.wait_confirmed(update_id, timeout=UPDATE_TIMEOUT_S)
        except TimeoutError:
            logger.error("the bot did not finish handling %r in %.0f s", line, UPDATE_TIMEOUT_S)

    async def read(self, stdin: TextIO) -> None:
        """Say every line of `stdin` until it ends."""
        lines = _read_lines(stdin, asyncio.get_running_loop())
        while (line := await lines.get()) is not None:
            await self.say(line)

    def _push(self, line: str) -> int | None:
        language = self.settings.default_language
        press = _PRESS.match(line.strip())
        if press is None:
            return self.api.push_message(
                CONSOLE_CHAT_ID,
                line,
                user_id=CONSOLE_CHAT_ID,
                language_code=language,
                first_name=self._first_name,
            )
        message = int(press.group(1)) if press.group(1) else None
        found = self.printer.find(message, int(press.group(2)))
        if isinstance(found, str):
            self.printer.note(found)
            return None
        message_id, button = found
        if button.callback_data is None:
            self.printer.note(f"(link: {button.url})")
            return None
        return self.api.push_callback(
            CONSOLE_CHAT_ID,
            message_id,
            button.callback_data,
            user_id=CONSOLE_CHAT_ID,
            language_code=language,
        )


async def run_console(settings: Settings, stdin: TextIO, stdout: TextIO) -> int:
    # stdout belongs to the conversation; keep aiogram's start/stop chatter out of it.
    logging.getLogger("aiogram").setLevel(logging.WARNING)
    interactive = stdin.isatty()
    async with Console(settings, stdout, echo=not interactive) as console:
        if interactive:
            print(f"{HINT} Log: {settings.console_log_file}", file=sys.stderr)
        await console.read(stdin)
    return 0
