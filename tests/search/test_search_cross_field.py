"""Cross-field matching: words split across fields (or values) find the record that holds
them all, scored with the weights of the fields they are in (DECISIONS D89)."""

from __future__ import annotations

import pytest

from opindex.search.document import FieldValue, SearchDocument
from opindex.search.fields import rank_documents
from opindex.search.match import cross_field_scores


def _doc(kind: str, record_id: int, **fields: str | list[str]) -> SearchDocument:
    values = {
        name: tuple(FieldValue(v) for v in ([text] if isinstance(text, str) else text))
        for name, text in fields.items()
    }
    return SearchDocument(kind=kind, id=record_id, fields=values)  # type: ignore[arg-type]


SPLIT = [
    # (kind, query, the record holding every word across fields, others)
    (
        "work_package",
        "flamingo checkout",
        _doc("work_package", 1002, subject="Checkout", comments=["the flamingo theme broke it"]),
        [_doc("work_package", i, subject=f"Checkout step {i}") for i in range(1, 40)],
    ),
    (
        "meeting",
        "retro payroll",
        _doc("meeting", 7, title="Sprint retro", agenda_title=["Payroll export"]),
        [_doc("meeting", i, title=f"Sprint retro {i}") for i in range(10, 30)],
    ),
    (
        "wiki_page",
        "onboarding vpn",
        _doc("wiki_page", 3, title="Onboarding guide", text="Install the VPN client first."),
        [_doc("wiki_page", i, title=f"Onboarding {i}") for i in range(10, 30)],
    ),
    (
        "work_package",
        "heron budgt",  # a typo within the rules still counts
        _doc("work_package", 5, description="Heron project", comments=["budget signed"]),
        [_doc("work_package", i, subject="Budget review") for i in range(10, 20)],
    ),
    (
        "work_package",
        "flamingo checkout",  # split across two values of one field
        _doc("work_package", 8, comments=["flamingo theme", "checkout page"]),
        [_doc("work_package", i, comments=["checkout page"]) for i in range(10, 20)],
    ),
]


@pytest.mark.parametrize(("kind", "query", "target", "others"), SPLIT)
def test_the_record_holding_every_word_ranks_first(
    kind: str, query: str, target: SearchDocument, others: list[SearchDocument]
) -> None:
    ranked = rank_documents([*others, target], query, kind)  # type: ignore[arg-type]
    assert ranked and ranked[0].record.id == target.id
    assert {m.field for m in ranked[0].matches} <= set(target.fields)


def test_all_words_somewhere_beats_some_words_in_fields_of_the_same_weight() -> None:
    every = _doc("work_package", 2, description="alpha beta", comments=["gamma"])
    some = _doc("work_package", 1, description="alpha beta")
    ranked = rank_documents([some, every], "alpha beta gamma", "work_package")
    assert [r.record.id for r in ranked] == [2, 1]


def test_words_together_in_one_field_rank_above_the_same_words_spread() -> None:
    together = _doc("work_package", 2, description="yeti cdn")
    spread = _doc("work_package", 1, subject="Yeti", comments=["cdn"])
    ranked = rank_documents([spread, together], "yeti cdn", "work_package")
    assert [r.record.id for r in ranked] == [2, 1]  # the spread one still matches


def test_cross_field_score_counts_like_its_lightest_field() -> None:
    # subject (3.0) holds term 0, a comment (1.0) term 1, nothing holds term 2
    rows = [[1.0, 0.0, 0.0], None, [0.0, 1.0, 0.0]]
    raw, weighted = cross_field_scores(rows, [3.0, 1.0, 1.0], 3.0)
    assert raw == pytest.approx((2 / 3) * (2 / 3) * 0.85 * 0.95)
    assert weighted == pytest.approx(raw * 1.0 / 3.0)
    assert cross_field_scores([None, None], [3.0, 1.0], 3.0) == (0.0, 0.0)


def test_one_field_alone_keeps_its_score() -> None:
    alone = _doc("work_package", 1, subject="alpha beta")
    (ranked,) = rank_documents([alone], "alpha beta", "work_package")
    assert ranked.score == 1.0  # the phrase bonus still decides a verbatim subject
