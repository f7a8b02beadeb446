"""The documented exit codes of the command line, and which library error maps to which.

One of the two edges that turn errors into words (ARCHITECTURE invariant 9).
"""

from __future__ import annotations

from opindex.errors import (
    AuthenticationError,
    ConfigError,
    CorpusError,
    IndexUnavailableError,
    InvalidArgumentError,
    OpenProjectError,
    OpindexError,
    PermissionDeniedError,
    StateError,
    SyncInProgressError,
)

# Exit codes (documented in the README).
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_SYNC_RUNNING = 3
EXIT_AUTH = 4
EXIT_UPSTREAM = 5
EXIT_LOCAL_STORAGE = 6
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141
"""The reader of the output went away (128 + SIGPIPE, as the shell reports a killed writer)."""


def exit_code_for(error: OpindexError) -> int:
    """Map a library error to the documented exit code."""
    if isinstance(error, SyncInProgressError):
        return EXIT_SYNC_RUNNING
    if isinstance(error, AuthenticationError | PermissionDeniedError):
        return EXIT_AUTH
    if isinstance(error, OpenProjectError):
        return EXIT_UPSTREAM
    if isinstance(error, IndexUnavailableError | StateError):
        return EXIT_LOCAL_STORAGE
    if isinstance(error, ConfigError | InvalidArgumentError | CorpusError):
        return EXIT_USAGE
    return EXIT_FAILURE
