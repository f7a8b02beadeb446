"""Where the sample corpus shipped with opindex lives (used by the demo)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SAMPLE_CORPUS = "sample_corpus.json"


def sample_corpus_path() -> Path:
    """The path of the sample corpus file shipped inside the package."""
    return Path(str(resources.files("opindex.sandbox") / "data" / SAMPLE_CORPUS))
