"""What a remote (MCP) client may be told about a local failure: no paths, no library text.

Errors of the local storage carry the server's absolute paths and the words of SQLite or
Tantivy, which help the operator (logs, ``opindex status``) but tell a model nothing it
can act on and disclose the server's layout. The MCP edge shows these texts instead.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from opindex.errors import (
    IndexDamagedError,
    IndexMissingError,
    IndexNeedsRebuildError,
    IndexUnavailableError,
    OpindexError,
    StateCorruptError,
    StateError,
    StateLockedError,
)

_ABSOLUTE_PATH: Final = re.compile(r"(?<![\w.:/])/[^\s'\"`,;()]+")
OPERATOR_HINT: Final = "`opindex status` on the server says why"


def public_detail(error: OpindexError) -> str:
    """A sentence about ``error`` safe to send to a remote client.

    Storage errors become fixed texts built from their attributes; any other error keeps
    its message with absolute paths removed.
    """
    if error.public is not None:
        return error.public
    if isinstance(error, IndexDamagedError):
        what = f"file {error.file}" if error.file is not None else "one of its files"
        return (
            f"the index could not be read: it is damaged ({what} of index generation "
            f"{error.generation} failed its integrity check); the next sync rebuilds it "
            "automatically, or the operator can run `opindex rebuild`"
        )
    if isinstance(error, IndexMissingError):
        return "there is no index for this tenant (no index yet); `opindex sync` builds it"
    if isinstance(error, IndexNeedsRebuildError):
        return "the index was built by another version of opindex and needs `opindex rebuild`"
    if isinstance(error, IndexUnavailableError):
        return f"the index could not be read ({OPERATOR_HINT})"
    if isinstance(error, StateLockedError):
        return "opindex's state database is locked by a running sync"
    if isinstance(error, StateCorruptError):
        return (
            "opindex's state database is damaged; the operator must run `opindex rebuild` "
            "(it moves the database aside)"
        )
    if isinstance(error, StateError):
        return f"opindex's state database cannot be used ({OPERATOR_HINT})"
    return without_paths(str(error))


def without_paths(text: str, data_dir: Path | None = None) -> str:
    """``text`` with absolute paths replaced by "(a server file)"."""
    if data_dir is not None:
        text = text.replace(str(data_dir), "/")
    return _ABSOLUTE_PATH.sub("(a server file)", text)


_STORAGE_ERRORS: Final = (
    "IndexUnavailableError",
    "IndexDamagedError",
    "IndexMissingError",
    "IndexNeedsRebuildError",
    "StateError",
    "StateCorruptError",
    "StateLockedError",
    "SyncInProgressError",
)


def public_run_error(text: str) -> str:
    """A stored run error (``"<ErrorType>: <message>"``) as a remote client may read it:
    a local storage error only by its kind, anything else without paths."""
    kind = text.split(":", 1)[0]
    if kind in _STORAGE_ERRORS:
        return f"{kind}: a local storage problem ({OPERATOR_HINT})"
    return without_paths(text)
