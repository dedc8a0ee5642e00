"""A person's own measured training speed, as stored (storage.measurements): the bot sets it
against the time model (estimator.measurement) and scales that person's later answers by it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class StoredSpeed:
    gpu: str  # catalog GPU id
    gpus: int
    tokens_per_second: float  # per GPU, as measured
    predicted: float  # per GPU, what the time model gave for the same run then
    run: str  # the run measured, as a /fit command
    at: datetime
