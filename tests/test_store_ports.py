"""Each consumer of storage depends on a port, never on the concrete Store; the one Store
serves them all.

A port stays where it inverts a dependency (monitor and bot may not import storage: see
tests/test_layout.py) or where two classes serve it. The bot's handlers share one, BotStore
(bot/ports.py); the services beside them keep their own.

`serve_every_port` is the proof: make test runs mypy --strict over tests/, which checks each
assignment against the port's signatures. The test below checks, at run time, that each
member a port names is a coroutine method of the Store.
"""

from __future__ import annotations

import inspect

import pytest

from bot.delivery.journal import MarkStore
from bot.delivery.sender import DeliveryStore
from bot.ops.open_data import OpenDataStore
from bot.ops.server import HealthStore
from bot.ports import BotStore
from bot.webhook_once import UpdateClaims
from monitor.matcher import SubscriptionSource
from monitor.pipeline import PipelineStore
from storage import Store

PORTS: tuple[type, ...] = (
    PipelineStore,
    SubscriptionSource,
    DeliveryStore,
    MarkStore,
    HealthStore,
    OpenDataStore,
    UpdateClaims,
    BotStore,
)
# The handlers' one port names what the routers, the alert buttons, the user middleware and
# the sizing memory use together; the services' ports stay small.
HANDLERS_PORT = BotStore


def serve_every_port(store: Store) -> list[object]:
    """Never called: mypy checks that a Store is each of these."""
    pipeline: PipelineStore = store
    subscriptions: SubscriptionSource = store
    delivery: DeliveryStore = store
    marks: MarkStore = store
    health: HealthStore = store
    open_data: OpenDataStore = store
    updates: UpdateClaims = store
    handlers: BotStore = store
    return [pipeline, subscriptions, delivery, marks, health, open_data, updates, handlers]


def members(port: type) -> set[str]:
    found: set[str] = set()
    for cls in port.__mro__:
        if cls.__module__ in ("typing", "builtins"):
            continue
        found |= {name for name in vars(cls) if not name.startswith("_")}
    return found


@pytest.mark.parametrize("port", PORTS, ids=lambda port: port.__name__)
def test_the_store_has_every_member_of_each_port(port: type):
    names = members(port)
    assert names
    missing = {name for name in names if not hasattr(Store, name)}
    assert missing == set()
    not_async = {
        name
        for name in names
        if inspect.iscoroutinefunction(getattr(port, name))
        and not inspect.iscoroutinefunction(getattr(Store, name))
    }
    assert not_async == set()


def test_every_service_port_is_small():
    """A service's port names what it uses, not the Store's forty-odd methods."""
    store_methods = {name for name in dir(Store) if not name.startswith("_")}
    assert len(store_methods) > 35
    services = [port for port in PORTS if port is not HANDLERS_PORT]
    assert {port.__name__: len(members(port)) for port in services if len(members(port)) > 12} == {}
    # The handlers' port is still a part of the Store, not all of it.
    assert members(HANDLERS_PORT) < store_methods
