"""Ids bounded to 1 … 2⁶³−1 and strictly typed at the tool and CLI boundary; answers about
the index never carry a server path or a library's words."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import run_opindex
from tests.support.config_files import write_config
from tests.support.mcp_clients import (
    PortalClient,
    error_text,
    in_process_client,
    result_ids,
    structured,
)
from tests.support.sandbox import MEMBER_KEY, running_sandbox

from opindex import cli
from opindex.config import load_config
from opindex.envelope import MAX_ID
from opindex.sync import sync_tenant

SEARCH = "openproject_search_work_packages"
TOO_BIG = MAX_ID + 1


@pytest.fixture(scope="module")
def site(corpus: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("id-bounds")
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        config_path = write_config(directory, [("acme", sandbox, MEMBER_KEY)])
        config = load_config(config_path)
        asyncio.run(sync_tenant(config.tenant("acme"), config.data_dir))
        yield config_path


@pytest.fixture(scope="module")
def client(site: Path) -> Iterator[PortalClient]:
    with in_process_client(load_config(site), tenant="acme") as connected:
        yield connected


def assert_refused(client: PortalClient, site: Path, tool: str, arguments: dict[str, Any]) -> str:
    result = client.call(tool, arguments)
    message = error_text(result)
    assert "Invalid argument" in message, message
    assert str(site.parent) not in message and "Traceback" not in message
    return message


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("project", TOO_BIG),
        ("type", TOO_BIG),
        ("assignee", TOO_BIG),
        ("status", [TOO_BIG]),
        ("project", 0),
        ("project", True),
        ("project", "5"),
        ("project", 5.0),
        ("status", [True]),
        ("limit", True),
        ("limit", "5"),
        ("fallback", "yes"),
        ("fallback", 1),
    ],
)
def test_out_of_range_or_loosely_typed_values_are_refused(
    client: PortalClient, site: Path, argument: str, value: Any
) -> None:
    for source in ("index", "auto"):
        message = assert_refused(
            client, site, SEARCH, {"query": "x", "source": source, argument: value}
        )
        assert argument in message


@pytest.mark.parametrize("argument", ["project", "type", "assignee"])
def test_the_largest_id_is_accepted_and_answered_from_the_index(
    client: PortalClient, argument: str
) -> None:
    result = client.call(SEARCH, {"query": "", "source": "index", argument: MAX_ID})
    assert not result.is_error, error_text(result)
    assert result_ids(result) == [] and structured(result)["meta"]["source"] == "index"
    status = client.call(SEARCH, {"query": "", "source": "index", "status": [MAX_ID]})
    assert not status.is_error and result_ids(status) == []


@pytest.mark.parametrize(
    "tool", ["openproject_get_work_package", "openproject_get_meeting", "openproject_get_wiki_page"]
)
@pytest.mark.parametrize("value", [TOO_BIG, 0, True, "4", 4.0])
def test_record_ids_are_bounded_and_strict(
    client: PortalClient, site: Path, tool: str, value: Any
) -> None:
    assert "id" in assert_refused(client, site, tool, {"id": value})


def test_activity_listing_ids_are_bounded(client: PortalClient, site: Path) -> None:
    tool = "openproject_list_work_package_activities"
    for value in (TOO_BIG, True, "4"):
        assert_refused(client, site, tool, {"workPackageId": value})


@pytest.mark.parametrize("value", [str(TOO_BIG), "0", "-1", "five"])
def test_the_cli_refuses_ids_out_of_range(site: Path, value: str) -> None:
    result = run_opindex(
        "search", "--config", str(site), "--kind", "work_packages", "--project", value, "x"
    )
    assert result.returncode == cli.EXIT_USAGE, result.stderr
    assert "--project" in result.stderr and "Traceback" not in result.stderr


def test_the_cli_accepts_the_largest_id(site: Path) -> None:
    result = run_opindex(
        "search", "--config", str(site), "--kind", "work_packages", "--source", "index",
        "--project", str(MAX_ID), "--json", "x",
    )  # fmt: skip
    assert result.returncode == cli.EXIT_OK, result.stderr
    assert json.loads(result.stdout)["results"] == []
