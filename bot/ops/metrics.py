"""Prometheus metrics of one application, in a registry of its own.

Nothing is registered at import time (prometheus_client's default registry is process-wide,
so two applications in one test process would collide); each `Metrics()` owns its registry.
The hooks here are plain synchronous callables: the scheduler calls `record_outcome`, the
sender `record_send`, the latency middleware `observe_update`, and the /metrics handler
`refresh_outbox` (a custom collector could not await the database) before `render`.
"""

from __future__ import annotations

from collections.abc import Collection

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from monitor.pipeline import PipelineOutcome

__all__ = ["CONTENT_TYPE_LATEST", "HEALTH_PROBLEMS", "METRIC_NAMES", "Metrics"]

# What gpuradar_health_problem{problem} can say (the keys of bot.ops.server.PROBLEMS).
HEALTH_PROBLEMS = (
    "database_unreachable",
    "database_unwritable",
    "outbox_stuck",
    "scheduler_stopped",
    "providers_stale",
)

# Scrapes take from a fraction of a second to the HTTP client's whole timeout budget.
_SCRAPE_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
# Handling one update: a database read and a reply, or a chart rendered.
_UPDATE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

# What /metrics exposes (as docs/operations.md lists it).
METRIC_NAMES = (
    "gpuradar_scrape_duration_seconds",
    "gpuradar_scrape_successes_total",
    "gpuradar_scrape_failures_total",
    "gpuradar_offers",
    "gpuradar_events_total",
    "gpuradar_alerts_queued_total",
    "gpuradar_outbox_pending",
    "gpuradar_messages_sent_total",
    "gpuradar_messages_failed_total",
    "gpuradar_update_duration_seconds",
    "gpuradar_health_problem",
    "gpuradar_leader",
)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.scrape_duration = Histogram(
            "gpuradar_scrape_duration_seconds",
            "Time one provider refresh took, good or failed.",
            ["provider"],
            buckets=_SCRAPE_BUCKETS,
            registry=registry,
        )
        self.scrape_successes = Counter(
            "gpuradar_scrape_successes",
            "Provider refreshes that stored a snapshot.",
            ["provider"],
            registry=registry,
        )
        self.scrape_failures = Counter(
            "gpuradar_scrape_failures",
            "Provider refreshes that failed, by error class (network, http, layout, ...).",
            ["provider", "error"],
            registry=registry,
        )
        self.offers = Gauge(
            "gpuradar_offers",
            "Offers in the provider's last good snapshot.",
            ["provider"],
            registry=registry,
        )
        self.events = Counter(
            "gpuradar_events",
            "Changes found between snapshots, by kind.",
            ["kind"],
            registry=registry,
        )
        self.alerts_queued = Counter(
            "gpuradar_alerts_queued",
            "Alerts put into the outbox.",
            ["provider"],
            registry=registry,
        )
        self.outbox_pending = Gauge(
            "gpuradar_outbox_pending",
            "Outbox rows waiting to be sent (read when /metrics is scraped).",
            registry=registry,
        )
        self.messages_sent = Counter(
            "gpuradar_messages_sent",
            "Alert messages Telegram accepted.",
            registry=registry,
        )
        self.messages_failed = Counter(
            "gpuradar_messages_failed",
            "Alert send attempts that failed, by reason "
            "(flood_wait, retry, dropped_400, blocked_403, api_error, gave_up).",
            ["reason"],
            registry=registry,
        )
        self.update_duration = Histogram(
            "gpuradar_update_duration_seconds",
            "Time to handle one incoming Telegram update, by update type.",
            ["update_type"],
            buckets=_UPDATE_BUCKETS,
            registry=registry,
        )

        self.health_problem = Gauge(
            "gpuradar_health_problem",
            "1 while /healthz reports this problem (why it answers 503), else 0: "
            + ", ".join(HEALTH_PROBLEMS)
            + ".",
            ["problem"],
            registry=registry,
        )
        self.set_health_problems(())
        self.leader = Gauge(
            "gpuradar_leader",
            "1 while this replica is the elected leader (it polls Telegram and refreshes), "
            "0 while it follows.",
            registry=registry,
        )

    def set_role(self, role: str) -> None:
        """The Replica's `on_role` hook."""
        self.leader.set(1 if role == "leader" else 0)

    def set_health_problems(self, problems: Collection[str]) -> None:
        """The problems /healthz found last (bot.ops.server.PROBLEMS keys)."""
        for problem in HEALTH_PROBLEMS:
            self.health_problem.labels(problem).set(1 if problem in problems else 0)

    def record_outcome(self, outcome: PipelineOutcome) -> None:
        provider = outcome.provider
        self.scrape_duration.labels(provider).observe(outcome.duration_s)
        if not outcome.ok:
            kind = outcome.error.kind if outcome.error is not None else "unknown"
            self.scrape_failures.labels(provider, kind).inc()
            return
        self.scrape_successes.labels(provider).inc()
        self.offers.labels(provider).set(outcome.offers)
        for kind, count in outcome.events_by_kind.items():
            self.events.labels(kind).inc(count)
        if outcome.alerts:
            self.alerts_queued.labels(provider).inc(outcome.alerts)

    def record_send(self, outcome: str) -> None:
        """The Sender's `on_result` hook."""
        if outcome == "sent":
            self.messages_sent.inc()
        else:
            self.messages_failed.labels(outcome).inc()

    def observe_update(self, update_type: str, seconds: float) -> None:
        self.update_duration.labels(update_type).observe(seconds)

    def set_outbox_pending(self, count: int) -> None:
        self.outbox_pending.set(count)

    def render(self) -> bytes:
        """The Prometheus text exposition of everything above."""
        return generate_latest(self.registry)
