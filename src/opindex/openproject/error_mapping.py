"""Turn an OpenProject error response (HAL ``Error`` body + status) into a typed exception."""

from __future__ import annotations

from collections.abc import Mapping

from opindex.errors import (
    AuthenticationError,
    InvalidQueryError,
    NotFoundError,
    OpenProjectError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
)

ERROR_URN_PREFIX = "urn:openproject-org:api:v3:errors:"
_MAX_SERVER_MESSAGE = 500


def error_identifier(body: object) -> str | None:
    """The full ``errorIdentifier`` of an error body (first one of ``MultipleErrors``)."""
    if not isinstance(body, Mapping):
        return None
    identifier = body.get("errorIdentifier")
    if isinstance(identifier, str) and identifier:
        if identifier.endswith(":MultipleErrors"):
            inner = _embedded_errors(body)
            if inner:
                first = error_identifier(inner[0])
                if first:
                    return first
        return identifier
    return None


def error_name(identifier: str | None) -> str | None:
    """``urn:…:errors:NotFound`` → ``NotFound``."""
    if identifier is None:
        return None
    return identifier.rsplit(":", 1)[-1] or None


def server_message(body: object) -> str | None:
    """The server's (localized) message; for ``MultipleErrors`` all messages joined."""
    if not isinstance(body, Mapping):
        return None
    messages: list[str] = []
    top = body.get("message")
    if isinstance(top, str) and top.strip():
        messages.append(top.strip())
    for inner in _embedded_errors(body):
        text = inner.get("message")
        if isinstance(text, str) and text.strip() and text.strip() not in messages:
            messages.append(text.strip())
    if not messages:
        return None
    joined = " ".join(messages)
    if len(joined) > _MAX_SERVER_MESSAGE:
        joined = joined[: _MAX_SERVER_MESSAGE - 1] + "…"
    return joined


def error_from_response(
    status: int,
    body: object,
    *,
    method: str,
    path: str,
    retry_after: float | None = None,
) -> OpenProjectError:
    """The typed exception for an error response; branch on status and identifier only.

    *path* must be the URL path without query string or credentials; it is quoted in the
    message so that a caller can tell which request failed.
    """
    identifier = error_identifier(body)
    name = error_name(identifier)
    text = server_message(body)
    where = f"{method} {path}"
    label = f"{status} {name}" if name else str(status)
    message = f"OpenProject answered {label} to {where}"
    if text:
        message += f": {text}"

    if status == 401:
        return AuthenticationError(message, status=status, error_identifier=identifier)
    if status == 403:
        return PermissionDeniedError(message, status=status, error_identifier=identifier)
    if status == 404:
        return NotFoundError(message, status=status, error_identifier=identifier)
    if status == 429:
        return RateLimitedError(
            message, status=status, error_identifier=identifier, retry_after=retry_after
        )
    if status == 400:
        return InvalidQueryError(message, status=status, error_identifier=identifier)
    if status >= 500:
        return ServerError(message, status=status, error_identifier=identifier)
    return OpenProjectError(message, status=status, error_identifier=identifier)


def _embedded_errors(body: Mapping[str, object]) -> list[Mapping[str, object]]:
    embedded = body.get("_embedded")
    if not isinstance(embedded, Mapping):
        return []
    errors = embedded.get("errors")
    if not isinstance(errors, list):
        return []
    return [item for item in errors if isinstance(item, Mapping)]
