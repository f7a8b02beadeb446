"""The API credential: builds the Authorization header and never shows the secret."""

from __future__ import annotations

import base64
from typing import Literal

from opindex.errors import ConfigError

AuthScheme = Literal["basic", "bearer"]


class ApiKeyCredential:
    """An OpenProject API token sent as HTTP Basic (``apikey:<token>``) or as a Bearer token.

    Basic is the default: it works on every 16.x/17.x instance that allows API tokens.
    ``repr``/``str`` never contain the token, so the object is safe in logs and errors.
    """

    __slots__ = ("_secret", "scheme")

    def __init__(self, api_key: str, scheme: AuthScheme = "basic") -> None:
        if not isinstance(api_key, str) or not api_key.strip():
            raise ConfigError("the OpenProject API key is empty")
        if scheme not in ("basic", "bearer"):
            raise ConfigError(f"unknown auth scheme {scheme!r}: expected 'basic' or 'bearer'")
        self._secret = api_key.strip()
        self.scheme: AuthScheme = scheme

    def authorization_header(self) -> str:
        """The value of the ``Authorization`` header for this credential."""
        if self.scheme == "bearer":
            return f"Bearer {self._secret}"
        token = base64.b64encode(f"apikey:{self._secret}".encode()).decode("ascii")
        return f"Basic {token}"

    def matches(self, api_key: str) -> bool:
        """Whether *api_key* is this credential's token (for tenant lookup)."""
        return api_key.strip() == self._secret

    def __repr__(self) -> str:
        return f"ApiKeyCredential(scheme={self.scheme!r}, api_key='***')"

    __str__ = __repr__
