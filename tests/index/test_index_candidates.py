"""Candidate order, the cap and what it reports, and the per-rule clauses."""

from __future__ import annotations

import pytest
from index_fixtures import work_package

from opindex.engine.token_index import TokenIndex
from opindex.engine.vocabulary import Anchor, Vocabulary
from opindex.errors import InvalidArgumentError
from opindex.index import TenantIndex
from opindex.search.query import parse_query


def found(index: TenantIndex, text: str, mode: str = "fuzzy", limit: int = 500) -> list[int]:
    return [r.id for r in index.candidates(parse_query(text, mode), "work_package", limit=limit)]  # type: ignore[arg-type]


@pytest.fixture
def rules(index: TenantIndex) -> TenantIndex:
    index.upsert(
        [
            work_package(1, "budget"),  # exact
            work_package(2, "budgeting"),  # starts with
            work_package(3, "overbudgeted"),  # contains (len >= 4)
            work_package(4, "budgte"),  # transposition, distance 1 (OSA) / 2 (Levenshtein)
            work_package(5, "budgetary"),
            work_package(6, "decision"),  # shared prefix >= 4 with "decide"
            work_package(7, "unrelated words"),
            work_package(8, "bud"),
        ]
    )
    index.commit()
    return index


def test_each_scorer_rule_has_a_clause(rules: TenantIndex) -> None:
    assert sorted(found(rules, "budget")) == [1, 2, 3, 4, 5]
    assert sorted(found(rules, "decide")) == [6]
    assert sorted(found(rules, "udge")) == [1, 2, 3, 5]  # containment, len 4
    assert sorted(found(rules, "bud*")) == [1, 2, 4, 5, 8]
    assert sorted(found(rules, "budegt")) == [1, 4]  # typo distance 2 at len 6
    assert found(rules, "zzzz") == []


def test_typos_in_long_tokens_are_found_through_the_vocabulary(index: TenantIndex) -> None:
    long = "internationalizationlocalizationsupport"  # past the automaton's length limit
    # Record 2 shares no prefix with the queries: only the edit-distance rule finds it.
    index.upsert([work_package(1, long), work_package(2, "x" + long), work_package(3, "other")])
    index.commit()
    typo = long[:10] + "x" + long[11:20] + long[21:]  # 2 edits from 1, 3 from 2
    assert sorted(found(index, typo)) == [1]
    assert sorted(found(index, long[:-1] + "q")) == [1, 2]  # 1 edit from 1, 2 from 2


def test_candidates_matching_more_terms_come_first_and_the_cap_cuts_the_rest(
    index: TenantIndex,
) -> None:
    index.upsert(work_package(i, "approval of something") for i in range(1, 40))
    index.upsert([work_package(100, "budget approval"), work_package(101, "the budget aproval")])
    index.commit()
    everything = index.candidates(parse_query("budget approval"), "work_package", limit=500)
    assert len(everything) == 41 and everything.total == 41
    assert not everything.truncated
    assert sorted(r.id for r in everything[:2]) == [100, 101]

    capped = index.candidates(parse_query("budget approval"), "work_package", limit=5)
    assert len(capped) == 5
    assert capped.total == 41 and capped.truncated
    assert sorted(r.id for r in capped[:2]) == [100, 101]


def test_exact_tokens_in_the_title_rank_above_body_matches(index: TenantIndex) -> None:
    index.upsert(
        [
            work_package(1, "misc", "budget mentioned in the body"),
            work_package(2, "budget", "body"),
        ]
    )
    index.commit()
    assert found(index, "budget") == [2, 1]


def test_containment_queries_come_in_id_order_and_report_the_cap(index: TenantIndex) -> None:
    # The ranker orders equal scores (all containment scores are 1) by ascending id.
    index.upsert(work_package(i, f"ticket no {i} budget") for i in (7, 3, 10, 1, 5, 2))
    index.commit()
    result = index.candidates(parse_query("BUDG", "exact"), "work_package", limit=3)
    assert [r.id for r in result] == [1, 2, 3]
    assert result.truncated and result.total == 6


def test_fuzzy_ties_are_broken_by_ascending_id(index: TenantIndex) -> None:
    index.upsert(work_package(i, "x", f"budget {i}") for i in (9, 4, 12, 1, 7))
    index.upsert([work_package(20, "budget")])  # a subject match outranks every body match
    index.commit()
    assert found(index, "budget", limit=3) == [20, 1, 4]


def test_short_fuzzy_queries_use_containment(index: TenantIndex) -> None:
    index.upsert([work_package(1, "QA review"), work_package(2, "Aqaba"), work_package(3, "q a")])
    index.commit()
    assert sorted(found(index, "qa")) == [1, 2]
    assert sorted(found(index, "q a", "exact")) == [3]
    assert sorted(found(index, " qa ")) == [1, 2]  # fuzzy containment strips the query


def test_queries_without_letters_scan_the_raw_text(index: TenantIndex) -> None:
    index.upsert([work_package(1, "a -- b"), work_package(2, "a - b"), work_package(3, "x--")])
    index.commit()
    assert sorted(found(index, "--", "exact")) == [1, 3]
    assert sorted(found(index, "--")) == [1, 3]
    assert found(index, "--", limit=1) in ([1], [3])


