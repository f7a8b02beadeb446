"""The evaluation library lives under scripts/ (kept apart from the package): import it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))

from evallib.corpus_view import CorpusItem, corpus_items  # noqa: E402
from opindex.sandbox.corpus_gen import CorpusSize, generate_corpus  # noqa: E402


@pytest.fixture(scope="session")
def small_corpus() -> dict[str, Any]:
    """A generated corpus of 120 work packages, 12 wiki pages and 10 meetings."""
    return generate_corpus(CorpusSize.proportional(120, wiki_pages=12, meetings=10), seed=3)


@pytest.fixture(scope="session")
def small_items(small_corpus: dict[str, Any]) -> list[CorpusItem]:
    return corpus_items(small_corpus)
