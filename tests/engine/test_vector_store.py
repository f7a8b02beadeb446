"""The vector store with the real bundled model on tiny records: search, filters, updates."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from opindex.embedding import BundledEmbedder
from opindex.engine.vector_file import MAGIC
from opindex.engine.vectors import RecordVectors, VectorStore, embed_records, quantize
from opindex.errors import EmbeddingError, IndexDamagedError, VectorModelMismatchError
from opindex.records import Record
from opindex.search import FieldValue, Kind, SearchDocument

EMBEDDER = BundledEmbedder()


def record(kind: Kind, record_id: int, title: str, **fields: tuple[FieldValue, ...]) -> Record:
    document = SearchDocument(kind=kind, id=record_id, fields=fields)
    return Record(document=document, title=title)


RECORDS = [
    record(
        "work_package",
        1,
        "Checkout page slow on mobile devices",
        description=(FieldValue("Customers on phones wait eight seconds before paying."),),
        comments=(FieldValue("The payment form loads three tracking scripts.", ref=501),),
    ),
    record("work_package", 2, "Renew TLS certificate for the customer portal"),
    record("work_package", 3, "Office move planning for the new floor"),
    record("wiki_page", 4, "On-call handbook", text=(FieldValue("What to do when paged."),)),
    record("meeting", 5, "Finance steering committee"),
]


def build(
    tmp_path: Path, records: list[Record] = RECORDS, name: str = "vectors.bin"
) -> VectorStore:
    entries = embed_records(records, EMBEDDER)
    return VectorStore.create(
        tmp_path / name, entries, model=EMBEDDER.model_id, dimension=EMBEDDER.dimension
    )


def query(text: str) -> NDArray[np.float32]:
    return np.asarray(EMBEDDER.embed([text])[0], dtype=np.float32)


def test_a_paraphrase_finds_its_record_and_its_best_chunk(tmp_path: Path) -> None:
    store = build(tmp_path)
    hits = store.search(query("customers on phones wait ages before they can pay"), 3)
    assert (hits[0].kind, hits[0].id) == ("work_package", 1)
    assert hits[0].score > hits[1].score >= hits[2].score
    comment = store.search(query("tracking scripts in the payment form"), 1)[0]
    assert (comment.id, comment.part, comment.ref) == (1, "comment", 501)


def test_scores_are_the_cosine_of_the_float_vectors_within_quantization_error(
    tmp_path: Path,
) -> None:
    store = build(tmp_path)
    q = query("certificate expiry")
    exact = EMBEDDER.embed([r.title for r in RECORDS]) @ q
    titles = {hit.id: hit.score for hit in store.search(q, 10) if hit.part == "title"}
    for index, rec in enumerate(RECORDS):
        if rec.id in titles:
            assert abs(titles[rec.id] - float(exact[index])) < 0.01
    rows = EMBEDDER.embed(["a", "some longer text about the audit log"])
    quantized, scales = quantize(rows)
    assert np.abs(quantized.astype(np.float32) * scales[:, None] - rows).max() < 0.005


def test_a_record_mask_keeps_only_its_records(tmp_path: Path) -> None:
    store = build(tmp_path)
    q = query("customers on phones wait ages before they can pay")
    wikis = store.search(q, 10, store.kind_mask({"wiki_page"}))
    assert [(h.kind, h.id) for h in wikis] == [("wiki_page", 4)]
    some = store.search(q, 10, store.mask_of([("work_package", 2), ("meeting", 5)]))
    assert {h.id for h in some} == {2, 5}
    assert store.search(q, 10, np.zeros(store.record_count, dtype=np.bool_)) == []
    with pytest.raises(ValueError, match="mask has shape"):
        store.search(q, 10, np.ones(2, dtype=np.bool_))


def test_updates_write_a_new_file_equal_to_a_fresh_build(tmp_path: Path) -> None:
    first = build(tmp_path, RECORDS[:3], "g1.bin")
    changed = record("work_package", 2, "Rotate the database passwords")
    upserts = embed_records([changed, *RECORDS[3:]], EMBEDDER)
    second = first.updated(tmp_path / "g2.bin", upserts=upserts, deletes=[("work_package", 3)])
    fresh = build(tmp_path, [RECORDS[0], changed, *RECORDS[3:]], "fresh.bin")
    assert (
        second.keys()
        == fresh.keys()
        == [
            ("work_package", 1),
            ("work_package", 2),
            ("wiki_page", 4),
            ("meeting", 5),
        ]
    )
    assert (tmp_path / "g2.bin").read_bytes() == (tmp_path / "fresh.bin").read_bytes()
    assert first.keys() == [("work_package", 1), ("work_package", 2), ("work_package", 3)]
    assert VectorStore.open(tmp_path / "g1.bin").keys() == first.keys()  # old file untouched
    assert second.position("work_package", 3) is None
    hit = second.search(query("change the credentials of the database"), 1)[0]
    assert (hit.kind, hit.id) == ("work_package", 2)


def test_a_record_with_only_blank_text_is_absent_and_an_empty_store_finds_nothing(
    tmp_path: Path,
) -> None:
    store = build(tmp_path, [record("work_package", 9, "   ")])
    assert store.record_count == 0 and store.search(query("anything"), 5) == []
    reopened = VectorStore.open(store.path, model=EMBEDDER.model_id)
    assert reopened.record_count == 0 and reopened.chunk_count == 0


def test_the_file_is_read_only_mapped_and_carries_the_model(tmp_path: Path) -> None:
    store = build(tmp_path)
    reopened = VectorStore.open(store.path, model=EMBEDDER.model_id)
    assert reopened.model == EMBEDDER.model_id and reopened.dimension == 256
    assert reopened.chunk_count == 8 and reopened.record_count == 5
    stored = reopened.chunk_vectors("work_package", 1)
    assert stored.shape == (3, 256) and not reopened._a.vectors.flags.writeable
    with pytest.raises(VectorModelMismatchError, match="rebuild the index"):
        VectorStore.open(store.path, model="openai-compatible:other")


def _header(path: Path) -> dict[str, object]:
    data = path.read_bytes()
    length = int.from_bytes(data[8:12], "little")
    header: dict[str, object] = json.loads(data[12 : 12 + length])
    return header


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda data: data[:-64], "does not match its header"),
        (lambda data: b"NOTAVECT" + data[8:], "bad magic"),
        (lambda data: data[:-1] + bytes([data[-1] ^ 0x40]), "checksum mismatch"),
        (lambda data: data[:12] + b"x" + data[13:], "unreadable header"),
    ],
)
def test_a_damaged_file_is_refused_with_its_reason(
    tmp_path: Path, damage: Callable[[bytes], bytes], reason: str
) -> None:
    store = build(tmp_path)
    store.path.write_bytes(damage(store.path.read_bytes()))
    with pytest.raises(IndexDamagedError, match=reason) as caught:
        VectorStore.open(store.path)
    assert caught.value.file == "vectors.bin" and caught.value.generation == tmp_path.name


def test_another_chunking_version_must_be_rebuilt(tmp_path: Path) -> None:
    store = build(tmp_path)
    data = store.path.read_bytes()
    assert data.startswith(MAGIC) and _header(store.path)["chunking"] == 1
    patched = data.replace(b'"chunking": 1', b'"chunking": 0')
    store.path.write_bytes(patched)
    with pytest.raises(VectorModelMismatchError, match="chunked by version 0"):
        VectorStore.open(store.path, model=EMBEDDER.model_id)


def test_bad_updates_and_queries_are_refused(tmp_path: Path) -> None:
    store = build(tmp_path)
    entry = embed_records(RECORDS[:1], EMBEDDER)[0]
    with pytest.raises(ValueError, match="twice"):
        store.updated(tmp_path / "x.bin", upserts=[entry, entry])
    wrong = RecordVectors(entry.kind, entry.id, entry.chunks, entry.vectors[:, :10])
    with pytest.raises(EmbeddingError, match="vectors of shape"):
        store.updated(tmp_path / "x.bin", upserts=[wrong])
    with pytest.raises(EmbeddingError, match="query vector has shape"):
        store.search(np.ones(3, dtype=np.float32), 1)
    assert not (tmp_path / "x.bin").exists()
