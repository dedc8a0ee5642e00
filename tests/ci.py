"""Tests that need something this machine may lack (a PostgreSQL server, a browser) skip
without it, with one line saying what is missing, except in CI (CI=true), where it must be
there and its absence fails the run."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def skip_or_fail(missing: str, must: str) -> NoReturn:
    """Skip the calling test for `missing`; under CI=true fail it, saying `must`."""
    if in_ci():
        pytest.fail(f"{missing} (CI=true: {must})", pytrace=False)
    pytest.skip(missing)
