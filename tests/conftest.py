"""Fixtures every suite may use: an injectable clock and a data directory per test."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.clock import Clock


@pytest.fixture
def clock() -> Clock:
    """Real time plus an offset the test moves forward (suites with a settable clock of
    their own define a ``clock`` fixture that overrides this one)."""
    return Clock()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """Where opindex keeps its state and indexes in this test."""
    return tmp_path / "data"
