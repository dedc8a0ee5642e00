"""Hypothesis profile for the fuzz tests.

`HYPOTHESIS_PROFILE=deep pytest tests/fuzz` runs every fuzz test with ten times the examples
(the scaling itself is in `tests.fuzz.fuzz`, since a test's own `@settings` beats a profile)
and prints a reproduction blob for any failure.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("deep", deadline=None, print_blob=True)
if os.environ.get("HYPOTHESIS_PROFILE") == "deep":
    settings.load_profile("deep")
