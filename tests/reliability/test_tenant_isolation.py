"""Tenant isolation and content visibility over streamable HTTP with several tenants.

Two OpenProject instances whose record ids collide (the same ids, different words) and
four tenants: three accounts of instance A (a member, an outsider, an admin) and one of
instance B. Every answer of every tool, for every tenant, must hold only records that
tenant's account can see, with the content of the tenant's own instance — including
answers of get_* tools, listings and relaxed (fallback) searches. Internal comments
reach only the admin. A credential matching no tenant never reaches an index.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult
from tests.support.config_files import write_config
from tests.support.corpora import (
    ADA,
    BOB,
    CAROL,
    INTERNAL_MARKER,
    KIND_TABLES,
    KINDS,
    OTHER_MARKER,
    PROJECT_MARKERS,
    expected_all,
    other_instance_corpus,
    reliability_corpus,
)
from tests.support.mcp_clients import bearer, error_text, http_client, result_text, structured
from tests.support.processes import http_server_process
from tests.support.sandbox import (
    ADMIN_KEY,
    MEMBER_KEY,
    OUTSIDER_KEY,
    SandboxHandle,
    running_sandbox,
)

from opindex.config import load_config
from opindex.index import TenantIndex
from opindex.sync import index_directory, sync_tenant

FOREIGN_KEY = "key-foreign"  # admin of instance B
UNCONFIGURED_KEY = "key-dave"  # a valid account of instance A that no tenant uses
DAVE = 4
SEARCH_TOOLS = {
    "openproject_search_work_packages": "work_package",
    "openproject_search_meetings": "meeting",
    "openproject_search_wiki_pages": "wiki_page",
}
GET_TOOLS = {
    "openproject_get_work_package": "work_package",
    "openproject_get_meeting": "meeting",
    "openproject_get_wiki_page": "wiki_page",
}
QUERIES = [
    *PROJECT_MARKERS.values(),
    OTHER_MARKER,
    INTERNAL_MARKER,
    "",
    "renew certifcate",  # a typo
    f"{PROJECT_MARKERS[1]} zzqqxxunmatched",  # relaxation drops a term
    f"{OTHER_MARKER} zzqqxxunmatched",
]
LIVE_QUERIES = (PROJECT_MARKERS[1], f"{OTHER_MARKER} zzqqxxunmatched")
EXACT_QUERIES = ("Renew", OTHER_MARKER)
HIGHEST_ID = {"work_package": 16, "wiki_page": 8, "meeting": 4}
ALL_KEYS = (MEMBER_KEY, OUTSIDER_KEY, ADMIN_KEY, FOREIGN_KEY, UNCONFIGURED_KEY)
Titles = dict[str, dict[int, str]]


@dataclass(frozen=True)
class Tenant:
    """A configured tenant: its key, what its account sees, and its instance's titles."""

    name: str
    key: str
    visible: dict[str, set[int]]
    titles: Titles


@dataclass
class Site:
    config_path: Path
    tenants: list[Tenant]
    corpus_a: dict[str, Any]
    sandbox_a: SandboxHandle


def _titles(corpus: dict[str, Any]) -> Titles:
    field = {"work_package": "subject", "wiki_page": "title", "meeting": "title"}
    return {
        kind: {record["id"]: record[field[kind]] for record in corpus[KIND_TABLES[kind]]}
        for kind in KINDS
    }


def _instance_a() -> dict[str, Any]:
    corpus = reliability_corpus()
    corpus["users"].append({"id": DAVE, "login": "dave", "name": "Dave", "admin": False})
    corpus["api_keys"][UNCONFIGURED_KEY] = DAVE
    corpus["projects"][0]["members"].append(DAVE)
    return corpus


