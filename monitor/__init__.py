"""Core domain: offers, snapshots, events, subscriptions; diff, match, refresh orchestration."""
