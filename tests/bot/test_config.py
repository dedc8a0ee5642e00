from datetime import timedelta
from pathlib import Path

import pytest

from bot import topology
from bot.config import ConfigError, load_settings, resolve_mode
from bot.delivery.limiter import CHAT_GAP_S
from monitor.freshness import DEFAULT_STALE_AFTER
from storage.leader import ELECTION_INTERVAL_S

TOKEN = "123456:AAH-secret_Token"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in [
        "BOT_TOKEN",
        *(f"GPURADAR_{n}" for n in ("BOT_TOKEN", "DB_PATH", "TELEGRAM_API_URL", "ADMIN_IDS")),
        *(f"GPURADAR_{n}" for n in ("DEFAULT_LANGUAGE", "TIMEZONE", "LOG_LEVEL", "MODE")),
        *(f"GPURADAR_{n}" for n in ("OPS_HOST", "TRUSTED_PROXIES")),
        "GPURADAR_DATABASE_URL",
    ]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env from the developer's checkout
    return tmp_path


def test_defaults_without_token_mean_console_mode():
    settings = load_settings()
    assert settings.bot_token is None
    assert settings.console_mode
    assert settings.db_path == Path("data/gpuradar.sqlite3")
    assert settings.telegram_api_url == "https://api.telegram.org"
    assert settings.admin_ids == frozenset()
    assert settings.default_language == "ru"
    assert settings.timezone == "Europe/Moscow"
    # Safe outside a container: the ops server on loopback, and no X-Forwarded-For trusted.
    assert settings.ops_host == "127.0.0.1"
    assert settings.trusted_proxies == ()


def test_environment_values(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPURADAR_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("GPURADAR_ADMIN_IDS", "1, 22;333")
    monkeypatch.setenv("GPURADAR_DEFAULT_LANGUAGE", "en")
    monkeypatch.setenv("GPURADAR_TIMEZONE", "Asia/Novosibirsk")
    monkeypatch.setenv("GPURADAR_TELEGRAM_API_URL", "http://127.0.0.1:8081/")
    monkeypatch.setenv("GPURADAR_TRUSTED_PROXIES", "172.30.53.10, fd00::/8")
    settings = load_settings()
    assert settings.bot_token is not None
    assert settings.bot_token.get_secret_value() == TOKEN
    assert TOKEN not in repr(settings)
    assert settings.admin_ids == frozenset({1, 22, 333})
    assert settings.default_language == "en"
    assert settings.timezone == "Asia/Novosibirsk"
    assert settings.telegram_api_url == "http://127.0.0.1:8081"
    assert [str(n) for n in settings.trusted_proxies] == ["172.30.53.10/32", "fd00::/8"]


def test_plain_bot_token_is_accepted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    settings = load_settings()
    assert settings.bot_token is not None
    assert settings.bot_token.get_secret_value() == TOKEN


def test_dotenv_file_is_read(clean_env: Path):
    (clean_env / ".env").write_text(f"GPURADAR_BOT_TOKEN={TOKEN}\nGPURADAR_TIMEZONE=UTC\n")
    settings = load_settings()
    assert settings.timezone == "UTC"
    assert not settings.console_mode


def test_blank_token_means_console_mode(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPURADAR_BOT_TOKEN", "  ")
    assert load_settings().console_mode


def test_the_waits_tests_shorten_default_to_what_production_needs():
    settings = load_settings()
    assert settings.send_chat_interval_s == CHAT_GAP_S == 1.0
    assert settings.claim_lease_s == 15.0
    assert settings.election_interval_s == ELECTION_INTERVAL_S == 5.0
    assert topology.replica_claims(settings.claim_lease_s).lease == timedelta(seconds=15)
    assert settings.stale_after == DEFAULT_STALE_AFTER == timedelta(hours=1)


def test_stale_after_is_read_in_seconds(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPURADAR_STALE_AFTER_S", "0")  # a stale offer never counts
    assert load_settings().stale_after == timedelta(0)
    monkeypatch.setenv("GPURADAR_STALE_AFTER_S", "7200")
    assert load_settings().stale_after == timedelta(hours=2)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GPURADAR_SEND_CHAT_INTERVAL_S", "0"),
        ("GPURADAR_SEND_CHAT_INTERVAL_S", "61"),
        ("GPURADAR_CLAIM_LEASE_S", "0.5"),
        ("GPURADAR_CLAIM_LEASE_S", "601"),
        ("GPURADAR_ELECTION_INTERVAL_S", "0"),
        ("GPURADAR_ELECTION_INTERVAL_S", "61"),
        ("GPURADAR_STALE_AFTER_S", "-1"),
        ("GPURADAR_STALE_AFTER_S", "604801"),
        ("GPURADAR_STALE_AFTER_S", "an hour"),
    ],
)
def test_the_waits_out_of_bounds_are_one_line_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as raised:
        load_settings()
    assert "\n" not in str(raised.value)
    assert name in str(raised.value)


@pytest.mark.parametrize(
    ("name", "value", "fragment"),
    [
        ("GPURADAR_TIMEZONE", "Mars/Olympus", "unknown time zone"),
        ("GPURADAR_DEFAULT_LANGUAGE", "de", "'ru' or 'en'"),
        ("GPURADAR_ADMIN_IDS", "12,abc", "'abc' is not a Telegram user id"),
        ("GPURADAR_TRUSTED_PROXIES", "10.0.0.1, caddy", "'caddy' is not an IP address"),
        ("GPURADAR_TELEGRAM_API_URL", "ftp://x", "not an http(s) URL"),
        ("GPURADAR_BOT_TOKEN", "not-a-token", "does not look like a bot token"),
        ("BOT_TOKEN", "also bad", "does not look like a bot token"),
    ],
)
def test_bad_values_give_one_line_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, fragment: str
):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as raised:
        load_settings()
    message = str(raised.value)
    assert "\n" not in message
    expected_name = "GPURADAR_BOT_TOKEN" if "TOKEN" in name else name
    assert expected_name in message
    assert fragment in message
    if "TOKEN" in name:
        assert value not in message


