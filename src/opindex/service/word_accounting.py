"""Word accounting: which query words each hit matched and how, and which words nothing matched.

Every answer accounts for every word of the caller's query: each hit lists the words it
matched with the kind of match (``exact``, ``prefix``, ``substring``, ``typo``,
``concept``) and the record's word that matched; the meta lists the words no result
matched, and a notice (the first line of the text) says so, or says that a word was only
matched approximately ("no record contains 'checklist'; closest: 'checkout'"). The rules
are the scorer's own (``alternative_score``): a word is matched where the scorer gave it
a positive score.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from opindex.envelope import HowMatched, SearchResult, WordMatch
from opindex.search import (
    Alternative,
    Query,
    SearchDocument,
    Term,
    alternative_score,
    fast_token_texts,
)

ExactlyHeld = Callable[[str], bool | None]
"""Whether some record holds this normalized word itself (None: cannot tell)."""
MAX_EDITS = 2
"""The scorer's largest edit budget (a query word of 6 letters or more)."""
MAX_CLOSEST = 3
"""Closest words named per near-match notice."""

_RANK: Mapping[HowMatched, int] = {
    "id": -1,
    "exact": 0,
    "prefix": 1,
    "substring": 2,
    "typo": 3,
    "stem": 4,
    "concept": 5,
}
"""Preference among matches of one word in one record (lower is better)."""
APPROXIMATE: frozenset[HowMatched] = frozenset({"substring", "typo", "stem", "concept"})
"""Matches that are not the word itself (nor a word starting with it)."""


@dataclass(frozen=True, slots=True)
class QueryWord:
    """One word of the caller's query and the alternatives the effective query searched
    for it (none when relaxation dropped it)."""

    word: str
    alternatives: tuple[Alternative, ...]


def query_words(original: Query, effective: Query) -> list[QueryWord]:
    """The caller's words, each with its alternatives in the *effective* query.

    The relaxation strategies keep a word's own token first (``wildcard_suffix`` makes it
    a prefix, ``concept_expansion`` appends synonyms), so an effective term belongs to the
    original word whose token it starts with.
    """
    if original.containment:
        return []
    words: list[QueryWord] = []
    for term in original.terms:
        own = {alternative.token for alternative in term.alternatives}
        found: Term | None = next(
            (t for t in effective.terms if t.alternatives and t.alternatives[0].token in own),
            None,
        )
        label = term.alternatives[0].token
        words.append(QueryWord(label, found.alternatives if found is not None else ()))
    return words


def _vocabulary(document: SearchDocument) -> frozenset[str]:
    tokens: set[str] = set()
    for values in document.fields.values():
        for value in values:
            tokens.update(fast_token_texts(value.text))
    return frozenset(tokens)


def _candidates(token: str, vocabulary: frozenset[str], choices: list[str]) -> set[str]:
    """The tokens of *vocabulary* that may score above zero against *token*: a superset
    of the scorer's matches (a longer word starting with or containing the word, or
    sharing its first letters, holds its first three; a typo is within MAX_EDITS)."""
    head = token[:3]
    found = {choice for choice in choices if head in choice}
    near = process.extract(
        token, choices, scorer=Levenshtein.distance, score_cutoff=MAX_EDITS, limit=None
    )
    found.update(choice for choice, _, _ in near)
    return found


def how_matched(alternative: Alternative, token: str, own: bool) -> HowMatched:
    """The kind of match of a record *token* the scorer scored for *alternative*;
    *own*: the alternative is the caller's word (not a thesaurus synonym)."""
    if not own:
        return "concept"
    if token == alternative.token:
        return "exact"
    if token.startswith(alternative.token):
        return "prefix"
    if alternative.token in token:
        return "substring"
    budget = 0 if len(alternative.token) < 3 else 1 if len(alternative.token) < 6 else 2
    if Levenshtein.distance(alternative.token, token, score_cutoff=budget) <= budget:
        return "typo"
    return "stem"


def record_words(words: Sequence[QueryWord], document: SearchDocument) -> list[WordMatch]:
    """The words of the query *document* matches, each with its best match."""
    vocabulary = _vocabulary(document)
    choices = list(vocabulary)
    matched: list[WordMatch] = []
    for word in words:
        best: tuple[int, float, str, str] | None = None  # (rank, -score, token, how)
        for alternative in word.alternatives:
            own = alternative.token == word.word
            if alternative.token in vocabulary:
                pool: Iterable[str] = (alternative.token,)
            else:
                pool = _candidates(alternative.token, vocabulary, choices)
            for token in pool:
                score = alternative_score(alternative, token)
                if score <= 0.0:
                    continue
                how = how_matched(alternative, token, own)
                key = (_RANK[how], -score, token, how)
                if best is None or key < best:
                    best = key
        if best is not None:
            matched.append(WordMatch(word=word.word, how=best[3], token=best[2]))  # type: ignore[arg-type]
    return matched


@dataclass(frozen=True, slots=True)
class Accounting:
    """What an answer says about the query's words."""

    unmatched: list[str]
    notice: str | None


def account(
    results: Sequence[SearchResult],
    documents: Sequence[SearchDocument],
    words: Sequence[QueryWord],
    *,
    singular: str,
    dropped: Sequence[str] = (),
    held: ExactlyHeld | None = None,
    frequency: Callable[[str], int] | None = None,
) -> Accounting:
    """Fill each result's ``matched_words`` and say which words nothing matched.

    *documents* are the scored documents of *results*, in order; *singular* names one
    record in words (``work package``); *dropped*: words relaxation dropped (its own
    notice names them, so this one does not repeat them); *held*: whether a record holds
    a word itself; *frequency*: how many records match a word by the scorer's rules.
    """
    per_word: dict[str, list[WordMatch]] = {word.word: [] for word in words}
    for result, document in zip(results, documents, strict=True):
        result.matched_words = record_words(words, document)
        for match in result.matched_words:
            per_word[match.word].append(match)
    unmatched = [word.word for word in words if not per_word[word.word]]
    if not results:
        return Accounting(unmatched, None)
    sentences: list[str] = []
    missing = [word for word in unmatched if word not in dropped]
    for word in missing:
        if frequency is not None and frequency(word) == 0:
            sentences.append(f"no {singular} contains {word!r}")
        else:
            sentences.append(f"{word!r} matches none of these results")
    if missing:
        sentences[-1] += "; the results match the other words"
    for word, matches in per_word.items():
        if not matches or any(match.how not in APPROXIMATE for match in matches):
            continue
        counts = Counter(m.token for m in matches)
        ranked = sorted(counts, key=lambda t: (Levenshtein.distance(word, t), -counts[t], t))
        closest = ranked[:MAX_CLOSEST]
        hows = sorted({m.how for m in matches}, key=lambda how: _RANK[how])
        named = ", ".join(repr(token) for token in closest)
        exists = held(word) if held is not None else None
        where = (
            f"no record contains {word!r}"
            if exists is False
            else f"none of these results contains {word!r} itself"
        )
        sentences.append(f"{where}; closest: {named} ({'/'.join(hows)} match)")
    if not sentences:
        return Accounting(unmatched, None)
    text = "; ".join(sentences)
    return Accounting(unmatched, "Not every word matched: " + text + ".")
