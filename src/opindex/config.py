"""Configuration: tenants from a TOML file (or one tenant from the environment), validated.

Where the configuration comes from, first match wins:

1. the path given to :func:`load_config` (the CLI's ``--config PATH``);
2. the file named by ``OPINDEX_CONFIG``;
3. ``./opindex.toml`` if it exists;
4. one tenant named ``default`` from ``OPENPROJECT_URL`` + ``OPENPROJECT_API_KEY``.

File format: top-level ``data_dir``; a ``[server]`` table with the fields of
:class:`ServerConfig`; one ``[[tenants]]`` table per tenant with the fields of
:class:`TenantConfig`, where the key is given as ``api_key = "..."`` or
``api_key_env = "VARIABLE"`` and ``thesaurus`` is a JSON file path.

Relative paths (``data_dir``, ``thesaurus``) are resolved against the directory of the
configuration file. Any invalid value raises :class:`~opindex.errors.ConfigError` with one
message naming the key and the problem; unknown keys are rejected so typos surface.
API keys are held in :class:`Secret`, whose repr/str never show the value, and no error
message ever contains one.
"""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast
from urllib.parse import urlsplit

from opindex.config_table import ConfigTable, has_control_characters
from opindex.embedding import EMBEDDING_KEY, EmbeddingConfig, parse_embedding
from opindex.errors import ConfigError
from opindex.secret import Secret as Secret  # re-exported: callers import it from here
from opindex.state import is_valid_tenant_name, tenant_directory
from opindex.webhook_config import WEBHOOK_KEYS, WebhookConfig, check_unique_paths, parse_webhook

logger = logging.getLogger(__name__)

DEFAULT_CONFIG_FILE = "opindex.toml"
DEFAULT_TENANT_NAME = "default"
ENV_CONFIG = "OPINDEX_CONFIG"
ENV_DATA_DIR = "OPINDEX_DATA_DIR"
ENV_URL = "OPENPROJECT_URL"
ENV_API_KEY = "OPENPROJECT_API_KEY"

AuthScheme = Literal["basic", "bearer"]
_AUTH_SCHEMES: dict[str, AuthScheme] = {"basic": "basic", "bearer": "bearer"}

# Only names in this conventional form are echoed in messages: a value that does not look
# like a variable name may be an API key pasted into the wrong key.
_ENV_VAR_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")

_DEFAULT_HOST = "127.0.0.1"
_DEFAULT_PORT = 8765

# Turns a problem description into a ConfigError that names the key.
_ErrorFactory = Callable[[str], ConfigError]


