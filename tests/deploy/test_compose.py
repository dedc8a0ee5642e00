"""deploy/: the compose stack sets only real settings, and Caddy exposes only the webhook.

Read as files, nothing started: the names come from bot.config.Settings itself (its fields,
their aliases and the env prefix), so a renamed or removed setting fails here instead of
being silently ignored by a replica in production (Settings ignores unknown names).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import AliasChoices

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE = DEPLOY / "compose.yaml"
CADDYFILE = DEPLOY / "Caddyfile"
ENV_EXAMPLE = DEPLOY / ".env.example"
PREFIX = str(Settings.model_config.get("env_prefix", "")).upper()

# ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}; $$ is a dollar.
_INTERPOLATION = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}")
_ENV_LINE = re.compile(r"^#?\s*([A-Z][A-Z0-9_]*)=(.*)$")


def setting_names() -> set[str]:
    """Every environment name Settings reads, upper case (it matches case-insensitively)."""
    names = set()
    for name, info in Settings.model_fields.items():
        alias = info.validation_alias or info.alias
        if isinstance(alias, AliasChoices):
            names |= {choice.upper() for choice in alias.choices if isinstance(choice, str)}
        elif isinstance(alias, str):
            names.add(alias.upper())
        else:
            names.add(f"{PREFIX}{name}".upper())
    return names


def compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def services() -> dict[str, dict[str, Any]]:
    found = compose()["services"]
    assert isinstance(found, dict)
    return found


def environment(service: dict[str, Any]) -> dict[str, str]:
    """A service's `environment`, written as a map or as a list of NAME=value."""
    raw = service.get("environment") or {}
    if isinstance(raw, list):
        return dict(str(item).partition("=")[::2] for item in raw)
    return {str(key): "" if value is None else str(value) for key, value in raw.items()}


def env_example() -> dict[str, str]:
    """NAME=value lines of the example env file, the commented-out optional ones included."""
    found = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        match = _ENV_LINE.match(line.strip())
        if match:
            found[match.group(1)] = match.group(2)
    return found


def active_env_example() -> dict[str, str]:
    """What the example sets for real (its optional lines are comments)."""
    lines = ENV_EXAMPLE.read_text(encoding="utf-8").splitlines()
    return {
        name: value
        for name, value in env_example().items()
        if any(line.startswith(f"{name}=") for line in lines)
    }


def interpolated_names(text: str) -> set[str]:
    return {match.group(1) for match in _INTERPOLATION.finditer(text) if match.group(1)}


def interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's substitution, as far as this file uses it."""

    def substitute(match: re.Match[str]) -> str:
        name, operator, argument = match.groups()
        if name is None:
            return "$"
        value = env.get(name)
        unset = value is None or (operator is not None and operator.startswith(":") and not value)
        if operator is not None and operator.endswith("-") and unset:
            return argument or ""
        if operator is not None and operator.endswith("?") and unset:
            raise AssertionError(f"compose would stop: {argument}")
        return value or ""

    return _INTERPOLATION.sub(substitute, text)


def bots() -> dict[str, dict[str, Any]]:
    """The services built from the repository's Dockerfile: the bot replicas."""
    found = {}
    for name, service in services().items():
        build = service.get("build")
        if build is None:
            continue
        context = build if isinstance(build, str) else build.get("context", ".")
        dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "")
        assert (DEPLOY / context).resolve() == ROOT, f"{name} is not built from the repository"
        assert dockerfile == "Dockerfile"
        found[name] = service
    return found


# --- settings ------------------------------------------------------------------------------


def test_setting_names_come_from_the_model():
    # The reader itself: a field, an alias and the prefix, as pydantic-settings reads them.
    names = setting_names()
    assert {"GPURADAR_BOT_TOKEN", "BOT_TOKEN", "GPURADAR_WEBHOOK_URL"} <= names
    assert "GPURADAR_SELECTEL_URL" in names  # inherited from ScraperSettings
    assert "GPURADAR_NO_SUCH_SETTING" not in names


def test_every_gpuradar_variable_of_the_stack_is_a_setting():
    known = setting_names()
    used: dict[str, set[str]] = {}
    for name, service in services().items():
        for variable in environment(service):
            used.setdefault(variable, set()).add(f"compose {name}.environment")
    for variable in interpolated_names(COMPOSE.read_text(encoding="utf-8")):
        used.setdefault(variable, set()).add("compose ${...}")
    for variable in interpolated_names(CADDYFILE.read_text(encoding="utf-8").replace("{$", "${")):
        used.setdefault(variable, set()).add("Caddyfile {$...}")
    for variable in env_example():
        used.setdefault(variable, set()).add(".env.example")
    ours = {name: where for name, where in used.items() if name.startswith(PREFIX)}
    assert len(ours) >= 8, "the stack reads hardly any setting: is the parsing broken?"
    unknown = {name: sorted(where) for name, where in ours.items() if name not in known}
    assert unknown == {}


