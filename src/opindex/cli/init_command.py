"""``opindex init``: write a commented ``opindex.toml`` (mode 600) to start from."""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from pathlib import Path

from opindex.cli.exit_codes import EXIT_OK
from opindex.config import parse_config
from opindex.errors import ConfigError, InvalidArgumentError

TEMPLATE = """\
# opindex configuration. Every key is explained in the README ("Configuration reference").
# Check it with: opindex doctor --config {path}

# Where indexes and state live (default: $OPINDEX_DATA_DIR, $XDG_DATA_HOME/opindex or
# ~/.local/share/opindex). Relative paths are relative to this file.
# data_dir = "data"

[server]                        # used by `opindex serve --transport http`
host = "127.0.0.1"              # loopback only; another address exposes the server
port = 8765
allow_unknown_credentials_live = false   # keys of no tenant are refused

[[tenants]]                     # one table per OpenProject account
name = "{name}"                 # a-z, 0-9, '_' and '-'
base_url = "{base_url}"         # the server root, without /api/v3
api_key_env = "{api_key_env}"   # the environment variable holding the API key
# api_key = "..."               # or the key itself (keep this file chmod 600)
auth = "basic"                  # basic (apikey:<key>, OpenProject's API keys) or bearer
# sync_interval_seconds = 900   # background sync of `opindex serve`
# max_staleness_seconds = 3600  # older than this, searches are answered live
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``opindex init`` and its options."""
    parser = subparsers.add_parser(
        "init",
        help="write a commented opindex.toml (mode 600) to start from",
        description=(
            "Write a commented configuration for one tenant. The API key stays in an "
            "environment variable; the file is readable by its owner only. An existing "
            "file is never overwritten unless --force."
        ),
    )
    parser.add_argument(
        "--path", type=Path, default=Path("opindex.toml"), help="where (default ./opindex.toml)"
    )
    parser.add_argument(
        "--base-url",
        default="https://openproject.example.org",
        help="the OpenProject server root (default: a placeholder to edit)",
    )
    parser.add_argument("--name", default="default", help="the tenant name (default: default)")
    parser.add_argument(
        "--api-key-env",
        default="OPENPROJECT_API_KEY",
        metavar="VARIABLE",
        help="environment variable holding the API key (default: OPENPROJECT_API_KEY)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite an existing file")


def run(args: argparse.Namespace) -> int:
    """Write the file (after checking it parses), say what to do next."""
    path: Path = args.path
    if path.exists() and not args.force:
        raise InvalidArgumentError(f"{path} exists; pass --force to overwrite it")
    text = TEMPLATE.format(
        path=path, name=args.name, base_url=args.base_url.rstrip("/"), api_key_env=args.api_key_env
    )
    _check(text, path, args.api_key_env)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    descriptor = os.open(path, flags, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    path.chmod(0o600)
    print(f"Wrote {path} (mode 600).", file=sys.stdout)
    print(
        f"Next: export {args.api_key_env}=<your OpenProject API key>, edit base_url if "
        f"needed, then run `opindex doctor --config {path}` and `opindex sync --config "
        f"{path}`.",
        file=sys.stdout,
    )
    return EXIT_OK


def _check(text: str, path: Path, api_key_env: str) -> None:
    """Refuse arguments that would write a file opindex cannot read (bad name or URL)."""
    try:
        parse_config(tomllib.loads(text), source=path, env={api_key_env: "placeholder"})
    except (ConfigError, tomllib.TOMLDecodeError) as error:
        raise InvalidArgumentError(f"these settings would not load: {error}") from None
