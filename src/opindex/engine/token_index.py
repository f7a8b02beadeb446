"""A trigram index over a vocabulary: every token a query alternative can score above 0.

The scorer's rules (``opindex.search.score``) accept a field token for a query token when
it is equal, starts with it, contains it, shares its first four characters, or lies
within its edit budget. Scanning a 500k-token vocabulary with each rule costs tens of
milliseconds per query word; this index answers in about a millisecond and stays exact:

Every token is padded as ``"\\n\\n" + token + "\\n\\n"`` and indexed by its padded
trigrams (code points, not bytes). For a query token q (length L, edit budget d):

- equal: the token holds every padded trigram of q;
- starts with q, or shares its first four characters: the token holds every *head*
  trigram of ``q[:4]`` (the padded start and the trigrams inside the head);
- contains q (L >= 4): the token holds every inner trigram of q;
- within d edits: one edit destroys at most three padded trigrams, so the token holds at
  least ``L + 2 - 3d`` of q's padded trigrams (counted with q's multiplicity, which can
  only over-count) and its length differs from L by at most d.

The union of these conditions is a superset of the tokens the rules accept; each
candidate is then scored by the rule table itself, so what comes back is exact.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from opindex.engine.sorted_sets import held_at, unique_sorted
from opindex.engine.token_batch import (
    CONTAINS_MIN,
    MAX_PATTERN,
    MAX_WIDTH,
    CodeMatrix,
    batch_scores,
    code_matrix,
    code_points,
    contains_token,
    edit_distances,
)
from opindex.engine.trigram_count import weighed_at_least
from opindex.engine.trigram_postings import (
    LENGTH_CAP,
    LENGTH_SHIFT,
    STORED_ARRAYS,
    TrigramLists,
    head_keys,
    index_arrays,
    inner_keys,
    local_ids,
    padded_keys,
    token_bounds,
)
from opindex.engine.vector_rank import TermMatches
from opindex.search import (
    EDIT_PENALTY,
    EXACT_SCORE,
    SHARED_PREFIX_MIN,
    Alternative,
    Term,
    alternative_score,
    edit_budget,
)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Posting = Callable[[int], npt.NDArray[np.int32]]
"""A trigram key's posting list (``TrigramLists.posting``)."""

_CACHE_SIZE = 2_048


MASK_SHARE = 64
"""``_holding_all`` intersects by marking a mask over the slice's tokens once the entries
found so far are at least 1/MASK_SHARE of the slice and a quarter of the next list; below
that, looking them up by binary search costs less than clearing the mask (measured at 1M:
155k against 181k entries, 4.0 ms searched, 2.1 ms marked)."""


PREFIX_FROM_PLAIN = 3
"""From this length a word starting a token scores above 0 under the plain rules
(``score_token``'s prefix rule), so a wildcard's matches are among the plain ones."""


@dataclass(frozen=True, slots=True)
class Candidates:
    """What ``TokenIndex._candidates`` finds for a word (local ids, each list ascending).

    ``ruled``: a superset of the tokens a rule other than the edit rule can accept, with
    ``ruled_distances``, their edit distances (``budget + 1`` for those past the budget:
    a distance is computed only for the tokens the trigram count lets through, a
    superset of those within it), and ``may_contain``: whether each holds every inner
    trigram of the word (only those can contain it). ``near``: the tokens within the
    budget that only the edit rule accepts (none of ``ruled``), with ``distances``."""

    ruled: npt.NDArray[np.int32]
    ruled_distances: IntArray
    may_contain: npt.NDArray[np.bool_]
    near: npt.NDArray[np.int32]
    distances: IntArray