def _instance_b() -> dict[str, Any]:
    corpus = other_instance_corpus()
    corpus["api_keys"] = {FOREIGN_KEY: 1}
    return corpus


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    directory = tmp_path_factory.mktemp("isolation")
    corpus_a, corpus_b = _instance_a(), _instance_b()
    with (
        running_sandbox(corpus_a, wiki_list=True) as sandbox_a,
        running_sandbox(corpus_b, wiki_list=True) as sandbox_b,
    ):
        config_path = write_config(
            directory,
            [
                ("acme", sandbox_a, MEMBER_KEY),
                ("beta", sandbox_a, OUTSIDER_KEY),
                ("boss", sandbox_a, ADMIN_KEY),
                ("other", sandbox_b, FOREIGN_KEY),
            ],
        )
        config = load_config(config_path)
        for tenant in config.tenants:
            asyncio.run(sync_tenant(tenant, config.data_dir))
        titles_a, titles_b = _titles(corpus_a), _titles(corpus_b)
        tenants = [
            Tenant("acme", MEMBER_KEY, expected_all(corpus_a, BOB), titles_a),
            Tenant("beta", OUTSIDER_KEY, expected_all(corpus_a, CAROL), titles_a),
            Tenant("boss", ADMIN_KEY, expected_all(corpus_a, ADA), titles_a),
            Tenant("other", FOREIGN_KEY, expected_all(corpus_b, ADA), titles_b),
        ]
        yield Site(config_path, tenants, corpus_a, sandbox_a)


@pytest.fixture(scope="module")
def url(site: Site) -> Iterator[str]:
    with http_server_process(site.config_path, "--no-sync") as endpoint:
        yield endpoint


def _assert_own(tenant: Tenant, kind: str, items: list[dict[str, Any]], where: str) -> None:
    for item in items:
        record_id = int(item["id"])
        assert record_id in tenant.visible[kind], f"{tenant.name}: {where} leaked {kind} {item}"
        assert item["title"] == tenant.titles[kind][record_id], f"{tenant.name}: {where} {item}"


def _assert_no_secret(result: CallToolResult, *keys: str) -> None:
    text = result_text(result) + repr(result.structured_content)
    for key in keys:
        assert key not in text


async def _sweep_tenant(client: Client, tenant: Tenant) -> dict[str, set[int]]:
    """Every tool with many arguments; returns the ids each kind's answers held."""
    seen: dict[str, set[int]] = {kind: set() for kind in KINDS}
    relaxed = 0
    for tool, kind in SEARCH_TOOLS.items():
        variants = [(query, "index", "fuzzy") for query in QUERIES]
        variants += [(query, "live", "fuzzy") for query in LIVE_QUERIES]
        variants += [(query, "index", "exact") for query in EXACT_QUERIES]
        for query, source, mode in variants:
            arguments = {"query": query, "source": source, "matchMode": mode, "limit": 100}
            result = await client.call_tool(tool, arguments)
            data = structured(result)
            assert data["meta"]["tenant"] == tenant.name
            _assert_own(tenant, kind, data["results"], f"{tool}{arguments}")
            _assert_no_secret(result, *ALL_KEYS)
            seen[kind] |= {int(item["id"]) for item in data["results"]}
            relaxed += data["meta"].get("fallbackStrategy") is not None
    assert relaxed, f"{tenant.name}: no query exercised relaxation"
    listing = await client.call_tool(
        "openproject_list_work_packages", {"status": "all", "limit": 100}
    )
    _assert_own(tenant, "work_package", structured(listing)["results"], "listing")
    for tool, kind in GET_TOOLS.items():
        for record_id in range(1, HIGHEST_ID[kind] + 2):
            result = await client.call_tool(tool, {"id": record_id})
            if record_id in tenant.visible[kind]:
                record = structured(result)["record"]
                _assert_own(tenant, kind, [record], f"{tool}({record_id})")
            else:
                assert "Not found" in error_text(result)
            _assert_no_secret(result, *ALL_KEYS)
    status = structured(await client.call_tool("openproject_index_status", {}))
    assert [entry["tenant"] for entry in status["tenants"]] == [tenant.name]
    return seen


@pytest.mark.slow
async def test_no_tool_ever_returns_a_record_of_another_tenant(url: str, site: Site) -> None:
    for number, tenant in enumerate(site.tenants):
        # Both header forms select the tenant.
        header = bearer(tenant.key) if number % 2 else {"X-OpenProject-Api-Key": tenant.key}
        async with http_client(url, header) as client:
            seen = await _sweep_tenant(client, tenant)
        # The sweep found the tenant's records (so the emptiness of leaks means something).
        assert seen["work_package"] == tenant.visible["work_package"]


