"""The text engine: analysed records on disk, their vocabulary and postings, and the scorer.

Everything the index path's text retrieval does lives here: the analysis store (immutable
memory-mapped segment files per generation, ``analysis/``), the vocabulary and its
trigram index, the posting codecs (varint streams, 24-bit integers, bitmap rank), the
vectorized scorer and its pruning, the per-hit match details, segments and their tiered
merges, substring (containment) look-ups, and the one filter model. It is proven against
the spec's scalar scorer in ``opindex.search`` (ARCHITECTURE invariant 3).

The public face, all other units use (the modules stay private):

- ``AnalysisStore(generation_dir)``: one generation's engine; ``view()`` is a snapshot:
  ``search(query, kind, filters, limit, min_score)`` → ranked ``(id, score)`` pairs and
  the exact total; ``described(...)`` → ``(id, score, RecordBests)`` (what each hit
  matched, for snippets; ``token_text`` names a token); ``frequency``, ``vocabulary``.
  Opening a view verifies every segment file against the manifest's SHA-256
  (``files().verified()`` tells which); damage is an ``IndexDamagedError``.
- ``AnalysisWriter(store, opstamp)``: ``upsert`` / ``delete`` then ``commit(opstamp)``:
  one vocabulary slice and one segment per changed kind, merged by size tiers.
- ``create_store`` (an empty store), ``listed_segments``, ``DIRECTORY``, ``MANIFEST``: the
  layout the index's verification re-reads.
- ``IndexFilters`` (with ``Columns``, ``updated_timestamp``, ``updated_value``): the one
  filter model; the engine applies it to its columns, the index compiles it to Tantivy
  clauses.
- ``Vocabulary``, ``containment_needle``, ``containment_tokens``, ``raw_contains``:
  substring look-ups over the vocabulary for exact-mode queries.
- ``damaged_error``, ``Stamp``, ``VerifiedFile``: damage named the way the index names it.
- ``VectorStore``, ``RecordVectors``, ``embed_records``, ``record_chunks``: meaning. A
  record's chunks (title, description, comments, agenda items, wiki sections, bodies,
  attachment text) embedded by an ``opindex.embedding`` model, stored int8 in one
  checksummed, memory-mapped file stamped with the model's identity; brute-force top-k
  under a record mask (DECISIONS D207).
- ``fuse`` (with ``LexicalHit``, ``SemanticHit``, ``FusedHit``): word and meaning rankings
  fused so a confident word match keeps its place (DECISIONS D208).
"""

from opindex.engine.analysis_store import DIRECTORY, MANIFEST, AnalysisStore, listed_segments
from opindex.engine.analysis_store import create as create_store
from opindex.engine.analysis_writer import AnalysisWriter
from opindex.engine.chunks import record_chunks
from opindex.engine.containment import containment_needle, containment_tokens, raw_contains
from opindex.engine.damage import Stamp, VerifiedFile, damaged_error
from opindex.engine.filters import (
    NO_FILTERS,
    Columns,
    IndexFilters,
    StatusSelection,
    updated_timestamp,
    updated_value,
)
from opindex.engine.fusion import FusedHit, LexicalHit, SemanticHit, fuse
from opindex.engine.vectors import RecordVectors, VectorStore, embed_records
from opindex.engine.vocabulary import Vocabulary

__all__ = [
    "DIRECTORY",
    "MANIFEST",
    "NO_FILTERS",
    "AnalysisStore",
    "AnalysisWriter",
    "Columns",
    "FusedHit",
    "IndexFilters",
    "LexicalHit",
    "RecordVectors",
    "SemanticHit",
    "Stamp",
    "StatusSelection",
    "VectorStore",
    "VerifiedFile",
    "Vocabulary",
    "containment_needle",
    "containment_tokens",
    "create_store",
    "damaged_error",
    "embed_records",
    "fuse",
    "listed_segments",
    "raw_contains",
    "record_chunks",
    "updated_timestamp",
    "updated_value",
]
