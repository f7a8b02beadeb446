"""The README documents every command (and its options), every tool and every exit code."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from opindex import cli
from opindex.mcp.tools import TOOL_NAMES, build_tools

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def subcommand_parsers() -> dict[str, argparse.ArgumentParser]:
    parser, _ = cli.build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("no sub-commands")


def test_every_command_and_option_is_documented() -> None:
    parsers = subcommand_parsers()
    assert set(parsers) == set(cli.COMMANDS)  # every command module is importable
    for name, parser in parsers.items():
        assert re.search(rf"`opindex {name}\b", README), f"opindex {name} is not documented"
        for action in parser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    assert option in README, f"opindex {name} {option} is not documented"


def test_every_tool_and_argument_is_documented() -> None:
    for tool in build_tools():
        row = next((line for line in README.splitlines() if f"| `{tool.name}`" in line), None)
        assert row is not None, f"{tool.name} has no row in the README's tool table"
        for argument in tool.parameters.get("properties", {}):
            assert f"`{argument}`" in row, f"{tool.name}: argument {argument} not documented"
    assert len(TOOL_NAMES) == 11


def test_every_exit_code_is_documented() -> None:
    codes = {value for name, value in vars(cli).items() if name.startswith("EXIT_")}
    for code in codes:
        assert re.search(rf"^\| {code} \|", README, re.MULTILINE), f"exit code {code}"


def test_the_opening_and_quick_start_come_first() -> None:
    assert README.startswith("# opindex\n")
    quick_start = README.index("## Quick start")
    assert README.index("scripts/demo") > quick_start
    assert README.index("scripts/demo") < README.index("## Using opindex from an MCP client")
