"""Every feature depends on a small port of its own; the one Store serves them all.

`serve_every_port` is the proof: make test runs mypy --strict over tests/, which checks each
assignment against the port's signatures. The test below checks, at run time, that each
member a port names is a coroutine method of the Store.
"""

from __future__ import annotations

import inspect

import pytest

from bot.conversation import SizingMemoryStore
from bot.delivery.handlers import AlertStore, MembershipStore
from bot.delivery.sender import DeliveryStore
from bot.middlewares.user import UserStore
from bot.ops.server import HealthStore
from bot.routers.admin import AdminStore
from bot.routers.errors import ErrorStore
from bot.routers.history import HistoryStore
from bot.routers.market import MarketStore
from bot.routers.prices import PricesStore
from bot.routers.settings import SettingsStore
from bot.routers.start import MenuStore
from bot.routers.watch import SubscribeStore, SubsStore
from monitor.pipeline import PipelineStore
from monitor.watchlist import SubscriptionSource
from storage import Store

PORTS: tuple[type, ...] = (
    PipelineStore,
    SubscriptionSource,
    DeliveryStore,
    HealthStore,
    AlertStore,
    MembershipStore,
    UserStore,
    AdminStore,
    MarketStore,
    ErrorStore,
    HistoryStore,
    PricesStore,
    SettingsStore,
    MenuStore,
    SubscribeStore,
    SubsStore,
    SizingMemoryStore,
)


def serve_every_port(store: Store) -> list[object]:
    """Never called: mypy checks that a Store is each of these."""
    pipeline: PipelineStore = store
    subscriptions: SubscriptionSource = store
    delivery: DeliveryStore = store
    health: HealthStore = store
    alerts: AlertStore = store
    membership: MembershipStore = store
    users: UserStore = store
    admin: AdminStore = store
    ask: MarketStore = store
    errors: ErrorStore = store
    history: HistoryStore = store
    prices: PricesStore = store
    settings: SettingsStore = store
    menu: MenuStore = store
    subscribe: SubscribeStore = store
    subs: SubsStore = store
    memory: SizingMemoryStore = store
    routers: list[object] = [ask, errors, history, prices, settings, menu, subscribe, subs, memory]
    return [pipeline, subscriptions, delivery, health, alerts, membership, users, admin, *routers]


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


def test_every_port_is_small():
    """A port names what its feature uses, not the Store's forty-odd methods."""
    store_methods = {name for name in dir(Store) if not name.startswith("_")}
    assert len(store_methods) > 35
    assert {port.__name__: len(members(port)) for port in PORTS if len(members(port)) > 12} == {}
