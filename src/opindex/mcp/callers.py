"""Who is calling: the tenant a request is served as, from the transport and its headers.

ARCHITECTURE invariant 7: a credential that matches no tenant never reads an index.

Over stdio the process serves exactly one tenant, chosen when it starts. Over HTTP every
request carries an OpenProject API key (``Authorization: Bearer <key>``, OpenProject's own
``Authorization: Basic base64(apikey:<key>)`` or
``X-OpenProject-Api-Key: <key>``); the key selects the configured tenant built with it.
A key that matches no tenant never reaches an index: it may search live with its own key
only when ``[server] allow_unknown_credentials_live`` is set, and is refused otherwise.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass

from opindex.config import Config, Secret
from opindex.errors import ConfigError

API_KEY_HEADER = "x-openproject-api-key"
BEARER_PREFIX = "bearer "
BASIC_PREFIX = "basic "


@dataclass(frozen=True, slots=True)
class Caller:
    """A request's identity. ``tenant``: a configured tenant (index and live path).
    ``live_credential``: an unknown key allowed on the live path only (``tenant`` None)."""

    tenant: str | None
    live_credential: Secret | None = None

    @property
    def secrets(self) -> tuple[str, ...]:
        """Credentials to scrub from any text sent back."""
        return () if self.live_credential is None else (self.live_credential.reveal(),)


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a request cannot be served; ``message`` is written for the model to relay."""

    message: str


MISSING_CREDENTIAL = Refusal(
    "This opindex server needs the caller's OpenProject API key: configure the MCP client to "
    "send the header 'Authorization: Bearer <key>', 'Authorization: Basic "
    "base64(apikey:<key>)' or 'X-OpenProject-Api-Key: <key>'. "
    "Ask the user to add it to the client configuration."
)
UNKNOWN_CREDENTIAL = Refusal(
    "The OpenProject API key sent with this request matches no tenant configured on this "
    "opindex server, and the server does not search live for unknown keys. Ask the user to "
    "check the key in the MCP client configuration, or an administrator to add a tenant for it."
)


def credential_from_headers(headers: Mapping[str, str]) -> str | None:
    """The API key a request presents, if any (header names are case-insensitive)."""
    lowered = {name.lower(): value for name, value in headers.items()}
    explicit = lowered.get(API_KEY_HEADER, "").strip()
    if explicit:
        return explicit
    authorization = lowered.get("authorization", "").strip()
    if authorization.lower().startswith(BEARER_PREFIX):
        token = authorization[len(BEARER_PREFIX) :].strip()
        return token or None
    if authorization.lower().startswith(BASIC_PREFIX):
        return _basic_api_key(authorization[len(BASIC_PREFIX) :].strip())
    return None


def _basic_api_key(encoded: str) -> str | None:
    """The key of OpenProject's own form ``Basic base64(apikey:KEY)``; None for anything
    else (a user name other than ``apikey``, or not base64 at all)."""
    try:
        decoded = base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    user, separator, key = decoded.partition(":")
    if not separator or user != "apikey" or not key.strip():
        return None
    return key.strip()


def http_caller(config: Config, headers: Mapping[str, str] | None) -> Caller | Refusal:
    """Map an HTTP request to the tenant whose key it presents (see the module docstring)."""
    credential = credential_from_headers(headers or {})
    if credential is None:
        return MISSING_CREDENTIAL
    tenant = config.tenant_for_credential(credential)
    if tenant is not None:
        return Caller(tenant.name)
    if config.server.allow_unknown_credentials_live:
        return Caller(None, live_credential=Secret(credential))
    return UNKNOWN_CREDENTIAL


def stdio_tenant(config: Config, requested: str | None) -> str:
    """The one tenant a stdio server serves: ``requested``, or the only configured one.

    Raises ConfigError when several tenants are configured and none was chosen (or the
    chosen one is unknown).
    """
    if requested is not None:
        return config.tenant(requested).name
    if len(config.tenants) == 1:
        return config.tenants[0].name
    names = ", ".join(config.tenant_names)
    raise ConfigError(
        f"several tenants are configured ({names}) and a stdio server serves one: "
        "pass --tenant NAME (or serve them all over HTTP with --transport http)"
    )