@pytest.mark.parametrize(
    ("env", "interactive", "mode"),
    [
        ({}, True, "console"),  # a newcomer's terminal
        ({"GPURADAR_BOT_TOKEN": TOKEN}, False, "polling"),
        ({"GPURADAR_BOT_TOKEN": TOKEN}, True, "polling"),
        ({"GPURADAR_MODE": "console"}, False, "console"),  # piped input, asked for
        ({"GPURADAR_MODE": "console", "GPURADAR_BOT_TOKEN": TOKEN}, False, "console"),
        ({"GPURADAR_MODE": ""}, True, "console"),  # .env.example's blank line
    ],
)
def test_the_mode_is_resolved(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], interactive: bool, mode: str
):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = resolve_mode(load_settings(), interactive=interactive)
    assert settings.mode == mode
    assert settings.console_mode is (mode == "console")


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({}, "no bot token: set GPURADAR_BOT_TOKEN"),  # Docker without a token: never exit 0
        ({"GPURADAR_MODE": "polling"}, "GPURADAR_BOT_TOKEN: required when GPURADAR_MODE=polling"),
        ({"GPURADAR_MODE": "telegram"}, "invalid setting GPURADAR_MODE"),
    ],
)
def test_modes_that_cannot_run_are_one_line_errors(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], fragment: str
):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as raised:
        resolve_mode(load_settings(), interactive=False)
    assert fragment in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("mysql://gpuradar:pw-SECRET@db/gpuradar", "postgresql://"),
        ("postgresql://gpuradar:pw-SECRET@db:99999/gpuradar", "not a parsable URL"),
        ("postgresql://gpuradar:pw-SECRET@[::1/gpuradar", "not a parsable URL"),
        ("postgresql://gpuradar:pw-SECRET@db", "names no database"),
    ],
)
def test_a_malformed_database_url_is_one_line_without_the_password(
    monkeypatch: pytest.MonkeyPatch, url: str, fragment: str
):
    monkeypatch.setenv("GPURADAR_DATABASE_URL", url)
    with pytest.raises(ConfigError) as raised:
        load_settings()
    message = str(raised.value)
    assert message.startswith("invalid setting GPURADAR_DATABASE_URL: ")
    assert fragment in message
    assert "pw-SECRET" not in message
    assert "\n" not in message