def test_every_value_the_compose_file_needs_is_in_the_example():
    text = COMPOSE.read_text(encoding="utf-8")
    required = {
        match.group(1)
        for match in _INTERPOLATION.finditer(text)
        if match.group(1) and match.group(2) in (":?", "?")
    }
    assert required, "compose.yaml requires no value from .env: is the parsing broken?"
    assert required <= set(active_env_example())


def test_the_example_holds_no_secret():
    example = env_example()
    for name in ("POSTGRES_PASSWORD", "GPURADAR_BOT_TOKEN", "GPURADAR_WEBHOOK_SECRET"):
        assert example.get(name) == "", f"{name} must be empty in the example"
    # The filled-in copy is deploy/.env: it must never be committed.
    patterns = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert ".env" in patterns


def test_every_variable_of_the_example_is_documented():
    lines = ENV_EXAMPLE.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        if _ENV_LINE.match(line.strip()):
            assert index > 0, f"undocumented: {line}"
            assert lines[index - 1].startswith("#"), f"undocumented: {line}"
            assert not _ENV_LINE.match(lines[index - 1].strip()), f"undocumented: {line}"


# --- topology ------------------------------------------------------------------------------


def test_two_webhook_replicas_with_their_own_ids_on_postgresql():
    replicas = bots()
    assert len(replicas) >= 2
    ids = [environment(service).get("GPURADAR_REPLICA_ID") for service in replicas.values()]
    assert None not in ids
    assert len(set(ids)) == len(ids), f"replica ids repeat: {ids}"
    for name, service in replicas.items():
        env = environment(service)
        assert env["GPURADAR_MODE"] == "webhook", name
        assert env["GPURADAR_DATABASE_URL"].startswith("postgresql://"), name
        assert interpolated_names(env["GPURADAR_DATABASE_URL"]) == {"POSTGRES_PASSWORD"}
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy", name
        assert service["restart"] == "unless-stopped", name
        # The token and the webhook secret come from the env file, never from compose.yaml.
        assert service["env_file"] == ".env" or ".env" in service["env_file"], name
        assert not {"GPURADAR_BOT_TOKEN", "BOT_TOKEN", "GPURADAR_WEBHOOK_SECRET"} & set(env)
        # Ops ports stay on the compose network.
        assert "ports" not in service, f"{name} publishes a port"


def test_postgres_keeps_its_data_and_reports_ready():
    stack = compose()
    postgres = stack["services"]["postgres"]
    assert str(postgres["image"]).startswith("postgres:16")
    volume = next(v.split(":")[0] for v in postgres["volumes"] if v.endswith("/data"))
    assert volume in stack["volumes"], "the data must be in a named volume"
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    assert interpolated_names(postgres["environment"]["POSTGRES_PASSWORD"]) == {"POSTGRES_PASSWORD"}
    assert "ports" not in postgres


def test_only_the_proxy_publishes_ports():
    published = {name for name, service in services().items() if service.get("ports")}
    assert published == {"caddy"}
    ports = {str(port).split(":")[-1] for port in services()["caddy"]["ports"]}
    assert "443" in ports  # Telegram calls https on 443, 80, 88 or 8443


# --- Caddyfile -----------------------------------------------------------------------------


@dataclass
class Directive:
    words: list[str]
    children: list[Directive] = field(default_factory=list)


def parse_caddyfile(text: str) -> list[Directive]:
    """Directives and their blocks, as the Caddyfile here is written: one directive a line,
    `{` ending the line that opens a block, `}` alone on the line that closes it."""
    root: list[Directive] = []
    stack = [root]
    for raw in text.splitlines():
        line = raw.split(" #")[0].strip() if not raw.strip().startswith("#") else ""
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        words = line.split()
        opens = words[-1] == "{"
        directive = Directive(words[:-1] if opens else words)
        stack[-1].append(directive)
        if opens:
            stack.append(directive.children)
    assert len(stack) == 1, "unbalanced braces"
    return root


