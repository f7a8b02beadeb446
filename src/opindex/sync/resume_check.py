"""Whether a checkpointed full sync can be continued: every part of its generation agrees.

Kept apart from :mod:`opindex.sync.checkpoints` (which continues it) so that ``status``
can say what the next sync will do without importing the syncer.
"""

from __future__ import annotations

from collections.abc import Collection

from opindex.errors import IndexUnavailableError
from opindex.index import IndexDirectory, TenantIndex, generation_number
from opindex.state import Checkpoint

CHECKPOINTED_KIND = "work_package"
"""The kind whose record versions a checkpoint row lists."""


def resume_problem(
    directory: IndexDirectory, checkpoint: Checkpoint, held: Collection[int]
) -> str | None:
    """Why the checkpointed generation cannot be continued, None when every part of it
    agrees (see the module docstring); *held*: the work-package ids the checkpoint row
    lists. Opens the generation read-only; meaningful only under the tenant's lock."""
    name = checkpoint.generation
    if name not in directory.generations():
        return f"its generation {name} is gone"
    try:
        live = directory.current()
    except IndexUnavailableError:
        live = None  # the run builds a new generation anyway; this one may still serve
    if live is not None and (generation_number(live) or 0) >= (generation_number(name) or 0):
        return f"its generation {name} is not newer than the live one ({live})"
    try:
        with TenantIndex(directory, generation=name) as index:
            disagreement = index.commit_disagreement()
            if disagreement is not None:
                return f"generation {name} was interrupted between two commits: {disagreement}"
            missing = len(set(held) - set(index.all_ids(CHECKPOINTED_KIND)))
    except IndexUnavailableError as exc:
        return f"generation {name} cannot be read: {exc}"
    if missing:
        return (
            f"generation {name} lacks {missing} of the {len(held)} work packages its "
            "checkpoint lists"
        )
    return None
