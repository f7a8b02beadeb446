"""Deciding what a sync run must do: incremental, full, or a fresh generation, and why.

The decision compares the live index with the state database (see the commit protocol
in :mod:`opindex.state.store`): a state that describes exactly the live index allows an
incremental run; an index that committed after the state (a crash between the two)
is repaired by re-applying changes from the older high-water marks plus a deletion
sweep; anything else needs a full sync, into a fresh generation when the live one is
missing or unreadable.
"""

from __future__ import annotations

from dataclasses import dataclass

from opindex.errors import IndexNeedsRebuildError, IndexUnavailableError
from opindex.state import CommitAgreement, IndexPointer, RunKind, compare_commit


@dataclass(frozen=True, slots=True)
class SyncPlan:
    """What one run does.

    ``full``: re-read every record. ``new_generation``: write a fresh index generation
    and publish it at the end (the live one keeps serving meanwhile). ``trust_known``:
    the known records describe the live index exactly (see ``SyncSession``). ``sweep``:
    run the deletion sweep. ``reason``: one sentence for logs and reports.
    """

    run_kind: RunKind
    full: bool
    new_generation: bool
    trust_known: bool
    sweep: bool
    reason: str


def decide(
    requested: RunKind,
    *,
    live_generation: str | None,
    live_problem: IndexUnavailableError | None,
    live_opstamp: int | None,
    pointer: IndexPointer | None,
    sweep_due: bool,
) -> SyncPlan:
    """Choose the plan for a run of kind ``requested`` given the index and the state."""
    if requested == "rebuild":
        return SyncPlan("rebuild", True, True, False, False, "rebuild requested")
    if live_generation is None:
        return SyncPlan("full", True, True, False, False, "the tenant has no index yet")
    if isinstance(live_problem, IndexNeedsRebuildError):
        reason = f"the index needs a rebuild ({live_problem})"
        return SyncPlan("full", True, True, False, False, reason)
    if live_problem is not None:
        reason = f"the live index cannot be read ({live_problem}); building a new one"
        return SyncPlan("full", True, True, False, False, reason)
    if pointer is None:
        reason = "the state database does not describe the live index; reading everything"
        return SyncPlan("full", True, False, False, False, reason)
    if pointer.directory != live_generation:
        reason = (
            f"the state describes index generation {pointer.directory} but "
            f"{live_generation} is live; reading everything"
        )
        return SyncPlan("full", True, False, False, False, reason)
    agreement = compare_commit(live_opstamp, pointer)
    full = requested == "full"
    if agreement is CommitAgreement.IN_SYNC:
        if full:
            return SyncPlan("full", True, False, True, False, "full sync requested")
        return SyncPlan("incremental", False, False, True, sweep_due, "incremental")
    if agreement is CommitAgreement.INDEX_AHEAD:
        reason = (
            "the index holds a commit the state never recorded (an interrupted run); "
            "re-applying changes from the older high-water marks and sweeping deletions"
        )
        return SyncPlan(requested, full, False, False, True, reason)
    reason = "the index is older than the state describes; reading everything"
    return SyncPlan("full", True, False, False, False, reason)
