"""Fixtures for the sandbox tests: one shared running server over a small, varied corpus."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Make ``tests.support`` importable when pytest runs without the repository root on sys.path.
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.sandbox.varied_corpus import PAGE_SIZE_MAX, varied_corpus  # noqa: E402
from tests.support.sandbox import SandboxHandle, running_sandbox  # noqa: E402


@pytest.fixture(scope="session")
def shared_sandbox() -> Iterator[SandboxHandle]:
    """A server nobody mutates (tests that change state start their own)."""
    with running_sandbox(varied_corpus(), page_size_max=PAGE_SIZE_MAX) as handle:
        yield handle