class TokenIndex:
    """The tokens of one vocabulary slice, with ids ``base .. base + size - 1``.

    *joined* is ``"\\n" + "\\n".join(tokens) + "\\n"`` (tokens hold no newline);
    *arrays* the token bounds (``starts``, ``lengths``: ``token_bounds`` reads them off
    the stored text) and, when the slice was stored with them, its trigram arrays
    (``STORED_ARRAYS``: ``stored_lists``). What is missing is built:
    the bounds at once, the trigram index at the first look-up (one sort of the trigram
    windows, under a second per million tokens; a small slice is stored without it, D183).
    *codes*: the code points of *joined* (``token_batch.code_points``), when the caller
    holds them already (an ASCII vocabulary's stored UTF-8 bytes); else they are computed
    at the first search.
    """

    def __init__(
        self,
        joined: str,
        base: int = 0,
        arrays: Mapping[str, npt.NDArray[Any]] | None = None,
        codes: npt.NDArray[Any] | None = None,
    ) -> None:
        self.joined = joined
        self._codes = codes
        self.base = base
        given: Mapping[str, npt.NDArray[Any]] = {} if arrays is None else arrays
        if "starts" in given:
            self.starts: npt.NDArray[Any] = given["starts"]  # narrow when read off the text
            self.lengths: npt.NDArray[Any] = given["lengths"]
        else:
            self.starts, self.lengths = token_bounds(
                np.frombuffer(joined.encode("utf-8"), dtype=np.uint8)
            )
        self._trigrams: TrigramLists | None = None
        if all(name in given for name in STORED_ARRAYS):
            self._trigrams = TrigramLists(given)
        self._building = threading.Lock()
        self.size = len(self.starts)
        self._cache: OrderedDict[Alternative, tuple[IntArray, FloatArray]] = OrderedDict()
        self._lock = threading.Lock()
        self._folded: tuple[str, npt.NDArray[Any]] | None = None

    def trigrams(self) -> TrigramLists:
        """The trigram index's posting lists (built at the first call when the slice was
        not stored with them)."""
        if self._trigrams is None:
            with self._building:
                if self._trigrams is None:
                    self._trigrams = TrigramLists(index_arrays(self.joined))
        return self._trigrams

    def folded(self) -> tuple[str, npt.NDArray[Any]]:
        """``joined`` case-folded token by token, and each token's start in it (for
        substring look-ups): ``joined`` and ``starts`` themselves when folding changes
        nothing, as for tokens that are all lower case (computed once)."""
        if self._folded is None:
            folded = self.joined.casefold()
            if folded == self.joined:
                self._folded = (self.joined, self.starts)
            else:  # tokens that folding changes (a final sigma folds to σ), some longer
                tokens = [t.casefold() for t in self.joined[1:-1].split("\n")] if self.size else []
                sizes = np.fromiter(map(len, tokens), np.int64, len(tokens)) + 1
                starts = np.cumsum(sizes) - sizes + 1  # after the leading newline
                self._folded = ("\n" + "".join(t + "\n" for t in tokens), starts)
        return self._folded

    def token(self, local: int) -> str:
        """The token with local id *local* (0-based within this slice)."""
        start = int(self.starts[local])
        return self.joined[start : start + int(self.lengths[local])]

    def _matrix(
        self, local: npt.NDArray[Any], width: int | None = None
    ) -> tuple[CodeMatrix, IntArray]:
        """The tokens *local* (each at most MAX_WIDTH long) as a code matrix, and their
        lengths; with *width*, only each token's first *width* code points."""
        if self._codes is None:
            self._codes = code_points(self.joined)  # a race computes it twice, harmlessly
        lengths = self.lengths[local].astype(np.int64)
        starts = self.starts[local].astype(np.int64)
        shown = lengths if width is None else np.minimum(lengths, width)
        return code_matrix(self._codes, starts, shown), lengths

    def _word_postings(self) -> Posting:
        """The posting list of a trigram key, each read once for one word (a deflated
        list is inflated once though the head, inner and padded keys share some)."""
        return functools.cache(self.trigrams().posting)

    def _holding_all(self, keys: list[int], posting: Posting) -> npt.NDArray[np.int32]:
        """Entries (ascending) of the tokens holding every one of *keys*."""
        lists = sorted((posting(k) for k in set(keys)), key=len)
        if not lists:
            return np.zeros(0, dtype=np.int32)
        found = lists[0]
        for other in lists[1:]:
            if not len(found):
                break
            if len(found) >= self.size // MASK_SHARE and 4 * len(found) >= len(other):
                # many against many: mark the found tokens, keep the other's marked
                # (an entry stands for one token: the same entries, ascending)
                marked = np.zeros(self.size, dtype=bool)
                marked[local_ids(found)] = True
                found = other[marked[local_ids(other)]]
                continue
            # both ascending: look the few up in the many (no sort of the many)
            at = np.minimum(np.searchsorted(other, found), len(other) - 1)
            found = found[other[at] == found] if len(other) else found[:0]
        return found

    def _candidates(self, token: str, prefix: bool) -> Candidates:
        """The tokens a rule can accept for *token* (``Candidates``)."""
        posting = self._word_postings()
        if token and (prefix or len(token) >= 3):  # starts with it, or shares its first 4
            # characters; the head's trigrams are among its padded ones: equal tokens too
            headed = local_ids(self._holding_all(head_keys(token), posting))
        else:
            headed = local_ids(self._holding_all(padded_keys(token), posting))
        inner = np.zeros(0, dtype=np.int32)  # the tokens that can contain it
        if len(token) >= SHARED_PREFIX_MIN:
            inner = unique_sorted(local_ids(self._holding_all(inner_keys(token), posting)))
        ruled = unique_sorted(np.concatenate([headed, inner])).astype(np.int32)
        budget = edit_budget(token)
        ruled_distances = np.full(len(ruled), budget + 1, dtype=np.int64)
        near, distances = np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
        close = self._close(token, budget, posting) if budget else np.zeros(0, dtype=np.int32)
        if len(close):
            found = self._distances(token, close, budget)
            within = found <= budget
            close, found = close[within], found[within]
            held, at = held_at(ruled, close)
            ruled_distances[at[held]] = found[held]
            near, distances = close[~held], found[~held]
        return Candidates(ruled, ruled_distances, held_at(inner, ruled)[0], near, distances)

    def _close(self, token: str, budget: int, posting: Posting) -> npt.NDArray[np.int32]:
        """Local ids (ascending) of a superset of the tokens within *budget* edits of
        *token*: those sharing enough of its padded trigrams (the module's docstring).

        Counted length by length: a token within the budget is within it in length, the
        entries of one length are one run of each list, and a token longer by k must
        share k more (its own len + 2 padded trigrams lose at most 3 an edit too), so
        more of the long lists are set aside for the longer lengths."""
        size = len(token)
        if size + budget >= LENGTH_CAP:
            return self._close_past_cap(token, budget, posting)
        keys = padded_keys(token)
        distinct = sorted(set(keys))
        weights = [keys.count(k) for k in distinct]
        least = len(keys) - 3 * budget  # trigrams a token within the budget shares
        lengths = range(max(0, size - budget), size + budget + 1)
        # int32 edges: Python ints would make searchsorted cast the whole list first
        edges = np.array([m << LENGTH_SHIFT for m in range(lengths[0], lengths[-1] + 2)], np.int32)
        postings = [posting(key) for key in distinct]
        cuts = [np.searchsorted(posting, edges).tolist() for posting in postings]
        found = []
        for run, length in enumerate(lengths):
            windows = [
                posting[cut[run] : cut[run + 1]]
                for posting, cut in zip(postings, cuts, strict=True)
            ]
            entries, _ = weighed_at_least(windows, weights, least + max(0, length - size), 1 << 31)
            found.append(local_ids(entries))
        return unique_sorted(np.concatenate(found))

    def _close_past_cap(self, token: str, budget: int, posting: Posting) -> npt.NDArray[np.int32]:
        """``_close`` for a token whose lengths within the budget reach ``LENGTH_CAP``
        (the entries of every length from the cap on are one run, in id order)."""
        keys = padded_keys(token)
        distinct = sorted(set(keys))
        least = len(keys) - 3 * budget
        low = min(max(0, len(token) - budget), LENGTH_CAP) << LENGTH_SHIFT
        bounds = np.array([low, ((LENGTH_CAP + 1) << LENGTH_SHIFT) - 1], dtype=np.int32)
        lengths = self.lengths

        def near_in_length(found: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
            # lengths may be stored unsigned and narrow: widened before subtracting
            owners = lengths[local_ids(found)].astype(np.int64)
            return np.asarray(np.abs(owners - len(token)) <= budget)

        windows = []
        for key in distinct:
            listed = posting(key)
            begin = int(np.searchsorted(listed, bounds[0], side="left"))
            end = int(np.searchsorted(listed, bounds[1], side="right"))
            windows.append(listed[begin:end])
        found, shared = weighed_at_least(
            windows, [keys.count(k) for k in distinct], least, 1 << 31, near_in_length
        )
        owners = local_ids(found)
        longer = np.maximum(lengths[owners].astype(np.int64) - len(token), 0)
        return unique_sorted(owners[shared >= least + longer])

    def _distances(self, token: str, near: npt.NDArray[Any], budget: int) -> IntArray:
        """The edit distance of *token* to each token *near* (at most budget + 1)."""
        if len(token) <= MAX_PATTERN and int(self.lengths[near].max()) <= MAX_WIDTH:
            matrix, lengths = self._matrix(near)
            return edit_distances(token, matrix, lengths)
        texts = [self.token(local) for local in near.tolist()]
        found = process.cdist([token], texts, scorer=Levenshtein.distance, score_cutoff=budget)
        distances: IntArray = found[0].astype(np.int64)
        return distances

    def _scores(
        self, alternative: Alternative, local: npt.NDArray[Any], known: Candidates | None = None
    ) -> FloatArray:
        """``alternative_score`` of each token *local*: as arrays for the tokens a code
        matrix takes (``token_batch``), one by one for the others. *known*: when *local*
        are its ``ruled`` tokens, their edit distances and which may contain the word are
        taken from it, and only each token's first ``len(word)`` code points are read."""
        token = alternative.token
        scores = np.zeros(len(local), dtype=np.float64)
        batched = np.zeros(len(local), dtype=bool)
        if 0 < len(token) <= MAX_PATTERN:
            batched = self.lengths[local] <= MAX_WIDTH
            if batched.any() and known is None:
                matrix, lengths = self._matrix(local[batched])
                scores[batched] = batch_scores(token, alternative.prefix, matrix, lengths)
            elif batched.any() and known is not None:
                rows = local[batched]
                head, lengths = self._matrix(rows, len(token))
                contains = np.zeros(len(rows), dtype=bool)
                candidates = np.flatnonzero(known.may_contain[batched])
                if len(token) >= CONTAINS_MIN and len(candidates):
                    whole, _ = self._matrix(rows[candidates])
                    contains[candidates] = contains_token(token, whole)
                distances = known.ruled_distances[batched]
                scores[batched] = batch_scores(
                    token, alternative.prefix, head, lengths, distances, contains
                )
        for position in np.flatnonzero(~batched).tolist():
            scores[position] = alternative_score(alternative, self.token(int(local[position])))
        return scores

    def matches(self, alternative: Alternative) -> tuple[IntArray, FloatArray]:
        """Global ids (ascending) and scores of every token scoring above 0."""
        with self._lock:
            cached = self._cache.get(alternative)
            if cached is not None:
                self._cache.move_to_end(alternative)
                return cached
        if alternative.prefix and len(alternative.token) >= PREFIX_FROM_PLAIN:
            # a token the wildcard accepts starts with the word (the plain rules give it
            # 0.9) or passes a plain rule: the plain matches hold every one, rescored
            plain, _ = self.matches(Alternative(alternative.token))
            local = (plain - self.base).astype(np.int32)
            scores = self._scores(alternative, local)
        else:
            found = self._candidates(alternative.token, alternative.prefix)
            local = np.concatenate([found.ruled, found.near.astype(np.int32)])
            # the edit rule's score, as score_token and batch_scores compute it
            edit_scores = 1.0 - (found.distances / len(alternative.token)) * EDIT_PENALTY
            ruled_scores = self._scores(alternative, found.ruled, found)
            scores = np.concatenate([ruled_scores, edit_scores])
            order = np.argsort(local, kind="stable")
            local, scores = local[order], scores[order]
        positive = scores > 0.0
        matched = (local[positive].astype(np.int64) + self.base, scores[positive])
        with self._lock:
            self._cache[alternative] = matched
            if len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        return matched

    def lookup(self, token: str) -> int | None:
        """The global id of *token*, None when it is not in this slice.

        When the word's plain matches are cached (a search matched it just before),
        they answer: under the plain rules only the token itself scores 1.0."""
        with self._lock:
            cached = self._cache.get(Alternative(token))
        if cached is not None:
            ids, scores = cached
            equal = ids[scores == EXACT_SCORE]
            return int(equal[0]) if len(equal) else None
        for local in local_ids(
            self._holding_all(padded_keys(token), self._word_postings())
        ).tolist():
            if self.token(local) == token:
                return int(local) + self.base
        return None


def term_matches(terms: Sequence[Term], indexes: Sequence[TokenIndex]) -> list[TermMatches]:
    """For each term: every vocabulary token scoring above 0 for one of its alternatives,
    with its best score over them, across the vocabulary slices *indexes*."""
    found: list[TermMatches] = []
    for term in terms:
        id_parts: list[IntArray] = []
        score_parts: list[FloatArray] = []
        for alternative in term.alternatives:
            for index in indexes:
                ids, scores = index.matches(alternative)
                id_parts.append(ids)
                score_parts.append(scores)
        ids = np.concatenate(id_parts) if id_parts else np.zeros(0, dtype=np.int64)
        scores = np.concatenate(score_parts) if score_parts else np.zeros(0, dtype=np.float64)
        if len(term.alternatives) > 1 and len(ids):
            order = np.lexsort((-scores, ids))  # by id, best score first
            ids, scores = ids[order], scores[order]
            first = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            ids, scores = ids[first], scores[first]
        found.append(TermMatches(ids, scores))
    return found


def lookup_all(tokens: Sequence[str], indexes: Sequence[TokenIndex]) -> list[int] | None:
    """The ids of *tokens* in order, None when one of them is in no slice."""
    ids: list[int] = []
    for token in tokens:
        found = next((i for i in (x.lookup(token) for x in indexes) if i is not None), None)
        if found is None:
            return None
        ids.append(found)
    return ids
