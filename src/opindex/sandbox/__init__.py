"""An OpenProject API v3 stand-in serving a corpus file, for demos, tests and benchmarks."""

from __future__ import annotations

from opindex.sandbox.sample_corpus import sample_corpus_path

__all__ = ["sample_corpus_path"]
