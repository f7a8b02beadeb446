"""Token-level scoring: the spec's rule table and a bounded edit distance."""

from __future__ import annotations

from rapidfuzz.distance import Levenshtein

EXACT_SCORE = 1.0
PREFIX_SCORE = 0.9
CONTAINS_SCORE = 0.75
SHARED_PREFIX_MIN = 4
SHARED_PREFIX_BASE = 0.55
SHARED_PREFIX_SPAN = 0.25
EDIT_PENALTY = 0.6


def bounded_levenshtein(a: str, b: str, max_distance: int) -> int:
    """Levenshtein distance of *a* and *b*, or ``max_distance + 1`` when it exceeds it.

    The C implementation abandons a pair as soon as the distance is known to exceed the
    bound, so the common non-match case stays cheap.
    """
    if max_distance < 0:
        return 0 if a == b else max_distance + 1
    if abs(len(a) - len(b)) > max_distance:
        return max_distance + 1
    return int(Levenshtein.distance(a, b, score_cutoff=max_distance))


def edit_budget(query_token: str) -> int:
    """Edits tolerated for a query token: 0 below 3 chars, 1 below 6, else 2."""
    length = len(query_token)
    if length < 3:
        return 0
    return 1 if length < 6 else 2


def shared_prefix_length(a: str, b: str) -> int:
    """Length of the longest common prefix of *a* and *b*."""
    limit = min(len(a), len(b))
    i = 0
    while i < limit and a[i] == b[i]:
        i += 1
    return i


def score_token(query_token: str, field_token: str) -> float:
    """How well one normalized field token matches one normalized query token (0..1).

    Rules in order, first match wins: exact 1.0; the field token starts with the query
    token 0.9 (query >= 3 chars); contains it 0.75 (query >= 4 chars); then the better of
    the edit-distance rule ``1 - d/len(q) * 0.6`` (d <= 1 under 6 chars, d <= 2 from 6,
    none under 3) and the morphological rule ``0.55 + 0.25 * shared/len(longer)`` for a
    shared prefix of >= 4 chars ("decide" ~ "decision"); otherwise 0.
    """
    if query_token == field_token:
        return EXACT_SCORE
    q_len = len(query_token)
    if q_len == 0:
        return 0.0
    if q_len >= 3 and field_token.startswith(query_token):
        return PREFIX_SCORE
    if q_len >= 4 and query_token in field_token:
        return CONTAINS_SCORE
    best = 0.0
    budget = edit_budget(query_token)
    if budget:
        distance = bounded_levenshtein(query_token, field_token, budget)
        if distance <= budget:
            best = 1.0 - (distance / q_len) * EDIT_PENALTY
    if (
        q_len >= SHARED_PREFIX_MIN
        and query_token[:SHARED_PREFIX_MIN] == field_token[:SHARED_PREFIX_MIN]
    ):
        shared = shared_prefix_length(query_token, field_token)
        longer = max(q_len, len(field_token))
        best = max(best, SHARED_PREFIX_BASE + SHARED_PREFIX_SPAN * shared / longer)
    return best


def score_prefix_token(query_token: str, field_token: str) -> float:
    """Score for a wildcard alternative ``tok*``: 1.0 if the field token starts with it.

    Otherwise the ordinary rules apply, so a wildcard never matches less than the plain
    token would.
    """
    if field_token.startswith(query_token):
        return EXACT_SCORE
    return score_token(query_token, field_token)
