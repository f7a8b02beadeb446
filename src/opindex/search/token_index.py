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

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from opindex.search.query import Alternative, Term, alternative_score
from opindex.search.score import EDIT_PENALTY, SHARED_PREFIX_MIN, edit_budget
from opindex.search.sorted_sets import difference_sorted, unique_sorted
from opindex.search.token_batch import (
    MAX_PATTERN,
    MAX_WIDTH,
    CodeMatrix,
    batch_scores,
    code_matrix,
    code_points,
    edit_distances,
)
from opindex.search.trigram_count import weighed_at_least
from opindex.search.vector_rank import TermMatches

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

_PAD = ord("\n")
_SHIFT = 21  # code points fit in 21 bits: three make one int64 trigram key
_CACHE_SIZE = 2_048


def _key(a: int, b: int, c: int) -> int:
    return (a << (2 * _SHIFT)) | (b << _SHIFT) | c


def _padded_keys(token: str) -> list[int]:
    """The keys of the padded trigrams of *token*, with repeats, in order."""
    codes = [_PAD, _PAD, *map(ord, token), _PAD, _PAD]
    return [_key(*codes[i : i + 3]) for i in range(len(codes) - 2)]


def _head_keys(token: str) -> list[int]:
    """Keys every token starting with ``token[:4]`` holds (padded start and inner).

    From two characters on, the first padded key (pad, pad, c0: starts with c0) is left
    out: the next one (pad, c0, c1: starts with c0 c1) implies it, and its list is the
    longest (every token starting with that letter)."""
    head = token[:SHARED_PREFIX_MIN]
    codes = [_PAD, _PAD, *map(ord, head)]
    keys = [_key(*codes[i : i + 3]) for i in range(len(codes) - 2)]
    return keys[1:] if len(head) >= 2 else keys


def _inner_keys(token: str) -> list[int]:
    codes = list(map(ord, token))
    return [_key(*codes[i : i + 3]) for i in range(len(codes) - 2)]


INDEX_ARRAYS: tuple[str, ...] = ("starts", "lengths", "keys", "offsets", "postings")
"""The names of ``index_arrays``'s arrays."""


LENGTH_SHIFT = 24
"""A posting entry is ``min(length, LENGTH_CAP) << LENGTH_SHIFT | local id``."""
LENGTH_CAP = 127
LOCAL_MASK = (1 << LENGTH_SHIFT) - 1
MAX_SLICE_TOKENS = 1 << LENGTH_SHIFT
"""A slice holds fewer tokens than this (its postings are int32: DECISIONS D156)."""


def entries(locals_: npt.NDArray[Any], lengths: npt.NDArray[Any]) -> npt.NDArray[np.int32]:
    """The posting entries of the tokens *locals_* of lengths *lengths*."""
    capped = np.minimum(lengths.astype(np.int64), LENGTH_CAP)
    return ((capped << LENGTH_SHIFT) | locals_.astype(np.int64)).astype(np.int32)


def local_ids(found: npt.NDArray[Any]) -> npt.NDArray[np.int32]:
    """The local ids of posting entries *found*."""
    return (found & LOCAL_MASK).astype(np.int32)


def index_arrays(joined: str) -> dict[str, npt.NDArray[Any]]:
    """The arrays of the trigram index of *joined* (see ``TokenIndex``): token ``starts``
    and ``lengths`` (code points; a stored slice holds them narrow and unsigned),
    distinct trigram ``keys`` (ascending), and for each key the tokens holding it,
    ``postings[offsets[k]:offsets[k + 1]]``, as entries (``entries``: by length, then
    id, ascending). Written with the vocabulary slice at commit, so a reader maps them
    instead of sorting."""
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    newlines = np.flatnonzero(codes == _PAD)
    starts = newlines[:-1] + 1
    lengths = newlines[1:] - starts
    size = len(starts)
    if size >= MAX_SLICE_TOKENS:
        raise ValueError(f"a vocabulary slice holds fewer than {MAX_SLICE_TOKENS} tokens")
    if size == 0:
        keys = np.zeros(0, dtype=np.int64)
        return {"starts": starts, "lengths": lengths, "keys": keys,
                "offsets": np.zeros(1, dtype=np.int64),
                "postings": np.zeros(0, dtype=np.int32)}  # fmt: skip
    # Two newlines between tokens: the windows of three code points then tile the tokens
    # exactly, L + 2 windows for a token of length L.
    padded = joined.replace("\n", "\n\n")
    codes = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    keys = (codes[:-2] << (2 * _SHIFT)) | (codes[1:-1] << _SHIFT) | codes[2:]
    owners = np.repeat(entries(np.arange(size), lengths), lengths + 2)
    order = np.argsort(keys, kind="stable")  # stable: owners stay ascending per key
    keys, owners = keys[order], owners[order]
    keep = np.ones(len(keys), dtype=bool)
    keep[1:] = (keys[1:] != keys[:-1]) | (owners[1:] != owners[:-1])
    keys, owners = keys[keep], owners[keep]
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    # entries ascend per key (by length, then id): sort by (key group, entry) at once
    group = np.repeat(np.arange(len(first), dtype=np.int64), np.diff(np.r_[first, len(keys)]))
    owners = owners[np.argsort((group << 32) | owners.astype(np.int64))]
    return {
        "starts": starts,
        "lengths": lengths,
        "keys": keys[first],
        "offsets": np.r_[first, len(keys)].astype(np.int64),
        "postings": owners,
    }


