"""``opindex demo`` end to end: sandbox, sync with progress, tour, optionally an MCP server.

Everything the demo prints goes to the stream it is given (the CLI passes stdout).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from opindex.config import Config, load_config
from opindex.demo.sandbox_process import running_sandbox
from opindex.demo.tour import TOUR, StepOutcome, TourStep, run_tour
from opindex.mcp import plural
from opindex.sandbox import sample_corpus_path
from opindex.service import (
    KIND_KEYS,
    KINDS,
    Kind,
    Service,
    SyncProgress,
    TerminalProgress,
    sync_tenant,
)

DEMO_TENANT = "demo"
DEMO_KEY = "key-admin"
"""The sample corpus's administrator key: a key of the local sandbox, not a real secret."""
DEMO_SYNC_INTERVAL_SECONDS = 60


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """``data_dir``: keep the index there (default: a temporary directory, removed at the
    end). ``serve``: after the tour, serve MCP over HTTP on ``host``:``port`` (0: a free
    port) until interrupted. ``corpus``: another corpus file instead of the sample."""

    data_dir: Path | None = None
    serve: bool = False
    host: str = "127.0.0.1"
    port: int = 0
    corpus: Path | None = None


class PhaseLines:
    """Sync progress for a stream that is not a terminal: one line per phase."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def phase(self, tenant: str, phase: str) -> None:
        """Print the phase."""
        print(f"   · {phase}", file=self._out, flush=True)

    def documents(self, kind: Kind, count: int) -> None:
        """Counts are summarized at the end."""

    def done(self) -> None:
        """Nothing to finish."""


def progress_for(out: TextIO) -> SyncProgress:
    """A self-overwriting line on a terminal, else one line per phase."""
    return TerminalProgress(out) if out.isatty() else PhaseLines(out)


@contextlib.contextmanager
def data_directory(requested: Path | None) -> Iterator[Path]:
    """``requested`` (created if needed), or a temporary directory removed afterwards."""
    if requested is not None:
        requested.mkdir(parents=True, exist_ok=True)
        yield requested.absolute()
        return
    directory = Path(tempfile.mkdtemp(prefix="opindex-demo-"))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def write_config(data_dir: Path, base_url: str) -> Path:
    """The demo's ``opindex.toml`` (one tenant on the sandbox) inside ``data_dir``."""
    path = data_dir / "opindex.toml"
    path.write_text(
        'data_dir = "."\n\n[[tenants]]\n'
        f'name = "{DEMO_TENANT}"\nbase_url = "{base_url}"\napi_key = "{DEMO_KEY}"\n'
        f"sync_interval_seconds = {DEMO_SYNC_INTERVAL_SECONDS}\n",
        encoding="utf-8",
    )
    path.chmod(0o600)
    return path


def corpus_summary(corpus: Path) -> str:
    """``184 work packages, 32 wiki pages and 22 meetings`` for a corpus file (kinds it
    has none of are left out; the corpus keys are the kinds' plural keys)."""
    data = json.loads(corpus.read_text(encoding="utf-8"))
    counts = {kind: len(data.get(KIND_KEYS[kind]) or []) for kind in KINDS}
    parts = [plural(count, kind) for kind, count in counts.items() if count]
    return f"{', '.join(parts[:-1])} and {parts[-1]}"


def run_demo(
    options: DemoOptions, out: TextIO, steps: Sequence[TourStep] = TOUR
) -> list[StepOutcome]:
    """Run the whole demo; returns what each tour step found."""
    corpus = options.corpus or sample_corpus_path()
    print("opindex demo\n", file=out)
    print(f"Starting a sandbox OpenProject serving {corpus_summary(corpus)} …", file=out)
    with data_directory(options.data_dir) as data_dir, running_sandbox(corpus) as url:
        print(f"   sandbox listening on {url}", file=out)
        config_path = write_config(data_dir, url)
        config = load_config(config_path)
        return asyncio.run(_demo(config, config_path, options, out, steps))


async def _demo(
    config: Config,
    config_path: Path,
    options: DemoOptions,
    out: TextIO,
    steps: Sequence[TourStep],
) -> list[StepOutcome]:
    tenant = config.tenant(DEMO_TENANT)
    print(f"\nSyncing everything the demo account can see into {config.data_dir} …", file=out)
    out.flush()
    report = await sync_tenant(tenant, config.data_dir, progress=progress_for(out))
    print(f"   {report.summary()}", file=out)
    print("\nA tour: seven searches as an LLM client makes them through the MCP tools.", file=out)
    async with Service.from_config(config) as service:
        outcomes = await run_tour(service, out, steps)
    missed = [outcome.step for outcome in outcomes if not outcome.found_expected]
    for step in missed:
        print(f"\n✗ “{step.query}” did not find record #{step.expect_id}", file=out)
    if not options.serve:
        print("\nRun `opindex demo --serve` to try the tools from your own MCP client.", file=out)
        return outcomes
    await _serve(config, config_path, options, out)
    return outcomes


async def _serve(config: Config, config_path: Path, options: DemoOptions, out: TextIO) -> None:
    from opindex.mcp import ServerOptions, build_server, serve_http

    server = build_server(config, ServerOptions(transport="http"))

    def announce(url: str) -> None:
        print(client_configuration(url, config_path), file=out, flush=True)

    await serve_http(server, options.host, options.port, on_ready=announce)
    print("\nMCP server stopped.", file=out)


def client_configuration(url: str, config_path: Path) -> str:
    """What to paste into an MCP client to use the demo server (HTTP, or stdio)."""
    http = {
        "mcpServers": {
            "opindex-demo": {
                "type": "http",
                "url": url,
                "headers": {"Authorization": f"Bearer {DEMO_KEY}"},
            }
        }
    }
    stdio = {
        "mcpServers": {
            "opindex-demo": {
                "command": str(Path(sys.executable).with_name("opindex")),
                "args": ["serve", "--config", str(config_path)],
            }
        }
    }
    return (
        f"\nServing MCP over streamable HTTP at {url} (the sandbox stays up meanwhile).\n"
        "Paste into your MCP client's configuration (the key is the sandbox's demo key):\n\n"
        f"{json.dumps(http, indent=2)}\n\n"
        "or, to have the client start its own server over stdio:\n\n"
        f"{json.dumps(stdio, indent=2)}\n\n"
        "Press Ctrl-C to stop."
    )