@dataclass(frozen=True, slots=True)
class TenantConfig:
    """One OpenProject base URL plus the credential the tenant's index is built as.

    - ``auth``: how the key is sent: ``"basic"`` (user ``apikey``, the OpenProject default)
      or ``"bearer"`` (``Authorization: Bearer <key>``).
    - ``sync_interval_seconds``: how often the daemon runs an incremental sync.
    - ``max_staleness_seconds``: an index whose last successful sync is older than this is
      stale, and searches take the live path.
    - ``wiki_refresh_interval_seconds``: every known wiki page is re-read within this
      interval (wiki pages have no server-side change feed), and a discovery pass over
      the gaps between known page ids runs once per interval.
    - ``deletion_sweep_interval_seconds``: how often the full id lists are compared with the
      known ids to find deleted or no longer visible records.
    - ``sync_safety_margin_seconds``: an incremental sync asks for changes since the
      high-water mark minus this margin, covering clock skew and late commits.
    - ``thesaurus``: optional word → synonyms mapping for concept expansion, loaded from
      ``thesaurus_path``.
    - ``webhook``: where ``serve --transport http`` accepts signed OpenProject webhooks.
    - ``read_attachments``: read the files attached to records and search their text (one
      request more per record a sync writes, plus the downloads); false skips them.
    - ``embedding``: which model turns the tenant's texts into vectors (the
      ``[tenants.embedding]`` table; the bundled offline model by default).
    """

    name: str
    base_url: str
    api_key: Secret
    auth: AuthScheme = "basic"
    sync_interval_seconds: int = 900
    max_staleness_seconds: int = 3600
    wiki_refresh_interval_seconds: int = 3600
    deletion_sweep_interval_seconds: int = 3600
    sync_safety_margin_seconds: int = 300
    read_attachments: bool = True
    thesaurus_path: Path | None = None
    thesaurus: Mapping[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    webhook: WebhookConfig | None = None
    embedding: EmbeddingConfig = field(default_factory=EmbeddingConfig)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """The ``[server]`` table: where the HTTP (MCP) server listens and whom it serves.

    ``allow_unknown_credentials_live``: a request whose credential matches no configured
    tenant may use the live path with its own key only if this is true; it never gets an
    index.
    """

    host: str = _DEFAULT_HOST
    port: int = _DEFAULT_PORT
    allow_unknown_credentials_live: bool = False


@dataclass(frozen=True, slots=True)
class Config:
    """The whole validated configuration. ``source`` is the file, or None for environment."""

    data_dir: Path
    tenants: tuple[TenantConfig, ...]
    server: ServerConfig = ServerConfig()
    source: Path | None = None

    @property
    def tenant_names(self) -> tuple[str, ...]:
        """Configured tenant names, in file order."""
        return tuple(tenant.name for tenant in self.tenants)

    def tenant(self, name: str) -> TenantConfig:
        """The tenant called ``name``; ConfigError listing the known names otherwise."""
        for tenant in self.tenants:
            if tenant.name == name:
                return tenant
        known = ", ".join(self.tenant_names)
        raise ConfigError(f"unknown tenant {name!r}; configured tenants: {known}")

    def tenant_for_credential(self, credential: str) -> TenantConfig | None:
        """The tenant whose API key equals ``credential`` (constant-time), if any."""
        found = None
        for tenant in self.tenants:
            if tenant.api_key.matches(credential):
                found = tenant
        return found

    def tenant_data_dir(self, name: str) -> Path:
        """``<data_dir>/<tenant>``: where the tenant's index, state and lock live."""
        return tenant_directory(self.data_dir, self.tenant(name).name)


def default_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$OPINDEX_DATA_DIR``, else ``$XDG_DATA_HOME/opindex``, else ``~/.local/share/opindex``.

    Used when the configuration file has no ``data_dir`` (or configuration comes from the
    environment). A relative ``XDG_DATA_HOME`` is ignored, as the XDG specification says.
    """
    env = os.environ if env is None else env
    if env.get(ENV_DATA_DIR):
        return Path(env[ENV_DATA_DIR]).expanduser().absolute()
    xdg = env.get("XDG_DATA_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "opindex"
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return home / ".local" / "share" / "opindex"


def load_config(
    path: str | Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Config:
    """Find and load the configuration (see the module docstring for the order)."""
    env = os.environ if env is None else env
    if path is not None:
        return load_config_file(Path(path), env=env)
    if env.get(ENV_CONFIG):
        return load_config_file(Path(env[ENV_CONFIG]), env=env)
    default_file = (cwd or Path.cwd()) / DEFAULT_CONFIG_FILE
    if default_file.is_file():
        if env.get(ENV_URL) or env.get(ENV_API_KEY):
            logger.warning(
                "%s and %s are ignored because %s is used", ENV_URL, ENV_API_KEY, default_file
            )
        return load_config_file(default_file, env=env)
    if env.get(ENV_URL) or env.get(ENV_API_KEY):
        return config_from_env(env)
    raise ConfigError(
        "no configuration found: pass --config PATH, set OPINDEX_CONFIG, create "
        f"./{DEFAULT_CONFIG_FILE}, or set {ENV_URL} and {ENV_API_KEY}"
    )


def config_from_env(env: Mapping[str, str] | None = None) -> Config:
    """A single tenant named ``default`` from ``OPENPROJECT_URL`` + ``OPENPROJECT_API_KEY``."""
    env = os.environ if env is None else env
    for variable in (ENV_URL, ENV_API_KEY):
        if not env.get(variable, "").strip():
            raise ConfigError(
                f"environment: {variable} is not set (both {ENV_URL} and "
                f"{ENV_API_KEY} are needed without a configuration file)"
            )
    base_url = _check_base_url(
        env[ENV_URL].strip(), lambda problem: ConfigError(f"environment: {ENV_URL}: {problem}")
    )
    if has_control_characters(env[ENV_API_KEY].strip()):
        raise ConfigError(f"environment: {ENV_API_KEY} must not contain control characters")
    tenant = TenantConfig(
        name=DEFAULT_TENANT_NAME, base_url=base_url, api_key=Secret(env[ENV_API_KEY].strip())
    )
    return Config(data_dir=default_data_dir(env), tenants=(tenant,))


def load_config_file(path: Path, *, env: Mapping[str, str] | None = None) -> Config:
    """Read, parse and validate one TOML configuration file."""
    env = os.environ if env is None else env
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ConfigError(f"configuration file {path} does not exist") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read configuration file {path}: {exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except RecursionError as exc:
        raise ConfigError(f"{path}: not valid TOML: values nested too deeply") from exc
    config = parse_config(data, source=path, env=env)
    _warn_if_world_readable(path, data)
    return config


def parse_config(
    data: Mapping[str, object], *, source: Path, env: Mapping[str, str] | None = None
) -> Config:
    """Validate parsed TOML ``data``; paths in it are relative to ``source``'s directory."""
    env = os.environ if env is None else env
    top = ConfigTable(data, "", str(source))
    top.reject_unknown({"data_dir", "tenants", "server"})
    base_dir = source.parent.absolute()

    data_dir_text = top.string("data_dir", required=False)
    data_dir = (
        base_dir / Path(data_dir_text).expanduser() if data_dir_text else default_data_dir(env)
    )

    server = ServerConfig()
    if "server" in data:
        table = top.table("server")
        table.reject_unknown({"host", "port", "allow_unknown_credentials_live"})
        server = ServerConfig(
            host=table.string("host", required=False) or _DEFAULT_HOST,
            port=table.integer("port", _DEFAULT_PORT, minimum=1, maximum=65535),
            allow_unknown_credentials_live=table.boolean("allow_unknown_credentials_live", False),
        )

    raw_tenants = data.get("tenants")
    if not isinstance(raw_tenants, list) or not raw_tenants:
        raise top.error("tenants", "at least one [[tenants]] table is required")
    tenants: list[TenantConfig] = []
    for index, raw in enumerate(raw_tenants):
        if not isinstance(raw, dict):
            raise top.error(f"tenants[{index}]", "must be a table ([[tenants]])")
        tenant = _parse_tenant(ConfigTable(raw, f"tenants[{index}]", str(source)), base_dir, env)
        for earlier in tenants:
            if earlier.name == tenant.name:
                raise ConfigError(
                    f"{source}: tenants[{index}].name: duplicate tenant name {tenant.name!r}"
                )
            if earlier.api_key == tenant.api_key:
                raise ConfigError(
                    f"{source}: tenants[{index}].api_key: same credential as tenant "
                    f"{earlier.name!r}, so a request could not be mapped to one tenant"
                )
        tenants.append(tenant)
    check_unique_paths(
        [(tenant.name, tenant.webhook.path) for tenant in tenants if tenant.webhook], str(source)
    )
    return Config(data_dir=data_dir, tenants=tuple(tenants), server=server, source=source)


# Integer tenant settings: key -> (default, minimum). Defaults match TenantConfig's.
MAX_SECONDS = 10 * 366 * 86400
"""Upper bound of every interval setting (ten years): anything longer is a typo, and
much larger values overflow date arithmetic."""
_TENANT_INTEGERS = {
    "sync_interval_seconds": (900, 1),
    "max_staleness_seconds": (3600, 1),
    "wiki_refresh_interval_seconds": (3600, 1),
    "deletion_sweep_interval_seconds": (3600, 1),
    "sync_safety_margin_seconds": (300, 0),
}
_TENANT_KEYS = {
    "name",
    "base_url",
    "api_key",
    "api_key_env",
    "auth",
    "thesaurus",
    "read_attachments",
    EMBEDDING_KEY,
}


def _parse_tenant(table: ConfigTable, base_dir: Path, env: Mapping[str, str]) -> TenantConfig:
    table.reject_unknown(_TENANT_KEYS | set(_TENANT_INTEGERS) | WEBHOOK_KEYS)
    name = cast(str, table.string("name"))
    if not is_valid_tenant_name(name):
        raise table.error("name", f"{name!r} may only contain a-z, 0-9, '_' and '-'")
    base_url = _check_base_url(
        cast(str, table.string("base_url")), lambda problem: table.error("base_url", problem)
    )
    auth_text = table.string("auth", required=False) or "basic"
    auth = _AUTH_SCHEMES.get(auth_text)
    if auth is None:
        raise table.error("auth", f"must be 'basic' or 'bearer', got {auth_text!r}")
    thesaurus_text = table.string("thesaurus", required=False)
    thesaurus_path = base_dir / Path(thesaurus_text).expanduser() if thesaurus_text else None
    return TenantConfig(
        name=name,
        base_url=base_url,
        api_key=_credential(table, env),
        auth=auth,
        thesaurus_path=thesaurus_path,
        thesaurus=load_thesaurus(thesaurus_path, key=f"{table.where}: {table.key('thesaurus')}")
        if thesaurus_path
        else {},
        webhook=parse_webhook(table, env),
        read_attachments=table.boolean("read_attachments", True),
        embedding=parse_embedding(table, env),
        **{
            key: _seconds(table, key, default, minimum)
            for key, (default, minimum) in _TENANT_INTEGERS.items()
        },
    )


def _seconds(table: ConfigTable, key: str, default: int, minimum: int) -> int:
    value = table.integer(key, default, minimum=minimum)
    if value > MAX_SECONDS:
        raise table.error(key, f"must be at most {MAX_SECONDS} (ten years), got {value}")
    return value


def _credential(table: ConfigTable, env: Mapping[str, str]) -> Secret:
    if "api_key" in table.data and "api_key_env" in table.data:
        raise table.error("api_key", "set either api_key or api_key_env, not both")
    if "api_key" in table.data:
        value = table.data["api_key"]
        if not isinstance(value, str) or not value.strip():
            raise table.error("api_key", "must be a non-empty string")
        if has_control_characters(value.strip()):
            raise table.error("api_key", "must not contain control characters (NUL, newline, ...)")
        return Secret(value.strip())
    if "api_key_env" not in table.data:
        raise table.error("api_key", "missing: set api_key or api_key_env")
    variable = table.data["api_key_env"]
    if not isinstance(variable, str) or not variable.strip():
        raise table.error("api_key_env", "must be the name of an environment variable")
    shown = variable if _ENV_VAR_NAME.fullmatch(variable) else "it names"
    value = env.get(variable, "").strip()
    if not value:
        raise table.error("api_key_env", f"environment variable {shown} is not set or empty")
    if has_control_characters(value):
        raise table.error("api_key_env", f"environment variable {shown} holds control characters")
    return Secret(value)


def _check_base_url(url: str, error: _ErrorFactory) -> str:
    """``url`` without trailing slash, or the factory's error naming the problem."""
    if has_control_characters(url):
        raise error("must not contain control characters (NUL, newline, ...)")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on an invalid port
    except ValueError as exc:
        raise error("is not a valid URL") from exc
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise error("must be an http:// or https:// URL with a host name")
    if parts.username is not None or parts.password is not None:
        raise error("must not contain credentials; use api_key or api_key_env")
    if parts.query or parts.fragment:
        raise error("must not contain a query string or fragment")
    path = parts.path.rstrip("/")
    if path.endswith("/api/v3"):
        raise error("give the server root URL, without /api/v3")
    return f"{parts.scheme.lower()}://{parts.netloc}{path}"


def load_thesaurus(path: Path, *, key: str = "thesaurus") -> dict[str, tuple[str, ...]]:
    """Read a JSON object ``{word: [synonym, ...]}``; ConfigError naming the file if bad."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{key}: thesaurus file {path} does not exist") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{key}: cannot read thesaurus file {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{key}: thesaurus file {path} is not valid JSON: {exc}") from exc
    except RecursionError as exc:
        raise ConfigError(f"{key}: thesaurus file {path} is nested too deeply") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{key}: thesaurus file {path} must hold a JSON object")
    for word, synonyms in data.items():
        strings = isinstance(synonyms, list) and all(isinstance(s, str) for s in synonyms)
        if not word.strip() or not strings or not all(s.strip() for s in synonyms):
            raise ConfigError(
                f"{key}: thesaurus file {path}: entry {word!r} must map a word to a list "
                "of non-empty strings"
            )
    return {word: tuple(synonyms) for word, synonyms in data.items()}


def _warn_if_world_readable(path: Path, data: Mapping[str, object]) -> None:
    tenants = cast(list[dict[str, object]], data["tenants"])  # validated by parse_config
    inline = [str(tenant["name"]) for tenant in tenants if "api_key" in tenant]
    if inline and path.stat().st_mode & stat.S_IROTH:
        logger.warning(
            "%s is readable by every user and holds an inline api_key (tenants: %s); "
            "restrict it (chmod 600) or use api_key_env",
            path,
            ", ".join(inline),
        )
