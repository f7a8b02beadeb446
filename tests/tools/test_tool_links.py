"""Relations and attachment names of a work package, read live at ``detail: full``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from mcp import Client
from tests.support.config_files import write_config
from tests.support.corpus_builder import ADMIN_KEY, OUTSIDER_KEY, CorpusBuilder
from tests.support.sandbox import SandboxHandle, running_sandbox
from tests.tools.conftest import structured, text_of

from opindex.config import Config, load_config
from opindex.envelope import ReadMeta, RecordOut, RecordResponse
from opindex.mcp.server import ServerOptions, build_server
from opindex.openproject import OpenProjectClient
from opindex.openproject.retry import RetryPolicy
from opindex.service.work_package_links import with_links
from opindex.sync import sync_tenant

GET = "openproject_get_work_package"


def _corpus() -> dict[str, object]:
    builder = CorpusBuilder()
    builder.add_work_package(
        11,
        subject="Checkout page slow",
        relations=[{"id": 501, "type": "blocks", "to": 12}, {"id": 502, "to": 13}],
        attachments=[{"id": 601, "fileName": "profile.json", "fileSize": 2048}],
    )
    builder.add_work_package(12, subject="Release 2.4")
    builder.add_work_package(13, subject="Payment form", project=2)  # hidden from carol
    builder.add_work_package(
        14, subject="Hotfix", relations=[{"id": 503, "type": "precedes", "to": 11}]
    )
    return builder.build()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SandboxHandle, Config]]:
    with running_sandbox(_corpus()) as sandbox:
        directory = tmp_path_factory.mktemp("links")
        keys = {"ada": ADMIN_KEY, "carol": OUTSIDER_KEY}
        config = load_config(
            write_config(directory, [(n, sandbox.base_url, k) for n, k in keys.items()])
        )
        for tenant in config.tenants:
            asyncio.run(sync_tenant(tenant, config.data_dir))
        yield sandbox, config


async def _get(config: Config, tenant: str, **arguments: object) -> tuple[dict[str, object], str]:
    options = ServerOptions(transport="stdio", tenant=tenant, sync=False)
    async with Client(build_server(config, options)) as client:
        result = await client.call_tool(GET, {"id": 11, **arguments})
    return structured(result), text_of(result)


async def test_detail_full_lists_relations_and_attachments(
    site: tuple[SandboxHandle, Config],
) -> None:
    _, config = site
    content, text = await _get(config, "ada", detail="full")
    record = content["record"]
    assert record["relations"] == [  # type: ignore[index]
        {"type": "blocks", "id": 12, "title": "Release 2.4"},
        {"type": "relates", "id": 13, "title": "Payment form"},
        {"type": "follows", "id": 14, "title": "Hotfix"},  # seen from the other end
    ]
    assert record["attachments"] == ["profile.json"]  # type: ignore[index]
    assert "relation: blocks #12 Release 2.4" in text
    assert "attachments: profile.json" in text


async def test_relations_to_records_the_account_cannot_see_are_left_out(
    site: tuple[SandboxHandle, Config],
) -> None:
    _, config = site
    content, _ = await _get(config, "carol", detail="full")
    ids = [relation["id"] for relation in content["record"]["relations"]]  # type: ignore[index]
    assert ids == [12, 14]


async def test_brief_reads_nothing_live_from_a_fresh_index(
    site: tuple[SandboxHandle, Config],
) -> None:
    sandbox, config = site
    sandbox.reset_stats()
    content, _ = await _get(config, "ada")
    assert "relations" not in content["record"]  # type: ignore[operator]
    assert content["meta"]["source"] == "index"  # type: ignore[index]
    assert sandbox.stats()["requests"] == 0


async def test_an_unreachable_server_leaves_the_record_with_a_note() -> None:
    response = RecordResponse(
        record=RecordOut(id=11, kind="work_package", title="x"),
        meta=ReadMeta(tenant="t", source="index", index_state="fresh"),
    )
    client = OpenProjectClient("http://127.0.0.1:9", "key", retry=RetryPolicy(max_attempts=1))
    async with client:
        answered = await with_links(client, response)
    assert answered.relations is None
    assert "relations and attachments could not be read" in answered.meta.notes[0]
