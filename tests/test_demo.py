"""``opindex demo``: the tour finds what each step promises; ``--serve`` serves what it prints."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from tests.support.output_lines import OutputLines
from tests.support.processes import subprocess_env

from opindex.cli import main
from opindex.demo import TOUR

READY_LINE = "Press Ctrl-C to stop."


def test_demo_tour_prints_ranked_results_for_every_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exit_code = main(["demo", "--data-dir", str(tmp_path / "demo")])
    output = capsys.readouterr().out
    assert exit_code == 0, output
    assert "sandbox listening on http://127.0.0.1:" in output
    assert "· work packages" in output  # sync progress, one line per phase off a terminal
    assert "full sync ok" in output
    # the admin account sees every page of the sample corpus, past its gaps in ids
    served = re.search(r"serving \d+ work packages, (\d+) wiki pages", output)
    assert served is not None
    assert f"wiki pages +{served.group(1)}/-0" in output, output
    sections = output.split("\n\n")
    for number, step in enumerate(TOUR, start=1):
        heading = f"{number}. {step.title}: “{step.query}”"
        section = next((part for part in sections if heading in part), None)
        assert section is not None, f"step {number} missing:\n{output}"
        assert "answered from the fresh index" in section
        assert "   1. #" in section
        assert f"#{step.expect_id} " in section, section
    flamingo = next(part for part in sections if "“flamingo”" in part)
    assert "matched: comments" in flamingo
    assert "The live path, for comparison" in flamingo
    relaxed = next(part for part in sections if "“kubernetes canary”" in part)
    assert "dropped 'canary' and searched 'kubernetes'" in relaxed
    assert (tmp_path / "demo" / "opindex.toml").is_file()  # --data-dir keeps the demo


@pytest.mark.slow
async def test_demo_serve_prints_a_client_configuration_that_works() -> None:
    process = start_demo("--serve")
    assert process.stdout is not None
    output_lines = OutputLines(process.stdout)
    try:
        output = output_lines.until(lambda line: READY_LINE in line, timeout=180)
        assert "✗" not in output
        configuration = json.loads(
            output.split("(the key is the sandbox's demo key):")[1].split("\n\nor,")[0]
        )
        server = configuration["mcpServers"]["opindex-demo"]
        assert server["type"] == "http"
        async with (
            httpx2.AsyncClient(headers=server["headers"], timeout=60) as http,
            Client(streamable_http_client(server["url"], http_client=http)) as client,
        ):
            answer = await client.call_tool(
                "openproject_search_meetings", {"query": "budget aproval"}
            )
        assert not answer.is_error
        assert answer.structured_content is not None
        assert answer.structured_content["results"][0]["id"] == 501
        process.send_signal(signal.SIGTERM)
        remaining = output_lines.rest(timeout=60)
        assert process.wait(timeout=60) == 0
        assert "MCP server stopped." in remaining
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def start_demo(*args: str) -> subprocess.Popen[str]:
    """``opindex demo ARGS`` in a subprocess with its stdout piped."""
    return subprocess.Popen(
        [sys.executable, "-m", "opindex", "demo", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=subprocess_env(),
    )