def walk(
    directives: list[Directive], parents: tuple[Directive, ...] = ()
) -> Iterator[tuple[Directive, tuple[Directive, ...]]]:
    for directive in directives:
        yield directive, parents
        yield from walk(directive.children, (*parents, directive))


def test_the_caddyfile_parser_reads_blocks():
    parsed = parse_caddyfile("a.example {\n\t@m {\n\t\tpath /x # why\n\t}\n\trespond 404\n}\n")
    assert [d.words for d in parsed] == [["a.example"]]
    assert [d.words for d in parsed[0].children] == [["@m"], ["respond", "404"]]
    assert parsed[0].children[0].children[0].words == ["path", "/x"]


def test_caddy_proxies_only_the_webhook_the_open_data_and_the_mini_app_to_the_replicas():
    site = parse_caddyfile(CADDYFILE.read_text(encoding="utf-8"))
    assert [d.words for d in site] == [["{$GPURADAR_WEBHOOK_URL}"]], "one site: the webhook URL"
    proxies = [(d, parents) for d, parents in walk(site) if d.words[0] == "reverse_proxy"]
    routed = {}
    for proxy, parents in proxies:
        handle = parents[-1]
        assert handle.words[0] == "handle", "proxied inside a handle block"
        assert len(handle.words) == 2, "under a named matcher"
        matcher = next(d for d in site[0].children if d.words == [handle.words[1]])
        rules = {d.words[0]: tuple(d.words[1:]) for d in matcher.children}
        routed[rules["path"]] = rules["method"]
        # The upstreams are exactly the replicas, at their ops port, checked on /readyz.
        replicas = bots()
        ports = {environment(service)["GPURADAR_OPS_PORT"] for service in replicas.values()}
        assert set(proxy.words[1:]) == {f"{name}:{port}" for name in replicas for port in ports}
        options = {d.words[0]: d.words[1:] for d in proxy.children}
        assert options["health_uri"] == ["/readyz"]
        assert "lb_policy" in options
    # Telegram's POSTs to the webhook path, reads of /api/v1, the Mini App with its API and MCP:
    # not /healthz, not /metrics.
    assert routed == {
        ("{$GPURADAR_WEBHOOK_PATH}",): ("POST",),
        ("/api/v1/*",): ("GET", "HEAD"),
        ("/app", "/app/*"): ("GET", "HEAD", "POST", "PATCH", "DELETE"),
        ("/mcp",): ("POST",),
    }
    # The other handle answers everything else itself.
    proxied = {id(parents[-1]) for _, parents in proxies}
    others = [d for d in site[0].children if d.words[0] == "handle" and id(d) not in proxied]
    assert others
    assert all(not any(c.words[0] == "reverse_proxy" for c, _ in walk([d])) for d in others)


@pytest.mark.parametrize("optional", [False, True], ids=["as-is", "optional-uncommented"])
def test_caddy_and_the_replicas_agree_on_the_webhook_path(optional: bool):
    env = env_example() if optional else active_env_example()
    paths = {
        interpolate(environment(service)["GPURADAR_WEBHOOK_PATH"], env)
        for service in [*bots().values(), services()["caddy"]]
    }
    default = Settings.model_fields["webhook_path"].default
    assert paths == {env.get("GPURADAR_WEBHOOK_PATH") or default}
    caddy_url = environment(services()["caddy"])["GPURADAR_WEBHOOK_URL"]
    assert interpolate(caddy_url, env) == env["GPURADAR_WEBHOOK_URL"]


def test_the_example_and_the_fixed_values_are_valid_settings(monkeypatch: pytest.MonkeyPatch):
    """What a replica reads (the example, its optional lines uncommented, under the values
    compose.yaml fixes) passes Settings' validators."""
    # The secrets filled in as an operator would, in their documented shapes.
    example = {
        **env_example(),
        "POSTGRES_PASSWORD": "0123abcd",
        "GPURADAR_BOT_TOKEN": "123456:AAH-example_token",
        "GPURADAR_WEBHOOK_SECRET": "example_secret-1",
    }
    replica = next(iter(bots().values()))
    values = {**example, **environment(replica)}
    for name, value in values.items():
        if name.startswith(PREFIX):
            monkeypatch.setenv(name, interpolate(value, example))
    settings = Settings(_env_file=None)
    assert settings.mode == "webhook"
    assert settings.webhook_secret is not None
    # Caddy takes the URL as its site address: https://host, without a path.
    assert settings.webhook_url is not None
    assert re.fullmatch(r"https://[A-Za-z0-9.-]+", settings.webhook_url)
