"""Start-up cost: what `opindex --help`, `opindex search` and the MCP server modules import.

Checked in a fresh interpreter through ``sys.modules`` (what was imported), not timed:
``scripts/bench_cold_start.py`` measures the seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from tests.support.module_probe import imported_by as probe

from opindex import cli


def imported_by(argv: list[str]) -> tuple[str, set[str]]:
    """What the command printed and every module it imported, in a fresh interpreter."""
    run = probe(argv)
    return run.printed, run.modules


def top_level(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_help_lists_every_command_without_importing_tantivy_mcp_or_httpx() -> None:
    printed, modules = imported_by(["--help"])
    for name, help_text in cli.COMMAND_HELP.items():
        assert name in printed and help_text.split()[0] in printed
    assert not top_level(modules) & {"tantivy", "mcp", "httpx", "pydantic", "rapidfuzz"}
    assert not set(modules) & set(cli.COMMANDS.values())  # no command module


def test_search_help_does_not_import_the_mcp_sdk_the_syncer_or_an_http_client() -> None:
    printed, modules = imported_by(["search", "--help"])
    assert "--kind" in printed
    assert "opindex.cli.search_command" in modules and "opindex.service" in modules
    assert not top_level(modules) & {"mcp", "apscheduler", "uvicorn", "starlette", "httpx"}
    assert "opindex.openproject" not in modules  # DECISIONS D159
    assert "opindex.sync.runner" not in modules
    assert "opindex.cli.sync_command" not in modules


def test_usage_errors_still_name_the_commands() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "opindex", "serach"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2
    assert "invalid choice: 'serach'" in done.stderr
    assert "'search'" in done.stderr


def test_declared_help_is_what_each_command_module_registers() -> None:
    parser, modules = cli.build_parser()
    assert set(modules) == set(cli.COMMANDS)
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    registered = {action.dest: action.help for action in subparsers._choices_actions}
    assert registered == cli.COMMAND_HELP


SERVER_PROBE = """
import json, sys
from opindex.mcp import ServerOptions, build_server, serve_http, serve_stdio
print("MODULES " + json.dumps(sorted(sys.modules)))
"""


def test_a_server_without_sync_or_webhooks_does_not_import_the_syncer() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SERVER_PROBE],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    modules = set(json.loads(done.stdout.rpartition("MODULES ")[2]))
    assert "opindex.mcp.server" in modules and "opindex.mcp.serving" in modules
    assert not top_level(modules) & {"apscheduler", "pypdfium2"}
    syncer = {"opindex.daemon", "opindex.webhooks", "opindex.sync.runner", "opindex.extract"}
    assert not modules & syncer


FREEZE_PROBE = """
import gc, sys
from opindex.cli import main
sys.argv = ["opindex", "search", "--config", {config!r}, "--kind", "all", "budget"]
code = main({argv})
print("FROZEN", code, gc.get_freeze_count())
"""


def test_the_program_freezes_the_collector_before_it_exits_and_a_caller_keeps_it(
    tmp_path: Path,
) -> None:
    missing = str(tmp_path / "absent.toml")  # a usage error: the command returns its code
    counts = {}
    for argv in ("None", repr(["search", "--config", missing, "--kind", "all", "x"])):
        done = subprocess.run(
            [sys.executable, "-c", FREEZE_PROBE.format(config=missing, argv=argv)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        code, frozen = done.stdout.rsplit("FROZEN", 1)[1].split()
        assert int(code) != 0, done.stderr
        counts[argv == "None"] = int(frozen)
    assert counts[True] > 0  # the console script: nothing collected at exit
    assert counts[False] == 0  # a caller (the tests) keeps its collector as it was
