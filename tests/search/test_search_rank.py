"""Generic ranking: raw-score gate, weighted order, ties, limits, empty and exact queries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from opindex.errors import InvalidArgumentError
from opindex.search.analysis import AnalyzedText
from opindex.search.query import parse_query
from opindex.search.rank import FieldContent, FieldSpec, rank_records, rank_records_counted


@dataclass(frozen=True)
class Note:
    id: int
    title: str
    body: str = ""
    tags: Sequence[str] = field(default_factory=tuple)
    owner: str | None = None


FIELDS: tuple[FieldSpec[Note], ...] = (
    FieldSpec("title", 3.0, lambda n: n.title),
    FieldSpec("body", 1.0, lambda n: n.body),
    FieldSpec("tags", 1.0, lambda n: n.tags),
    FieldSpec("owner", 0.5, lambda n: n.owner),
)

NOTES = [
    Note(5, "Budget approval", "Numbers for Q3."),
    Note(3, "Team lunch", "Budget approval happens after lunch."),
    Note(4, "Budget approval", "Same title as 5, smaller id."),
    Note(1, "Offsite", "Nothing relevant", tags=("travel", "budget approval"), owner="Müller"),
    Note(2, "Unrelated", "Completely different"),
]


def ids(ranked: Sequence[object]) -> list[int]:
    return [r.record.id for r in ranked]  # type: ignore[attr-defined]


def test_order_is_weighted_score_then_ascending_id() -> None:
    ranked = rank_records(NOTES, "budget approval", FIELDS)
    assert ids(ranked) == [4, 5, 1, 3]
    assert [r.score for r in ranked] == [1.0, 1.0, 0.33, 0.33]


def test_record_score_is_best_weighted_field_over_max_declared_weight() -> None:
    ranked = rank_records([NOTES[1]], "budget approval", FIELDS)
    assert ranked[0].score == round(1.0 * 1.0 / 3.0, 2)


def test_gate_is_on_the_raw_field_score() -> None:
    owner_only = Note(9, "Offsite", owner="Anna Müller")
    ranked = rank_records([owner_only], "muller", FIELDS)
    assert ids(ranked) == [9]
    assert ranked[0].score == round(1.0 * 0.5 / 3.0, 2)  # below min_score, still returned
    assert rank_records([owner_only], "muller", FIELDS, min_score=1.0)[0].score == 0.17


def test_min_score_filters_on_raw_score() -> None:
    weak = Note(7, "Budget")  # "budget approval" -> 0.5 * 0.5 * 0.85 = 0.21 raw
    assert rank_records([weak], "budget approval", FIELDS) == []
    assert ids(rank_records([weak], "budget approval", FIELDS, min_score=0.2)) == [7]


def test_matches_are_fields_that_scored_best_weighted_first() -> None:
    ranked = rank_records([NOTES[3]], "budget approval", FIELDS)
    assert [(m.field, m.score, m.value_index) for m in ranked[0].matches] == [("tags", 1.0, 1)]
    both = rank_records([Note(8, "Budget approval", "budget approval")], "budget approval", FIELDS)
    assert [m.field for m in both[0].matches] == ["title", "body"]


def test_value_index_names_the_best_value_of_a_multi_valued_field() -> None:
    note = Note(6, "x", tags=("budget", "approval of budget", "budget approval"))
    match = rank_records([note], "budget approval", FIELDS)[0].matches[0]
    assert (match.field, match.value_index, match.snippet) == ("tags", 2, "budget approval")


def test_limit() -> None:
    assert ids(rank_records(NOTES, "budget approval", FIELDS, limit=2)) == [4, 5]
    assert rank_records(NOTES, "budget approval", FIELDS, limit=0) == []


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_fuzzy_query_returns_all_records_unranked_in_input_order(query: str) -> None:
    ranked = rank_records(NOTES, query, FIELDS)
    assert ids(ranked) == [5, 3, 4, 1, 2]
    assert all(r.score == 0.0 and r.matches == () for r in ranked)
    assert ids(rank_records(NOTES, query, FIELDS, limit=2)) == [5, 3]


def test_exact_mode_is_containment_and_ignores_min_score() -> None:
    ranked = rank_records(NOTES, "BUDGET APPROVAL", FIELDS, match_mode="exact", min_score=1.0)
    assert ids(ranked) == [4, 5, 1, 3]
    assert rank_records(NOTES, "budget aproval", FIELDS, match_mode="exact") == []


def test_parsed_query_carries_its_own_mode() -> None:
    exact = parse_query("budget aproval", "exact")
    assert rank_records(NOTES, exact, FIELDS, match_mode="fuzzy") == []
    assert ids(rank_records(NOTES, parse_query("budget aproval"), FIELDS)) == [4, 5, 1, 3]


def test_short_query_uses_containment() -> None:
    assert ids(rank_records(NOTES, "Q3", FIELDS)) == [5]


def test_strings_and_analyzed_values_rank_identically() -> None:
    def analyzed(content: FieldContent) -> FieldContent:
        if isinstance(content, str):
            return AnalyzedText(content)
        if content is None or isinstance(content, AnalyzedText):
            return content
        return tuple(AnalyzedText(v) if isinstance(v, str) else v for v in content)

    pre = tuple(
        FieldSpec(s.name, s.weight, lambda n, s=s: analyzed(s.extract(n)))  # type: ignore[misc]
        for s in FIELDS
    )
    for query in ["budget approval", "budgt", "muller", "Q3", ""]:
        assert rank_records(NOTES, query, pre) == rank_records(NOTES, query, FIELDS)


def test_input_order_does_not_change_the_ranking() -> None:
    forward = rank_records(NOTES, "budget approval", FIELDS)
    backward = rank_records(list(reversed(NOTES)), "budget approval", FIELDS)
    assert forward == backward


def test_generators_are_accepted() -> None:
    assert ids(rank_records((n for n in NOTES), "lunch", FIELDS)) == [3]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_score": -0.1}, "min_score"),
        ({"min_score": 1.5}, "min_score"),
        ({"min_score": float("nan")}, "min_score"),
        ({"min_score": "0.3"}, "min_score"),
        ({"limit": -1}, "limit"),
        ({"limit": 2.5}, "limit"),
        ({"limit": True}, "limit"),
        ({"match_mode": "regex"}, "match mode"),
    ],
)
def test_bad_arguments_are_rejected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        rank_records(NOTES, "budget", FIELDS, **kwargs)  # type: ignore[arg-type]


def test_bad_field_specs_are_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="field spec"):
        rank_records(NOTES, "budget", ())
    with pytest.raises(InvalidArgumentError, match="positive weight"):
        rank_records(NOTES, "budget", (FieldSpec("title", 0.0, lambda n: n.title),))


@pytest.mark.parametrize("query", ["budget approval", "budget", "lunch", "numbers q3", "zz"])
@pytest.mark.parametrize("limit", [None, 0, 1, 2, 3, 10])
def test_a_limit_returns_the_head_of_the_full_ranking_and_counts_all(
    query: str, limit: int | None
) -> None:
    # Duplicated ids tie on (score, id): input order decides, as in a stable sort.
    twins = [Note(4, "Budget approval", "twin of 4"), Note(5, "budget lunch numbers")]
    notes = [*NOTES, *twins, *reversed(NOTES)]
    full = rank_records(notes, query, FIELDS)
    ranked, kept = rank_records_counted(notes, query, FIELDS, limit=limit)
    assert ranked == full[:limit]
    assert kept == len(full)
    assert [r.record for r in rank_records(notes, query, FIELDS, limit=limit)] == [
        r.record for r in full[:limit]
    ]