async def test_visibility_of_projects_and_internal_comments(url: str, site: Site) -> None:
    """Nothing from projects the account cannot see; internal comments only for admins."""
    by_name = {tenant.name: tenant for tenant in site.tenants}
    internal_wps = {wp["id"] for wp in site.corpus_a["work_packages"] if wp["id"] % 3 == 0}
    for name, hidden_projects in (("acme", (4,)), ("beta", (2, 4)), ("boss", ())):
        tenant = by_name[name]
        async with http_client(url, bearer(tenant.key)) as client:
            for project in hidden_projects:
                for tool in SEARCH_TOOLS:
                    for source in ("index", "live"):
                        query = {"query": PROJECT_MARKERS[project], "source": source}
                        result = structured(await client.call_tool(tool, query))
                        assert result["results"] == [], (name, tool, source)
            internal = {
                int(item["id"])
                for source in ("index", "live")
                for item in structured(
                    await client.call_tool(
                        "openproject_search_work_packages",
                        {"query": INTERNAL_MARKER, "source": source, "limit": 100},
                    )
                )["results"]
            }
            admin = name == "boss"
            assert internal == (internal_wps & tenant.visible["work_package"] if admin else set())
            wp_id = min(internal_wps & tenant.visible["work_package"])
            activities = await client.call_tool(
                "openproject_list_work_package_activities", {"workPackageId": wp_id}
            )
            read = await client.call_tool("openproject_get_work_package", {"id": wp_id})
            shows_internal = INTERNAL_MARKER in result_text(activities)
            assert shows_internal == (name == "boss"), name
            assert (INTERNAL_MARKER in repr(structured(read))) == (name == "boss"), name
        with TenantIndex(index_directory(load_config(site.config_path).data_dir, name)) as index:
            vocabulary = index.vocabulary()
            for project in hidden_projects:
                assert vocabulary.find(PROJECT_MARKERS[project]) == [], (name, project)
            assert (vocabulary.find(INTERNAL_MARKER) != []) == (name == "boss"), name


async def test_a_credential_matching_no_tenant_never_reaches_an_index(
    url: str, site: Site, tmp_path: Path
) -> None:
    for header in (bearer(UNCONFIGURED_KEY), bearer("key-nobody"), {}):
        async with http_client(url, header) as client:
            for tool in [*SEARCH_TOOLS, *GET_TOOLS, "openproject_index_status"]:
                arguments = {"id": 4} if tool in GET_TOOLS else {}
                result = await client.call_tool(tool, arguments)
                message = error_text(result)
                assert "key" in message.lower() and UNCONFIGURED_KEY not in message

    # Allowed to search live with its own key, it still never reads an index.
    live_config = write_config(
        tmp_path,
        [("acme", site.sandbox_a, MEMBER_KEY), ("beta", site.sandbox_a, OUTSIDER_KEY)],
        data_dir=str(load_config(site.config_path).data_dir),
        server={"allow_unknown_credentials_live": True},
    )
    dave_sees = expected_all(site.corpus_a, DAVE)
    titles = site.tenants[0].titles
    dave = Tenant("(caller credential)", UNCONFIGURED_KEY, dave_sees, titles)
    with http_server_process(live_config, "--no-sync") as endpoint:
        async with http_client(endpoint, bearer(UNCONFIGURED_KEY)) as client:
            for tool, kind in SEARCH_TOOLS.items():
                for query in (PROJECT_MARKERS[1], PROJECT_MARKERS[2], "certificate", ""):
                    data = structured(await client.call_tool(tool, {"query": query}))
                    assert data["meta"]["source"] == "live"
                    assert data["meta"]["tenant"] == "(caller credential)"
                    _assert_own(dave, kind, data["results"], f"{tool}({query})")
                refused = await client.call_tool(tool, {"query": "x", "source": "index"})
                assert "live" in error_text(refused)
            for tool in [*GET_TOOLS, "openproject_index_status"]:
                arguments = {"id": 4} if tool in GET_TOOLS else {}
                assert "matches no tenant" in error_text(await client.call_tool(tool, arguments))