def test_a_query_without_terms_gets_every_record_newest_first(index: TenantIndex) -> None:
    index.upsert(work_package(i, "budget") for i in (3, 1, 2))
    index.commit()
    assert found(index, "") == [3, 2, 1]  # equal (unknown) update times: highest id first
    assert found(index, "   ", limit=2) == [3, 2]


def test_bad_limit(index: TenantIndex) -> None:
    with pytest.raises(InvalidArgumentError, match="limit"):
        found(index, "budget", limit=0)


def test_vocabulary_lookups_fold_case_and_anchor() -> None:
    vocabulary = Vocabulary.of(["straße", "abc", "xabcx", "ab", "ς", "σοφος", "日本語"])
    assert vocabulary.find("ab") == ["abc", "xabcx", "ab"]
    assert vocabulary.find("ab", "start") == ["abc", "ab"]
    assert vocabulary.find("bc", "end") == ["abc"]
    assert vocabulary.find("ab", "whole") == ["ab"]
    assert vocabulary.find("SS") == ["straße"]  # casefold: ß -> ss
    assert vocabulary.find("σ", "end") == ["ς", "σοφος"]  # casefold: ς -> σ
    assert vocabulary.find("本") == ["日本語"]
    assert vocabulary.find("b", limit=1) is None
    assert vocabulary.find("b", limit=3) == ["abc", "xabcx", "ab"]
    assert vocabulary.find("") == vocabulary.find("", "whole")
    assert vocabulary.find("zz") == []
    assert Vocabulary.of([]).find("a") == []
    assert vocabulary.size == 7


def test_a_token_holding_the_piece_twice_is_found_once() -> None:
    vocabulary = Vocabulary.of(["abab", "ab", "xab", "aab"])
    assert vocabulary.find("ab") == ["abab", "ab", "xab", "aab"]
    assert vocabulary.find("ab", "start") == ["abab", "ab"]
    assert vocabulary.find("ab", "end") == ["abab", "ab", "xab", "aab"]
    assert vocabulary.find("ab", "whole") == ["ab"]
    assert vocabulary.find("a", "whole") == []


def test_vocabulary_ids_span_slices_and_the_limit_counts_them_all() -> None:
    first = TokenIndex("\nalpha\nbeta\n", base=0)
    second = TokenIndex("\nσοφος\nςa\ngamma\n", base=2)  # folding changes this slice
    vocabulary = Vocabulary([first, TokenIndex("\n", base=2), second])
    assert vocabulary.size == 5

    def ids(piece: str, anchor: Anchor = "anywhere", limit: int | None = None) -> list[int]:
        found = vocabulary.find_ids(piece, anchor, limit)
        assert found is not None
        return found.tolist()

    assert ids("a") == [0, 1, 3, 4]
    assert ids("σ", "start") == [2, 3]
    assert vocabulary.find("σa", "whole") == ["ςa"]
    assert vocabulary.find_ids("a", limit=3) is None  # two in each slice: four in all
    assert ids("a", limit=4) == [0, 1, 3, 4]
    assert ids("") == [0, 1, 2, 3, 4]
    assert vocabulary.find_ids("", limit=4) is None


def test_record_cache_never_serves_stale_records(index: TenantIndex) -> None:
    uncached = TenantIndex(index.directory, record_cache=0)
    index.upsert([work_package(1, "budget v1")])
    index.commit()
    first = index.candidates(parse_query("budget"), "work_package")
    assert first == index.candidates(parse_query("budget"), "work_package")  # from the cache
    assert first == uncached.candidates(parse_query("budget"), "work_package")
    index.upsert([work_package(1, "budget v2")])
    index.commit()
    assert [r.title for r in index.candidates(parse_query("budget"), "work_package")] == [
        "budget v2"
    ]
    assert [r.title for r in uncached.candidates(parse_query("budget"), "work_package")] == [
        "budget v2"
    ]


def test_a_tenant_keeps_at_most_32_decoded_records(index: TenantIndex) -> None:
    """A search decodes only the records it returns; 32 cover a page and what follows it
    (DECISIONS D141): reading 40 keeps the 32 read last."""
    index.upsert(work_package(n, f"budget {n}") for n in range(1, 41))
    index.commit()
    for n in range(1, 41):
        assert index.get("work_package", n) is not None
    cached = index._snapshot().records._records  # (segment, doc) -> decoded record
    assert sorted(record.id for record in cached.values()) == list(range(9, 41))


def test_the_vocabulary_follows_commits_and_survives_rollback(index: TenantIndex) -> None:
    reader = TenantIndex(index.directory)
    infix = parse_query("ebrafi")  # found only through the vocabulary (containment rule)
    index.upsert([work_package(1, "zebrafish")])
    index.rollback()  # the term was seen but never written
    index.upsert([work_package(2, "zebrafish")])
    index.commit()
    assert [r.id for r in reader.candidates(infix, "work_package")] == [2]
    index.upsert([work_package(3, "Grebrafinch")])
    index.commit()
    assert sorted(r.id for r in reader.candidates(infix, "work_package")) == [2, 3]
