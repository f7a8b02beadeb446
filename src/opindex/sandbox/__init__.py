"""An OpenProject API v3 stand-in serving a corpus file, for demos, tests and benchmarks."""

from __future__ import annotations

from opindex.sandbox.options import MEETINGS_API_LEVELS, MeetingsApi, SandboxOptions
from opindex.sandbox.sample_corpus import sample_corpus_path
from opindex.sandbox.server import serve

__all__ = [
    "MEETINGS_API_LEVELS",
    "MeetingsApi",
    "SandboxOptions",
    "sample_corpus_path",
    "serve",
]
