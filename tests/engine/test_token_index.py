"""The trigram token index finds exactly the vocabulary tokens the rule table accepts."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opindex.engine import trigram_postings
from opindex.engine.token_index import TokenIndex, lookup_all, term_matches
from opindex.engine.trigram_postings import (
    LENGTH_CAP,
    LENGTH_SHIFT,
    LOCAL_MASK,
    TrigramLists,
    index_arrays,
    padded_keys,
    stored_lists,
    token_bounds,
)
from opindex.search.analysis import AnalyzedText
from opindex.search.match import token_starts
from opindex.search.query import Alternative, alternative_score, parse_query

LETTERS = "abcdeßσüé日0"


def _index(tokens: list[str], base: int = 0) -> TokenIndex:
    return TokenIndex("\n" + "\n".join(tokens) + "\n", base)


def _expected(tokens: list[str], alternative: Alternative, base: int) -> dict[int, float]:
    scored = {i + base: alternative_score(alternative, t) for i, t in enumerate(tokens)}
    return {i: score for i, score in scored.items() if score > 0.0}


@settings(max_examples=60, deadline=None)
@given(
    tokens=st.sets(st.text(LETTERS, min_size=1, max_size=10), min_size=1, max_size=60),
    seed=st.integers(0, 2**32 - 1),
)
def test_matches_are_exactly_the_rule_tables(tokens: set[str], seed: int) -> None:
    rng = random.Random(seed)
    ordered = sorted(tokens)
    index = _index(ordered, base=7)
    for _ in range(12):
        token = rng.choice(ordered)
        query = "".join(rng.choice([c, rng.choice(LETTERS)]) for c in token)[: rng.randint(1, 10)]
        for prefix in (False, True):
            alternative = Alternative(query, prefix)
            ids, scores = index.matches(alternative)
            assert dict(zip(ids.tolist(), scores.tolist(), strict=True)) == _expected(
                ordered, alternative, 7
            )


def test_typos_prefixes_containment_and_shared_prefixes_on_a_larger_vocabulary() -> None:
    rng = random.Random(5)
    tokens = sorted(
        {"".join(rng.choice("abcdefgh") for _ in range(rng.randint(1, 9))) for _ in range(5_000)}
    )
    index = _index(tokens)
    for query in ["abc", "abcd", "abcdef", "hgfedcba", "bcde", "a", "ab", "deci", "gggggggg"]:
        for prefix in (False, True):
            alternative = Alternative(query, prefix)
            ids, scores = index.matches(alternative)
            assert dict(zip(ids.tolist(), scores.tolist(), strict=True)) == _expected(
                tokens, alternative, 0
            ), query


def test_a_longer_token_at_the_bound_of_its_own_trigrams_is_found() -> None:
    # "abxcdefy" is 2 edits from "abcdef" and shares 4 of its padded trigrams: exactly
    # len 8 + 2 - 3 * 2; "abxcdyfy" (3 edits) shares 2: the query's bound, 6 + 2 - 6
    tokens = ["abxcdefy", "abxcdyfy", "zzzzzz"]
    ids, scores = _index(tokens).matches(Alternative("abcdef"))
    assert dict(zip(ids.tolist(), scores.tolist(), strict=True)) == {0: 1.0 - (2 / 6) * 0.6}
    assert _expected(tokens, Alternative("abcdef"), 0) == {0: 1.0 - (2 / 6) * 0.6}


def test_terms_take_the_best_alternative_across_slices() -> None:
    first, second = _index(["budget", "budge"]), _index(["budgets", "fudget"], base=2)
    (term,) = parse_query("(budget|fudget)").terms
    (found,) = term_matches([term], [first, second])
    assert found.ids.tolist() == [0, 1, 2, 3]
    assert found.scores.tolist() == [1.0, 0.9, 0.9, 1.0]


def test_lookup_finds_whole_tokens_only() -> None:
    slices = [_index(["müller", "mull"]), _index(["straße"], base=2)]
    assert lookup_all(["straße", "müller"], slices) == [2, 0]
    assert lookup_all(["mul"], slices) is None
    assert _index([]).matches(Alternative("abc"))[0].tolist() == []


@settings(max_examples=60, deadline=None)
@given(tokens=st.sets(st.text(LETTERS, min_size=1, max_size=8), min_size=1, max_size=40))
def test_lookup_from_cached_matches_is_the_lookup_by_trigrams(tokens: set[str]) -> None:
    ordered = sorted(tokens)
    asked = [*ordered, *(t + "a" for t in ordered), *(t[:-1] for t in ordered if len(t) > 1)]
    by_trigrams = _index(ordered, base=3)
    from_cache = _index(ordered, base=3)
    for token in asked:
        from_cache.matches(Alternative(token))  # cached, as a search leaves it
        assert from_cache.lookup(token) == by_trigrams.lookup(token), token
        expected = ordered.index(token) + 3 if token in tokens else None
        assert by_trigrams.lookup(token) == expected


@settings(max_examples=300)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=60), data=st.data())
def test_snippet_offsets_are_the_tokenizers(text: str, data: st.DataObject) -> None:
    value = AnalyzedText(text)
    tokens = sorted(value.distinct)
    if not tokens:
        return
    targets = set(data.draw(st.lists(st.sampled_from(tokens), min_size=1, max_size=3)))
    expected = tuple(span.start for span in value.spans() if span.text in targets)
    assert token_starts(value, targets) == expected


def test_tokens_and_queries_too_long_for_a_code_matrix_are_scored_one_by_one() -> None:
    rng = random.Random(11)
    long_tokens = [
        "".join(rng.choice("abc") for _ in range(rng.randint(60, 80))) for _ in range(40)
    ]
    tokens = sorted({*long_tokens, "abcabc", "abcab", "bcabca", "a" * 70})
    index = _index(tokens, base=3)
    queries = [
        "abcabc",
        "abca",
        long_tokens[0],
        long_tokens[1][:66],
        long_tokens[2][1:-1],
        "a" * 69,
    ]
    for query in queries:
        for prefix in (False, True):
            alternative = Alternative(query, prefix)
            ids, scores = index.matches(alternative)
            assert dict(zip(ids.tolist(), scores.tolist(), strict=True)) == _expected(
                tokens, alternative, 3
            ), query


def test_tokens_past_the_length_cap_of_the_postings_are_found_by_their_true_length() -> None:
    # a posting entry holds min(length, 127): tokens of 120-140 characters share a bucket
    rng = random.Random(13)
    base = "".join(rng.choice("abcd") for _ in range(140))
    tokens = sorted({base[:length] for length in range(120, 141)} | {base[:60], "abcd"})
    index = _index(tokens)
    queries = [base[:127], base[:130], base[:125] + "x", "x" + base[1:129], base[2:128]]
    # only the edit rule accepts base[:131] and base[:134] for these (no shared prefix)
    for query in [*queries, "x" + base[1:131], "yx" + base[2:134]]:
        alternative = Alternative(query)
        ids, scores = index.matches(alternative)
        assert dict(zip(ids.tolist(), scores.tolist(), strict=True)) == _expected(
            tokens, alternative, 0
        ), len(query)
        assert index.lookup(query) == (tokens.index(query) if query in tokens else None)


def test_posting_entries_order_each_list_by_length_then_id() -> None:
    tokens = ["abcdef", "abc", "xabcx", "ab", "abcd"]
    arrays = index_arrays("\n" + "\n".join(tokens) + "\n")
    keys, offsets, postings = arrays["keys"], arrays["offsets"], arrays["postings"]
    for at in range(len(keys)):
        posting = postings[offsets[at] : offsets[at + 1]]
        assert posting.tolist() == sorted(posting.tolist())
    abc = ord("a") << 42 | ord("b") << 21 | ord("c")
    at = int(np.searchsorted(keys, abc))
    held = postings[offsets[at] : offsets[at + 1]]
    assert [(int(e) >> LENGTH_SHIFT, int(e) & LOCAL_MASK) for e in held] == [
        (3, 1), (4, 4), (5, 2), (6, 0)
    ]  # fmt: skip


@pytest.mark.parametrize(
    "tokens",
    [
        [],
        ["a"],
        ["plain", "ascii", "tokens"],
        ["zoë", "naïve", "東京", "𝔘nicode", "x"],  # two-, three- and four-byte characters
        ["ß" * 70_000, "short"],  # a token past 65,535 code points: lengths in 4 bytes
    ],
)
def test_token_bounds_read_off_the_text_are_the_index_arrays(tokens: list[str]) -> None:
    joined = "\n" + "".join(t + "\n" for t in tokens)
    built = index_arrays(joined)
    starts, lengths = token_bounds(np.frombuffer(joined.encode("utf-8"), dtype=np.uint8))
    assert starts.tolist() == built["starts"].tolist()
    assert lengths.tolist() == built["lengths"].tolist()
    assert starts.dtype == np.uint32
    assert lengths.dtype == (np.uint32 if tokens and tokens[0].startswith("ß") else np.uint16)
    assert [joined[s : s + n] for s, n in zip(starts, lengths, strict=True)] == tokens


def _reference_arrays(tokens: list[str]) -> tuple[list[int], list[list[tuple[int, int]]]]:
    """The trigram index by its definition: each distinct padded trigram key, and the
    (capped length, local id) of the tokens holding it, by length, then id."""
    holding: dict[int, set[tuple[int, int]]] = {}
    for local, token in enumerate(tokens):
        for key in padded_keys(token):
            holding.setdefault(key, set()).add((min(len(token), LENGTH_CAP), local))
    keys = sorted(holding)
    return keys, [sorted(holding[key]) for key in keys]


@pytest.mark.parametrize(
    "tokens",
    [
        ["a"],
        ["aaaa", "aa", "abab", "b"],  # trigrams repeated inside a token
        ["zoë", "naïve", "東京", "𝔘nicode", "x", "ß" * 130],  # up to four UTF-8 bytes, capped
        # more than 1,625 distinct code points: keys sorted, not ranked by alphabet
        ["".join(chr(0x4E00 + (7 * i + j) % 2_000) for j in range(5)) for i in range(600)],
    ],
)
def test_index_arrays_hold_every_padded_trigram_of_every_token(tokens: list[str]) -> None:
    built = index_arrays("\n" + "".join(t + "\n" for t in tokens))
    keys, lists = _reference_arrays(tokens)
    assert built["keys"].tolist() == keys
    offsets, postings = built["offsets"], built["postings"]
    assert offsets[0] == 0 and offsets[-1] == len(postings) and postings.dtype == np.int32
    found = [
        [(int(e) >> LENGTH_SHIFT, int(e) & LOCAL_MASK) for e in postings[a:b]]
        for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
    ]
    assert found == lists


@settings(max_examples=40, deadline=None)
@given(tokens=st.lists(st.text(LETTERS + "\U0001d518", min_size=1, max_size=12), max_size=40))
def test_index_arrays_match_the_definition_on_any_tokens(tokens: list[str]) -> None:
    built = index_arrays("\n" + "".join(t + "\n" for t in tokens))
    keys, lists = _reference_arrays(tokens)
    assert built["keys"].tolist() == keys
    assert [len(held) for held in lists] == np.diff(built["offsets"]).tolist()


def test_a_slice_without_its_trigram_index_builds_it_at_its_first_look_up() -> None:
    tokens = ["budget", "budgets", "bugdet", "review"]
    joined = "\n" + "".join(t + "\n" for t in tokens)
    starts, lengths = token_bounds(np.frombuffer(joined.encode("utf-8"), dtype=np.uint8))
    lazy = TokenIndex(joined, 3, {"starts": starts, "lengths": lengths})
    assert lazy._trigrams is None and lazy.token(2) == "bugdet"  # bounds alone
    arrays = stored_lists(index_arrays(joined))
    stored = TokenIndex(joined, 3, {"starts": starts, "lengths": lengths, **arrays})
    assert stored._trigrams is not None
    for word in ("budget", "budg", "bugdet", "revew"):
        alternative = Alternative(word)
        got, want = lazy.matches(alternative), stored.matches(alternative)
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
    assert lazy._trigrams is not None


@pytest.mark.parametrize("most", [0, 3, 1 << 16], ids=["none deflated", "some", "all"])
def test_stored_lists_read_back_as_the_lists_built(
    most: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(most)
    tokens = sorted({"".join(rng.choices("abcdeü日", k=rng.randint(1, 9))) for _ in range(400)})
    tokens.append("x" * 200)  # past the length cap: its entries hold the cap
    built = index_arrays("\n" + "".join(t + "\n" for t in tokens))
    monkeypatch.setattr(trigram_postings, "DEFLATED_LIST_ENTRIES", most)
    stored = stored_lists(built)
    deflated = np.diff(stored["deflated_offsets"]) > 0
    assert deflated.tolist() == (np.diff(built["offsets"]) <= most).tolist()
    monkeypatch.setattr(trigram_postings, "DEFLATED_SLICE_TOKENS", len(tokens))
    assert stored_lists(built)["deflated"].tolist() == []  # a large slice: none deflated
    assert stored["postings"].dtype == np.int32 and stored["deflated"].dtype == np.uint8
    monkeypatch.setattr(trigram_postings, "INFLATED_ENTRIES", 60)  # a few lists kept
    lists, reference = TrigramLists(stored), TrigramLists(built)
    keys = [*built["keys"].tolist(), -1, 1 << 62]  # and two keys no token holds
    for key in keys + keys[::-1]:  # inflated, then some from those kept
        got = lists.posting(key)
        assert got.dtype == np.int32 and got.tolist() == reference.posting(key).tolist()
        assert lists._held == sum(map(len, lists._inflated.values())) <= 60
