"""Fixtures for the sandbox tests: one shared running server over a small, varied corpus."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.corpora import VARIED_PAGE_SIZE_MAX, varied_corpus
from tests.support.sandbox import SandboxHandle, running_sandbox


@pytest.fixture(scope="session")
def shared_sandbox() -> Iterator[SandboxHandle]:
    """A server nobody mutates (tests that change state start their own)."""
    with running_sandbox(varied_corpus(), page_size_max=VARIED_PAGE_SIZE_MAX) as handle:
        yield handle
