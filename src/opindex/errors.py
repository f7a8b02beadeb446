"""The single exception tree of opindex; edges (CLI, MCP) turn these into messages."""

from __future__ import annotations


class OpindexError(Exception):
    """Root of every error opindex raises on purpose.

    ``public``: set when the message is safe for a remote client as it is (no paths,
    no library text); see :mod:`opindex.disclosure`.
    """

    public: str | None = None


class ConfigError(OpindexError):
    """The configuration is invalid; the message names the key and the problem."""


class InvalidArgumentError(OpindexError):
    """A caller passed an argument opindex cannot use (bad match mode, limit, query...)."""


# --- OpenProject / HTTP -------------------------------------------------------------


class OpenProjectError(OpindexError):
    """Any failure while talking to OpenProject (or the sandbox)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        error_identifier: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.error_identifier = error_identifier


class AuthenticationError(OpenProjectError):
    """401: the credential is missing, wrong, expired, or resolved to the anonymous user."""


class PermissionDeniedError(OpenProjectError):
    """403: the account lacks a permission."""


class NotFoundError(OpenProjectError):
    """404: deleted or not visible to the account (indistinguishable by design)."""


class RateLimitedError(OpenProjectError):
    """429 after the retry budget was spent."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = 429,
        error_identifier: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, status=status, error_identifier=error_identifier)
        self.retry_after = retry_after


class InvalidQueryError(OpenProjectError):
    """400: OpenProject rejected filters, sortBy or select."""


class ServerError(OpenProjectError):
    """5xx from OpenProject."""


class UpstreamUnavailableError(OpenProjectError):
    """Network failure or timeout: OpenProject could not be reached."""


# --- Local storage -------------------------------------------------------------------


class StateError(OpindexError):
    """The SQLite state database is unusable (locked, corrupt, unwritable)."""


class IndexUnavailableError(OpindexError):
    """A tenant's index is missing, corrupt or cannot be opened."""


class SyncInProgressError(OpindexError):
    """Another sync or rebuild holds this tenant's lock."""


class CorpusError(OpindexError):
    """A sandbox corpus file is malformed; the message names the record."""


class IndexNeedsRebuildError(IndexUnavailableError):
    """A tenant's index was written under another schema version and must be rebuilt."""

    def __init__(self, message: str, *, found_version: int | None = None) -> None:
        super().__init__(message)
        self.found_version = found_version


class StateCorruptError(StateError):
    """The state database file is not a usable SQLite database (a rebuild moves it aside)."""


class IndexDamagedError(IndexUnavailableError):
    """A file of an index generation fails its checksum, or Tantivy cannot read it.

    ``generation`` is the damaged generation's name, ``file`` the file inside it (None
    when Tantivy failed without saying which), ``reason`` what is wrong with it.
    """

    def __init__(self, message: str, *, generation: str, file: str | None, reason: str) -> None:
        super().__init__(message)
        self.generation = generation
        self.file = file
        self.reason = reason


class IndexMissingError(IndexUnavailableError):
    """A tenant's index was never built (or its pointer was removed)."""


class StateLockedError(StateError):
    """Another process holds the state database's write lock beyond the wait."""


# --- Embeddings ----------------------------------------------------------------------


class EmbeddingError(OpindexError):
    """Text could not be turned into vectors: the model is missing, or a provider failed."""


class EmbeddingProviderError(EmbeddingError):
    """An OpenAI-compatible ``/v1/embeddings`` provider failed or answered something unusable.

    ``status`` is the HTTP status when there was a response (None for a network failure
    or a malformed body).
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class VectorModelMismatchError(EmbeddingError):
    """Stored vectors were made by another model than the one configured: rebuild the
    index, never mix vectors of two models."""
