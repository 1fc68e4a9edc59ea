"""Where the tests find the real TravelPlanner files (``../shared/travelplanner``, beside the checkout), and the
one way a test that needs them skips where they are absent (a user's clone; ``.ci/run`` refuses to run
without them, so in CI they always run)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "travelplanner"


def require_shared() -> Path:
    """``SHARED``, or a skip saying where it was looked for."""
    if not (SHARED / "database").is_dir() or not (SHARED / "train.csv").is_file():
        pytest.skip(f"TravelPlanner data not found at {SHARED} (clone the project beside ../shared)")
    return SHARED
