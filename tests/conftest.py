"""Fixtures every suite may use: an injectable clock and a data directory per test."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings
from tests.support.clock import Clock

# Property tests check behaviour, not speed: no per-example deadline (a loaded machine
# made a 200 ms deadline fail at random). Speed lives in scripts/bench_*.
settings.register_profile("opindex", deadline=None)
settings.load_profile("opindex")


@pytest.fixture
def clock() -> Clock:
    """Real time plus an offset the test moves forward (suites with a settable clock of
    their own define a ``clock`` fixture that overrides this one)."""
    return Clock()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """Where opindex keeps its state and indexes in this test."""
    return tmp_path / "data"
