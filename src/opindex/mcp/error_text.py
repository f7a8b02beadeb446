"""Library errors → the text a model reads in an error result: what failed, what to change.

One of the two edges that turn errors into words (ARCHITECTURE invariant 9).
"""

from __future__ import annotations

from collections.abc import Iterable

from opindex.disclosure import public_detail, without_paths
from opindex.errors import (
    AuthenticationError,
    ConfigError,
    IndexNeedsRebuildError,
    IndexUnavailableError,
    InvalidArgumentError,
    InvalidQueryError,
    NotFoundError,
    OpindexError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
    StateError,
    SyncInProgressError,
    UpstreamUnavailableError,
)

REDACTED = "[redacted]"


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of a (non-trivial) secret replaced."""
    for secret in secrets:
        if len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    return text


def error_text(
    error: OpindexError, *, secrets: Iterable[str] = (), tenant: str | None = None
) -> str:
    """A message for the model: the problem, then the change that would help.

    ``secrets`` (the credentials in play) are scrubbed from the text as a last line of
    defence; library messages are written never to contain them. *tenant* names the
    configured tenant the call was made for, when there is one.
    """
    return redact(_describe(error, tenant), secrets)


def _describe(error: OpindexError, tenant: str | None = None) -> str:
    detail = str(error).strip().rstrip(".") or type(error).__name__
    if not isinstance(error, InvalidArgumentError):  # its text quotes the caller's value
        detail = without_paths(detail)
    if isinstance(error, InvalidArgumentError):
        return f"Invalid argument: {detail}. Change that argument and call the tool again."
    if isinstance(error, AuthenticationError):
        which = f" for tenant {tenant!r}" if tenant else ""
        return (
            f"The OpenProject credential was rejected (401){which}; ask the user to check the "
            "API key opindex uses for this OpenProject instance (it may be wrong, expired or "
            "revoked: the tenant's api_key or api_key_env in opindex.toml, its auth setting "
            "basic or bearer, and that an administrator enabled API tokens); calling again "
            "will not help until it is fixed."
        )
    if isinstance(error, PermissionDeniedError):
        return (
            f"OpenProject refused access (403): {detail}. The account lacks a permission for "
            "this; narrow the request (e.g. another project) or ask the user to grant it."
        )
    if isinstance(error, NotFoundError):
        return (
            f"Not found: {detail}. The record does not exist or this account cannot see it; "
            "search first and use an id taken from the results."
        )
    if isinstance(error, RateLimitedError):
        wait = f" about {error.retry_after:.0f} s" if error.retry_after else " a little"
        return (
            f"OpenProject is rate limiting requests. Wait{wait} and call again, or search with "
            "source 'index' to read opindex's index without asking OpenProject."
        )
    if isinstance(error, InvalidQueryError):
        return (
            f"OpenProject rejected the request's filters: {detail}. Change or drop the "
            "project, status, type or assignee filters and call again."
        )
    if isinstance(error, ServerError | UpstreamUnavailableError):
        return (
            f"OpenProject could not answer: {detail}. Try again later, or search with source "
            "'index' to read opindex's (possibly stale) index instead."
        )
    if isinstance(error, IndexNeedsRebuildError):
        return (
            f"The search index must be rebuilt: {public_detail(error)}. Search with source "
            "'live' for now and ask the user to run `opindex rebuild`."
        )
    if isinstance(error, IndexUnavailableError):
        return (
            f"The search index is unavailable: {public_detail(error)}. Search with source "
            "'live' (or 'auto') instead, and tell the user if this persists."
        )
    if isinstance(error, StateError):
        return (
            f"opindex's local state database is unusable: {public_detail(error)}. Search with "
            "source 'live' and tell the user; the server's data directory needs attention."
        )
    if isinstance(error, SyncInProgressError):
        return f"{detail}. Call again in a moment."
    if isinstance(error, ConfigError):
        return (
            f"opindex is misconfigured: {detail}. Tell the user; the server configuration "
            "must be fixed."
        )
    return f"{detail}."