MASK_SHARE = 64
"""``_holding_all`` intersects by marking a mask over the slice's tokens once the entries
found so far are at least 1/MASK_SHARE of the slice and a quarter of the next list; below
that, looking them up by binary search costs less than clearing the mask (measured at 1M:
155k against 181k entries, 4.0 ms searched, 2.1 ms marked)."""


PREFIX_FROM_PLAIN = 3
"""From this length a word starting a token scores above 0 under the plain rules
(``score_token``'s prefix rule), so a wildcard's matches are among the plain ones."""


class TokenIndex:
    """The tokens of one vocabulary slice, with ids ``base .. base + size - 1``.

    *joined* is ``"\\n" + "\\n".join(tokens) + "\\n"`` (tokens hold no newline);
    *arrays* its ``index_arrays`` when they were stored (else they are built: two sorts
    of the trigram keys, a few seconds per million tokens). *codes*: the code points of
    *joined* (``token_batch.code_points``), when the caller holds them already (an ASCII
    vocabulary's stored UTF-8 bytes); else they are computed at the first search.
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
        built = index_arrays(joined) if arrays is None else arrays
        self.starts: npt.NDArray[Any] = built["starts"]  # int64, or stored narrow and unsigned
        self.lengths: npt.NDArray[Any] = built["lengths"]
        self._keys: IntArray = built["keys"]
        self._offsets: IntArray = built["offsets"]
        self._postings: npt.NDArray[np.int32] = built["postings"]
        self.size = len(self.starts)
        self._cache: OrderedDict[Alternative, tuple[IntArray, FloatArray]] = OrderedDict()
        self._lock = threading.Lock()

    def token(self, local: int) -> str:
        """The token with local id *local* (0-based within this slice)."""
        start = int(self.starts[local])
        return self.joined[start : start + int(self.lengths[local])]

    def _matrix(self, local: npt.NDArray[Any]) -> tuple[CodeMatrix, IntArray]:
        """The tokens *local* (each at most MAX_WIDTH long) as a code matrix, and lengths."""
        if self._codes is None:
            self._codes = code_points(self.joined)  # a race computes it twice, harmlessly
        lengths = self.lengths[local].astype(np.int64)
        starts = self.starts[local].astype(np.int64)
        return code_matrix(self._codes, starts, lengths), lengths

    def _posting(self, key: int) -> npt.NDArray[np.int32]:
        at = int(np.searchsorted(self._keys, key))
        if at == len(self._keys) or int(self._keys[at]) != key:
            return np.zeros(0, dtype=np.int32)
        return self._postings[self._offsets[at] : self._offsets[at + 1]]

    def _holding_all(self, keys: list[int]) -> npt.NDArray[np.int32]:
        """Entries (ascending) of the tokens holding every one of *keys*."""
        lists = sorted((self._posting(k) for k in set(keys)), key=len)
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

    def _candidates(
        self, token: str, prefix: bool
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[Any], IntArray]:
        """Local ids of a superset of the tokens a rule other than the edit rule can
        accept for *token* (ascending), and, disjoint from them, the tokens within its
        edit budget that only the edit rule accepts (ascending) with their distances."""
        if token and (prefix or len(token) >= 3):  # starts with it, or shares its first 4
            # characters; the head's trigrams are among its padded ones: equal tokens too
            parts = [self._holding_all(_head_keys(token))]
        else:
            parts = [self._holding_all(_padded_keys(token))]
        if len(token) >= SHARED_PREFIX_MIN:
            parts.append(self._holding_all(_inner_keys(token)))
        ruled = unique_sorted(local_ids(np.concatenate(parts)))
        budget = edit_budget(token)
        if budget:
            keys = _padded_keys(token)
            distinct = sorted(set(keys))
            least = len(keys) - 3 * budget  # trigrams a token within the budget shares
            # a token within the budget is within it in length: the entries of the
            # lengths L - d .. L + d are one run of each list (those past the cap with it)
            low = min(max(0, len(token) - budget), LENGTH_CAP) << LENGTH_SHIFT
            last = ((min(len(token) + budget, LENGTH_CAP) + 1) << LENGTH_SHIFT) - 1
            # int32 bounds: Python ints would make searchsorted cast the whole list first
            bounds = np.array([low, last], dtype=np.int32)
            lengths = self.lengths

            def near_in_length(found: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
                # lengths may be stored unsigned and narrow: widened before subtracting
                owners = lengths[local_ids(found)].astype(np.int64)
                return np.asarray(np.abs(owners - len(token)) <= budget)

            windows = []
            for key in distinct:
                posting = self._posting(key)
                begin = int(np.searchsorted(posting, bounds[0], side="left"))
                end = int(np.searchsorted(posting, bounds[1], side="right"))
                windows.append(posting[begin:end])
            found, shared = weighed_at_least(
                windows,
                [keys.count(k) for k in distinct],
                least,
                1 << 31,  # entries, not ids: counted by sorting
                near_in_length if len(token) + budget >= LENGTH_CAP else None,
            )
            owners = local_ids(found)
            # and from the token's side: its own len + 2 padded trigrams lose at most 3 an
            # edit too, so a longer token must share more (the weights over-count only)
            longer = np.maximum(lengths[owners].astype(np.int64) - len(token), 0)
            near = difference_sorted(owners[shared >= least + longer], ruled)
            if len(near):
                # Only the edit rule can accept these (the others are in ``ruled``): keep
                # those within the budget, the distance computed for all at once.
                distances = self._distances(token, near, budget)
                within = distances <= budget
                return ruled.astype(np.int32), near[within], distances[within]
        return ruled.astype(np.int32), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)

    def _distances(self, token: str, near: npt.NDArray[Any], budget: int) -> IntArray:
        """The edit distance of *token* to each token *near* (at most budget + 1)."""
        if len(token) <= MAX_PATTERN and int(self.lengths[near].max()) <= MAX_WIDTH:
            matrix, lengths = self._matrix(near)
            return edit_distances(token, matrix, lengths)
        texts = [self.token(local) for local in near.tolist()]
        found = process.cdist([token], texts, scorer=Levenshtein.distance, score_cutoff=budget)
        distances: IntArray = found[0].astype(np.int64)
        return distances

    def _scores(self, alternative: Alternative, local: npt.NDArray[Any]) -> FloatArray:
        """``alternative_score`` of each token *local*: as arrays for the tokens a code
        matrix takes (``token_batch``), one by one for the others."""
        token = alternative.token
        scores = np.zeros(len(local), dtype=np.float64)
        batched = np.zeros(len(local), dtype=bool)
        if 0 < len(token) <= MAX_PATTERN:
            batched = self.lengths[local] <= MAX_WIDTH
            if batched.any():
                matrix, lengths = self._matrix(local[batched])
                scores[batched] = batch_scores(token, alternative.prefix, matrix, lengths)
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
            ruled, near, distances = self._candidates(alternative.token, alternative.prefix)
            local = np.concatenate([ruled, near.astype(np.int32)])
            # the edit rule's score, as score_token and batch_scores compute it
            edit_scores = 1.0 - (distances / len(alternative.token)) * EDIT_PENALTY
            scores = np.concatenate([self._scores(alternative, ruled), edit_scores])
            order = np.argsort(local, kind="stable")
            local, scores = local[order], scores[order]
        positive = scores > 0.0
        found = (local[positive].astype(np.int64) + self.base, scores[positive])
        with self._lock:
            self._cache[alternative] = found
            if len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        return found

    def lookup(self, token: str) -> int | None:
        """The global id of *token*, None when it is not in this slice."""
        for local in local_ids(self._holding_all(_padded_keys(token))).tolist():
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
