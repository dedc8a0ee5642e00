"""Settings from the environment and `.env`, validated once at start-up.

Every setting is read as `GPURADAR_<NAME>`; the token is also accepted as plain `BOT_TOKEN`
because that is what most aiogram deployments already export.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import unquote, urlsplit

from pydantic import (
    AliasChoices,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import NoDecode, SettingsConfigDict
from yarl import URL

from bot.delivery.limiter import CHAT_GAP_S
from monitor.freshness import DEFAULT_STALE_AFTER_S
from monitor.providers import PROVIDERS
from monitor.redaction import hide_userinfo
from monitor.users import Language, is_known_timezone
from scrapers.config import ScraperSettings, base_url_of

ENV_PREFIX = "GPURADAR_"
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# Telegram tokens are "<bot id>:<secret>"; aiogram rejects anything else later with a less
# helpful message, so the shape is checked here where the setting can be named.
_TOKEN_SHAPE = re.compile(r"^\d+:[A-Za-z0-9_-]+$")
# Telegram's rule for setWebhook's secret_token.
_SECRET_SHAPE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


Mode = Literal["console", "polling", "webhook"]


def default_replica_id() -> str:
    # A container's host name is its id, so replicas of one compose file differ by it.
    return f"{socket.gethostname()}-{os.getpid()}"[:64]


class ConfigError(Exception):
    """A setting is missing or invalid; `str(error)` is the one line shown to the operator."""


class Settings(ScraperSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        frozen=True,
        # Lets code and tests pass bot_token=... as well as the environment names.
        populate_by_name=True,
    )

    bot_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices(f"{ENV_PREFIX}BOT_TOKEN", "BOT_TOKEN"),
    )
    db_path: Path = Path("./data/gpuradar.sqlite3")
    # PostgreSQL instead of the SQLite file at db_path (postgresql://user:password@host/db):
    # several replicas can share it. A secret, as it may hold the password.
    database_url: SecretStr | None = None
    telegram_api_url: str = "https://api.telegram.org"
    admin_ids: Annotated[frozenset[int], NoDecode] = frozenset()
    default_language: Language = "ru"
    timezone: str = "Europe/Moscow"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    # Messages per second overall, alerts and replies together; Telegram allows about 30.
    # 28 plus the limiter's burst of 1.5 keeps every second under 30 (bot/delivery/limiter).
    send_rate: float = Field(default=28.0, gt=0, le=1000)
    # Alert messages in flight at once. 8 holds 28/s up to a 250 ms round trip to Telegram
    # (bench/fanout.py measures 60 and 150 ms); after a kill -9, at most this many alerts
    # may be sent twice.
    send_concurrency: int = Field(default=8, ge=1, le=64)
    # The least time between two alerts to one chat, after Telegram answered the first:
    # Telegram asks for about one message per second in a chat (bot/delivery/limiter.py).
    # Tests shorten it; a production bot has no reason to.
    send_chat_interval_s: float = Field(default=CHAT_GAP_S, gt=0, le=60)
    # Replicas sharing PostgreSQL: how long a claimed outbox row stays this replica's unless
    # renewed (every third of it). A replica killed -9 leaves its claims to expire, so this
    # bounds how late its unsent alerts go out from another; 15 s is well inside the 30 s
    # takeover while a renewal can miss twice. (A SQLite file's one process releases a dead
    # run's claims at start-up and keeps a 5-minute lease.)
    claim_lease_s: float = Field(default=15.0, ge=1, le=600)
    # Replicas sharing PostgreSQL: how often a follower tries for the leader lock, and a
    # leader checks its connection. 5 s keeps a takeover well inside 30 s with one missed
    # try (storage/leader.py's ELECTION_INTERVAL_S, not imported here: asyncpg's import
    # time would come before a bad setting is reported).
    election_interval_s: float = Field(default=5.0, gt=0, le=60)
    # Replicas sharing PostgreSQL: how long the leader's lease lasts unrenewed (it renews
    # every election_interval_s). A frozen or cut-off leader loses it after this long, and a
    # follower takes over at its next try; 15 s lets three renewals miss
    # (storage/leader.py's LEADER_LEASE_S). Must be longer than election_interval_s.
    leader_lease_s: float = Field(default=15.0, gt=0, le=600)
    # How long start-up keeps retrying when Telegram (or PostgreSQL) cannot be reached,
    # before exit 2.
    startup_retry_s: float = Field(default=60.0, ge=0, le=3600)
    # The first wait before a failed provider request (timeout, connection error, 5xx, 429
    # without Retry-After) is tried again; it doubles, with jitter, up to 8 s
    # (the default is scrapers.http.HttpSettings', not imported here: aiohttp's import time
    # would come before a bad setting is reported). Tests of faults set it small: they prove
    # the retry, not the wait.
    scrape_backoff_s: float = Field(default=0.5, gt=0, le=60)
    # How long an offer whose part (or provider) has stopped answering still counts as
    # rentable, from when its part last answered (monitor/freshness.py, one hour by default:
    # 4–6 missed refreshes). Past it the offer is still listed, marked stale, but plans,
    # /watch's matches and the in-stock filters leave it out, and its return is news again.
    # 0: a stale offer never counts. At most a week.
    stale_after_s: int = Field(default=DEFAULT_STALE_AFTER_S, ge=0, le=7 * 86400)
    # Start the /history chart workers (bot/chart_pool.py: up to two processes, ~75 MiB each
    # once matplotlib is loaded) at start-up, so the first chart waits only for its drawing.
    # False starts them at the first /history instead: a small host keeps the memory until
    # a chart is asked for, and that first chart takes a second or two more.
    chart_warm_up: bool = True
    # The operations server (/healthz, /metrics, and the webhook in webhook mode).
    # Port 0 means any free port (tests); the bound port is logged.
    # Loopback unless said otherwise: outside a container nothing but this host needs it. The
    # Docker image and deploy/compose.yaml set 0.0.0.0 (the proxy and Prometheus are outside).
    ops_host: str = "127.0.0.1"
    ops_port: int = Field(default=8080, ge=0, le=65535)
    # The proxies whose X-Forwarded-For names the client (comma-separated addresses or
    # networks). From any other peer the header is whatever the client wrote, so the peer
    # itself is the client the open data's rate limit counts (bot/ops/open_data.py).
    trusted_proxies: Annotated[tuple[Network, ...], NoDecode] = ()
    # Serve the market and the estimator as tools for AI assistants at /mcp on the ops server
    # (bot/ops/mcp_server.py: MCP over streamable HTTP, read-only, under the open data's
    # rate limit). Off unless asked for: it is one more public surface to run.
    mcp: bool = False
    # console: talk to the bot in this terminal (an in-process fake Telegram, no token).
    # polling: long-poll getUpdates. webhook: Telegram POSTs to webhook_url + webhook_path.
    # Unset: console when stdin is a terminal and there is no token, else polling with a
    # token, else a configuration error (resolve_mode).
    mode: Mode | None = None
    # Console mode's log file (everything at log_level; only warnings and errors reach
    # stderr, each once). Unset: gpuradar.log beside the database.
    log_file: Path | None = None
    webhook_url: str | None = None
    # The bot's public https:// base URL (the proxy in front of the ops server): turns the
    # Mini App on. Telegram opens a Mini App only over https, so with none set the app's
    # buttons and menu button are left out and /app/ answers 404; nothing else changes.
    public_url: str | None = None
    webhook_path: str = "/telegram/webhook"
    webhook_secret: SecretStr | None = None
    # This replica's name in /healthz, /metrics and the logs; several replicas share one
    # PostgreSQL database and elect one leader. Unset: the host name and the process id.
    replica_id: str = Field(default_factory=default_replica_id, pattern=r"^[A-Za-z0-9_.:-]{1,64}$")

    @field_validator(
        "bot_token",
        "webhook_secret",
        "webhook_url",
        "public_url",
        "mode",
        "log_file",
        "database_url",
        mode="before",
    )
    @classmethod
    def _blank_token_means_none(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @property
    def stale_after(self) -> timedelta:
        return timedelta(seconds=self.stale_after_s)

    @model_validator(mode="after")
    def _lease_outlasts_renewals(self) -> Settings:
        # A lease that ends before the next renewal would change leaders every round.
        if self.leader_lease_s <= self.election_interval_s:
            raise ValueError(
                "GPURADAR_LEADER_LEASE_S must be longer than GPURADAR_ELECTION_INTERVAL_S"
            )
        return self

    @field_validator("replica_id", mode="before")
    @classmethod
    def _blank_replica_id_means_default(cls, value: object) -> object:
        # `GPURADAR_REPLICA_ID=` as .env.example leaves it: the default, not an error.
        if isinstance(value, str) and not value.strip():
            return default_replica_id()
        return value

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not _TOKEN_SHAPE.match(value.get_secret_value()):
            # The message must never echo the value: it is a secret even when malformed.
            raise ValueError("does not look like a bot token (expected <digits>:<secret>)")
        return value

    @field_validator("database_url")
    @classmethod
    def _postgresql_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            problem = _postgresql_url_problem(value.get_secret_value())
            if problem is not None:
                raise ValueError(problem)  # never the value: it may hold the password
        return value

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _split_trusted_proxies(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        networks = []
        for part in (part.strip() for part in value.split(",")):
            if not part:
                continue
            try:
                networks.append(ipaddress.ip_network(part, strict=False))
            except ValueError:
                raise ValueError(f"{part!r} is not an IP address or network") from None
        return tuple(networks)

    @field_validator("admin_ids", mode="before")
    @classmethod
    def _split_admin_ids(cls, value: object) -> object:
        if isinstance(value, str):
            parts = [part.strip() for part in value.replace(";", ",").split(",")]
            ids = set()
            for part in parts:
                if not part:
                    continue
                if not part.lstrip("-").isdigit():
                    raise ValueError(f"{part!r} is not a Telegram user id (comma-separated ints)")
                ids.add(int(part))
            return frozenset(ids)
        return value

    @field_validator("telegram_api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        # A Bot API server behind basic auth may take a user and password in this URL; they
        # are redacted wherever it is shown (`secrets`, hide_userinfo).
        shown = hide_userinfo(value)
        if not re.match(r"^https?://[^/\s]+", value):
            raise ValueError(f"{shown!r} is not an http(s) URL")
        try:
            URL(value).port  # noqa: B018 - yarl checks the port only when asked for it
        except ValueError as error:
            # aiohttp would fail later with the token inside the URL of its message.
            raise ValueError(
                f"{shown!r} is not a usable URL: {hide_userinfo(str(error))}"
            ) from None
        return value.rstrip("/")

    @field_validator("webhook_url")
    @classmethod
    def _https_url(cls, value: str | None) -> str | None:
        if value is not None:
            _no_userinfo(value, "Telegram calls it as it is, and shows it in getWebhookInfo")
            if not re.match(r"^https://[^/\s]+\S*$", value):
                raise ValueError(f"{value!r} is not an https URL (Telegram only calls https)")
        return None if value is None else value.rstrip("/")

    @field_validator("public_url")
    @classmethod
    def _https_base_url(cls, value: str | None) -> str | None:
        # Telegram refuses a web_app button whose URL is not https; a query or fragment
        # would be lost when the app's own paths are appended.
        if value is None:
            return None
        _no_userinfo(value, "it goes to every user's Telegram client in the app's buttons")
        if not re.match(r"^https://[^/\s?#]+(/[^\s?#]*)?$", value):
            raise ValueError(f"{value!r} is not an https:// base URL (no query or fragment)")
        return value.rstrip("/")

    @field_validator("webhook_path")
    @classmethod
    def _absolute_path(cls, value: str) -> str:
        if not re.match(r"^/[A-Za-z0-9._~/-]*$", value):
            raise ValueError(f"{value!r} is not a URL path starting with /")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not _SECRET_SHAPE.match(value.get_secret_value()):
            # Never echo the value.
            raise ValueError("must be 1-256 characters of A-Z, a-z, 0-9, _ and -")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        if not is_known_timezone(value):
            raise ValueError(f"unknown time zone {value!r} (use an IANA name like Europe/Moscow)")
        return value

    @property
    def console_mode(self) -> bool:
        """Run against the in-process fake Bot API and talk over stdin/stdout: the mode says
        so, or (not yet resolved) there is no token."""
        return self.mode == "console" or (self.mode is None and self.bot_token is None)

    @property
    def local_folder(self) -> Path:
        """Where the console's log and charts go: beside the SQLite file, or with a database
        URL (no local database, nothing written relative to the working directory) a folder
        of this user's under the system's temporary directory."""
        if self.database_url is None:
            return self.db_path.parent
        return Path(tempfile.gettempdir()) / f"gpuradar-{os.getuid()}"

    @property
    def console_log_file(self) -> Path:
        return self.log_file or self.local_folder / "gpuradar.log"

    @property
    def secrets(self) -> tuple[str, ...]:
        """What no log line or exit message may show (bot.logging_setup redacts them): the
        token, the webhook secret, and the password of every URL setting, as written and
        decoded (the database's, a Bot API server's or a provider mirror's basic auth)."""
        found = {
            secret.get_secret_value()
            for secret in (self.bot_token, self.webhook_secret)
            if secret is not None
        }
        urls = [self.telegram_api_url, self.webhook_url, self.public_url]
        urls += [base_url_of(self, provider) for provider in PROVIDERS]
        if self.database_url is not None:
            urls.append(self.database_url.get_secret_value())
        for url in urls:
            password = urlsplit(url).password if url else None
            if password:
                found |= {password, unquote(password)}
        return tuple(sorted(found))

    @property
    def webhook_endpoint(self) -> str | None:
        """The full URL Telegram posts updates to, in webhook mode."""
        return None if self.webhook_url is None else self.webhook_url + self.webhook_path


def load_settings(**overrides: object) -> Settings:
    """Build Settings or raise ConfigError with one line naming the setting and the problem."""
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        raise ConfigError(_describe(error)) from None
    check_mode(settings)
    return settings


NO_CREDENTIALS = (
    "no bot token: set GPURADAR_BOT_TOKEN (from @BotFather), or GPURADAR_MODE=console"
    " to try the bot in a terminal"
)


def resolve_mode(settings: Settings, *, interactive: bool) -> Settings:
    """The settings with the mode decided. GPURADAR_MODE wins when set; otherwise a token
    means polling, and no token means console only when stdin is a terminal.

    No token and no terminal (a container started without its token) raises ConfigError:
    console mode there would read an empty stdin and exit 0, a silently dead bot.
    """
    mode = settings.mode
    if mode is None:
        if settings.bot_token is not None:
            mode = "polling"
        elif interactive:
            mode = "console"
        else:
            raise ConfigError(NO_CREDENTIALS)
    elif mode == "polling" and settings.bot_token is None:
        raise ConfigError(
            f"invalid setting {ENV_PREFIX}BOT_TOKEN: required when {ENV_PREFIX}MODE=polling"
        )
    return settings.model_copy(update={"mode": mode})


def check_mode(settings: Settings) -> None:
    """Settings that are only wrong together: webhook mode needs a token, a URL and a secret."""
    if settings.mode != "webhook":
        return
    required = {
        "BOT_TOKEN": settings.bot_token,
        "WEBHOOK_URL": settings.webhook_url,
        "WEBHOOK_SECRET": settings.webhook_secret,
    }
    for name, value in required.items():
        if value is None:
            raise ConfigError(
                f"invalid setting {ENV_PREFIX}{name}: required when {ENV_PREFIX}MODE=webhook"
            )


def _postgresql_url_problem(url: str) -> str | None:
    """Why `url` is not a PostgreSQL URL asyncpg can use, or None. Never quotes the URL."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - urlsplit checks the port only when asked for it
    except ValueError:
        return "is not a parsable URL"
    if parts.scheme not in ("postgresql", "postgres"):  # what libpq and asyncpg accept
        return "must be a postgresql:// (or postgres://) URL"
    if not parts.path.strip("/") and "dbname=" not in parts.query:
        return "names no database (postgresql://user:password@host:5432/database)"
    return None


def _no_userinfo(url: str, why: str) -> None:
    if urlsplit(url).username is not None:
        raise ValueError(f"{hide_userinfo(url)!r} must not carry a user name or password: {why}")


def _describe(error: ValidationError) -> str:
    first = error.errors(include_url=False, include_input=False)[0]
    field = str(first["loc"][0]) if first["loc"] else "settings"
    env_name = field if field.isupper() else f"{ENV_PREFIX}{field.upper()}"
    message = str(first["msg"]).removeprefix("Value error, ")
    more = len(error.errors()) - 1
    suffix = f" (and {more} more)" if more else ""
    return f"invalid setting {env_name}: {message}{suffix}"