def test_a_database_url_is_a_secret(monkeypatch: pytest.MonkeyPatch):
    url = "postgres://gpuradar:pw-SECRET@db.internal:6432/gpuradar"
    monkeypatch.setenv("GPURADAR_DATABASE_URL", url)
    settings = load_settings()
    assert settings.database_url is not None
    assert settings.database_url.get_secret_value() == url
    assert "pw-SECRET" not in repr(settings)
    monkeypatch.setenv("GPURADAR_DATABASE_URL", " ")
    assert load_settings().database_url is None  # blank: SQLite


def test_with_a_database_url_the_console_writes_nothing_beside_the_working_directory():
    import tempfile

    beside_db = load_settings(db_path="/srv/bot/db.sqlite3")
    assert beside_db.console_log_file == Path("/srv/bot/gpuradar.log")
    shared = load_settings(database_url="postgresql://bot:secret@db.example/gpuradar")
    assert shared.local_folder.is_absolute()
    assert shared.local_folder.parent == Path(tempfile.gettempdir())
    assert shared.console_log_file.parent == shared.local_folder


def test_the_env_example_as_shipped_is_valid(monkeypatch: pytest.MonkeyPatch):
    from bot.config import Settings, default_replica_id

    for name in ("GPURADAR_REPLICA_ID", "GPURADAR_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    example = Path(__file__).resolve().parents[2] / ".env.example"
    settings = Settings(_env_file=example)
    assert settings.database_url is None  # blank: SQLite
    assert settings.replica_id == default_replica_id()
    assert load_settings(replica_id="bot-2").replica_id == "bot-2"
    with pytest.raises(ConfigError, match="GPURADAR_REPLICA_ID"):
        load_settings(replica_id="bot 2; drop")


@pytest.mark.parametrize("name", ["GPURADAR_PUBLIC_URL", "GPURADAR_WEBHOOK_URL"])
def test_a_url_that_users_or_telegram_see_may_not_carry_a_password(
    monkeypatch: pytest.MonkeyPatch, name: str
):
    monkeypatch.setenv(name, "https://admin:hunter2@bot.example.com")
    with pytest.raises(ConfigError) as raised:
        load_settings()
    message = str(raised.value)
    assert name in message
    assert "must not carry a user name or password" in message
    assert "hunter2" not in message


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("GPURADAR_TELEGRAM_API_URL", "http://bot:hunter2@127.0.0.1:99999"),
        ("GPURADAR_TELEGRAM_API_URL", "ftp://bot:hunter2@127.0.0.1"),
        ("GPURADAR_SELECTEL_URL", "ftp://mirror:hunter2@127.0.0.1"),
    ],
)
def test_a_bad_url_is_named_without_its_password(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as raised:
        load_settings()
    assert name in str(raised.value)
    assert "hunter2" not in str(raised.value)


def test_the_password_of_every_url_setting_is_a_secret_the_logs_redact(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("GPURADAR_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("GPURADAR_TELEGRAM_API_URL", "http://bot:api%40pass@127.0.0.1:8081")
    monkeypatch.setenv("GPURADAR_HOSTKEY_URL", "https://mirror:mirror-pass@127.0.0.1:8082")
    monkeypatch.setenv("GPURADAR_DATABASE_URL", "postgresql://u:db-pass@127.0.0.1/gpuradar")
    secrets = load_settings().secrets
    assert {TOKEN, "api%40pass", "api@pass", "mirror-pass", "db-pass"} <= set(secrets)
