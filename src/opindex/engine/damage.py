"""Damage of a generation's files as the engine reports it, and a verified file's stamp.

The index's checksums (``opindex.index``, invariant 8) and the engine's own segment checks
name damage the same way: the generation, the file, the reason and the repair.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from opindex.errors import IndexDamagedError

REPAIR: Final = "the next sync builds a new generation, or run `opindex rebuild`"
Stamp = tuple[int, int, int]
"""A file's (inode, mtime in ns, size): a write or a replacement changes it."""
VerifiedFile = tuple[Stamp, str]
"""A file's stamp when it was found to have the SHA-256 beside it."""


def damaged_error(path: Path, file: str | None, reason: str) -> IndexDamagedError:
    """The error naming *file* (relative to the generation at *path*) as damaged."""
    where = f"{path}/{file}" if file is not None else f"a file under {path}"
    return IndexDamagedError(
        f"index generation {path.name} is damaged: {where} {reason}; {REPAIR}",
        generation=path.name,
        file=file,
        reason=reason,
    )
