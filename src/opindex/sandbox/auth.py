"""Who is calling: API-key authentication (Basic ``apikey:KEY`` or Bearer) against the corpus."""

from __future__ import annotations

import base64
import binascii

from starlette.requests import Request

from opindex.errors import AuthenticationError
from opindex.sandbox.app_state import SandboxState, sandbox_of
from opindex.sandbox.corpus import User

MISSING_CREDENTIALS = "You need to be authenticated to access this resource."
WRONG_CREDENTIALS = "You did not provide the correct credentials."


def _key_from_header(header: str) -> str | None:
    scheme, _, value = header.strip().partition(" ")
    value = value.strip()
    if scheme.lower() == "bearer":
        return value or None
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        username, separator, key = decoded.partition(":")
        if separator and username == "apikey" and key:
            return key
    return None


def authenticate(request: Request) -> tuple[SandboxState, User]:
    """The sandbox state and the calling user; 401 ``Unauthenticated`` otherwise."""
    state = sandbox_of(request)
    header = request.headers.get("authorization")
    if not header:
        raise AuthenticationError(
            MISSING_CREDENTIALS, status=401, error_identifier="Unauthenticated"
        )
    key = _key_from_header(header)
    user = state.store.user_for_key(key) if key is not None else None
    if user is None:
        raise AuthenticationError(WRONG_CREDENTIALS, status=401, error_identifier="Unauthenticated")
    return state, user


def www_authenticate(message: str) -> str:
    """The ``WWW-Authenticate`` header of a 401, as OpenProject sends it."""
    challenge = 'Bearer realm="OpenProject API", scope="api_v3"'
    if message == WRONG_CREDENTIALS:
        challenge += ', error="invalid_token"'
    return challenge
