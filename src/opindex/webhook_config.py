"""The webhook settings of one tenant: the path deliveries arrive at and the signing secret."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from opindex.config_table import ConfigTable, has_control_characters
from opindex.errors import ConfigError
from opindex.secret import Secret

WEBHOOK_KEYS = frozenset({"webhook_path", "webhook_secret", "webhook_secret_env"})
_PATH = re.compile(r"/[A-Za-z0-9._~/-]{1,200}")
RESERVED_PATHS = ("/mcp",)


@dataclass(frozen=True, slots=True)
class WebhookConfig:
    """Where ``opindex serve --transport http`` accepts this tenant's OpenProject webhooks
    (``path``) and the secret their ``X-OP-Signature`` is checked against."""

    path: str
    secret: Secret


def parse_webhook(table: ConfigTable, env: Mapping[str, str]) -> WebhookConfig | None:
    """The tenant's webhook settings; None when it has none. Path and secret go together."""
    path = table.data.get("webhook_path")
    has_secret = "webhook_secret" in table.data or "webhook_secret_env" in table.data
    if path is None and not has_secret:
        return None
    if path is None:
        raise table.error("webhook_path", "missing: a webhook secret needs a webhook_path")
    if not isinstance(path, str) or not _PATH.fullmatch(path) or "//" in path:
        raise table.error(
            "webhook_path", "must be a URL path like /webhooks/acme (letters, digits, ._~-/)"
        )
    if path.rstrip("/") in RESERVED_PATHS:
        raise table.error("webhook_path", f"{path} is where the MCP endpoint is served")
    if not has_secret:
        raise table.error(
            "webhook_secret",
            "missing: set webhook_secret or webhook_secret_env (unsigned webhooks are refused)",
        )
    return WebhookConfig(path.rstrip("/"), _secret(table, env))


def _secret(table: ConfigTable, env: Mapping[str, str]) -> Secret:
    if "webhook_secret" in table.data and "webhook_secret_env" in table.data:
        raise table.error("webhook_secret", "set either webhook_secret or webhook_secret_env")
    if "webhook_secret" in table.data:
        value = table.data["webhook_secret"]
        where = "webhook_secret"
    else:
        variable = table.data["webhook_secret_env"]
        if not isinstance(variable, str) or not variable.strip():
            raise table.error("webhook_secret_env", "must name an environment variable")
        value = env.get(variable.strip(), "")
        where = "webhook_secret_env"
    if not isinstance(value, str) or len(value.strip()) < 8:
        raise table.error(where, "the secret must be a string of at least 8 characters")
    if has_control_characters(value.strip()):
        raise table.error(where, "must not contain control characters (NUL, newline, ...)")
    return Secret(value.strip())


def check_unique_paths(paths: Sequence[tuple[str, str]], source: str) -> None:
    """ConfigError if two tenants (name, path) share a webhook path."""
    seen: dict[str, str] = {}
    for name, path in paths:
        if path in seen:
            raise ConfigError(
                f"{source}: tenant {name!r}: webhook_path {path} is also tenant {seen[path]!r}'s"
            )
        seen[path] = name
