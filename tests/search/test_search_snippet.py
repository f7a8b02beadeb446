"""Match-centred snippets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from opindex.search.match import score_field
from opindex.search.snippet import ELLIPSIS, extract_snippet

LONG = (
    "The quarterly meeting opened with a long review of travel policy, parking, the new "
    "coffee machine and several other housekeeping items that nobody wanted to discuss. "
    "Then the CFO asked for approval of the Q3 budget, which was granted with a reserve. "
    "Afterwards the team talked about the summer party, the office plants and the wifi."
)


def test_short_text_is_returned_whole_with_whitespace_collapsed() -> None:
    assert extract_snippet("Budget\n\napproved   today", [0]) == "Budget approved today"


def test_snippet_is_centred_on_the_match() -> None:
    offsets = score_field("budget approval", LONG).matched_offsets
    snippet = extract_snippet(LONG, offsets, 80)
    assert "approval of the Q3 budget" in snippet
    assert snippet.startswith(ELLIPSIS) and snippet.endswith(ELLIPSIS)
    assert len(snippet) <= 80


def test_snippet_cuts_at_word_boundaries() -> None:
    offsets = [LONG.index("CFO")]
    snippet = extract_snippet(LONG, offsets, 60)
    words = set(LONG.replace(",", " ").replace(".", " ").split())
    inner = snippet.strip(ELLIPSIS).replace(",", " ").replace(".", " ").split()
    assert inner[0] in words and inner[-1] in words


def test_without_offsets_the_snippet_starts_at_the_beginning() -> None:
    snippet = extract_snippet(LONG, [], 50)
    assert snippet.startswith("The quarterly meeting")
    assert snippet.endswith(ELLIPSIS)


def test_match_at_the_end_is_included() -> None:
    snippet = extract_snippet(LONG, [LONG.index("wifi")], 60)
    assert snippet.endswith("wifi.")
    assert snippet.startswith(ELLIPSIS)


def test_densest_cluster_wins() -> None:
    text = "budget " + "filler " * 40 + "approval budget approval " + "filler " * 40
    offsets = [m for m in score_field("budget approval", text).matched_offsets]
    snippet = extract_snippet(text, offsets, 60)
    assert "approval budget approval" in snippet


def test_text_without_spaces_is_cut_hard() -> None:
    text = "x" * 500
    snippet = extract_snippet(text, [250], 40)
    assert len(snippet) <= 40 and snippet.startswith(ELLIPSIS) and snippet.endswith(ELLIPSIS)


@given(
    text=st.text(max_size=600),
    offsets=st.lists(st.integers(min_value=-5, max_value=700), max_size=6),
    max_length=st.integers(min_value=1, max_value=300),
)
def test_snippet_never_exceeds_max_length_and_never_raises(
    text: str, offsets: list[int], max_length: int
) -> None:
    snippet = extract_snippet(text, offsets, max_length)
    assert len(snippet) <= max_length
