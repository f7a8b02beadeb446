"""`opindex --help` stays light: neither the embedding model nor its code is imported."""

from __future__ import annotations

from tests.support.module_probe import imported_by


def test_help_does_not_import_the_embedding_model() -> None:
    run = imported_by(["--help"])
    assert run.code == 0
    assert "wordllama" not in {name.split(".")[0] for name in run.modules}
    assert "opindex.embedding.bundled" not in run.modules
