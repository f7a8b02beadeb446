"""Freshness routing through the real Service: synced index, sandbox, injected clock."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from tests.support.clock import Clock
from tests.support.recall_corpus import RECALL_KEY, recall_corpus
from tests.support.synced_tenant import SyncedTenant, synced_tenant

from opindex.envelope import SearchRequest
from opindex.errors import (
    AuthenticationError,
    IndexUnavailableError,
    InvalidArgumentError,
    ServerError,
)
from opindex.service import CALLER_TENANT, Service

KUBERNETES = SearchRequest(kind="work_package", query="kubernet upgrade")


@pytest.fixture(scope="module")
def tenant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncedTenant]:
    with synced_tenant(tmp_path_factory.mktemp("routing"), recall_corpus(), RECALL_KEY) as t:
        yield t


@pytest.fixture(autouse=True)
def _clean_sandbox(tenant: SyncedTenant) -> Iterator[None]:
    tenant.sandbox.clear_faults()
    tenant.sandbox.reset_stats()
    yield
    tenant.sandbox.clear_faults()


def _requests(tenant: SyncedTenant) -> int:
    return int(tenant.sandbox.stats()["requests"])


async def test_fresh_index_answers_without_api_calls(tenant: SyncedTenant, clock: Clock) -> None:
    async with Service.from_config(tenant.config, clock=clock) as service:
        response = await service.search(KUBERNETES)
    assert response.meta.source == "index"
    assert response.meta.index_state == "fresh"
    assert response.meta.indexed_at is not None
    assert response.meta.age_seconds is not None and response.meta.age_seconds < 600
    assert [r.id for r in response.results][:1] == [12]
    assert _requests(tenant) == 0


async def test_stale_index_sends_the_search_live(tenant: SyncedTenant, clock: Clock) -> None:
    clock.offset = timedelta(hours=2)  # max_staleness_seconds defaults to one hour
    async with Service.from_config(tenant.config, clock=clock) as service:
        response = await service.search(KUBERNETES)
    assert response.meta.source == "live"
    assert response.meta.index_state == "stale"
    assert response.meta.age_seconds is not None and response.meta.age_seconds >= 7200
    assert response.results[0].id == 12
    assert _requests(tenant) > 0


async def test_openproject_down_and_stale_index_answers_stale(
    tenant: SyncedTenant, clock: Clock
) -> None:
    clock.offset = timedelta(hours=2)
    tenant.sandbox.fault("/api/v3", status=500, count=100)
    async with Service.from_config(tenant.config, clock=clock) as service:
        response = await service.search(KUBERNETES)
    assert response.meta.source == "index"
    assert response.meta.index_state == "stale"
    assert response.results[0].id == 12
    assert any("stale index" in note for note in response.meta.notes)


async def test_openproject_down_without_index_is_an_error(
    tenant: SyncedTenant, clock: Clock, tmp_path: Path
) -> None:
    unsynced = replace(tenant.config, data_dir=tmp_path / "empty")
    tenant.sandbox.fault("/api/v3", status=500, count=100)
    async with Service.from_config(unsynced, clock=clock) as service:
        with pytest.raises(ServerError):
            await service.search(KUBERNETES)


async def test_missing_index_sends_the_search_live(
    tenant: SyncedTenant, clock: Clock, tmp_path: Path
) -> None:
    unsynced = replace(tenant.config, data_dir=tmp_path / "empty")
    async with Service.from_config(unsynced, clock=clock) as service:
        response = await service.search(KUBERNETES)
        assert response.meta.source == "live"
        assert response.meta.index_state == "missing"
        assert response.meta.indexed_at is None
        assert response.results[0].id == 12
        with pytest.raises(IndexUnavailableError, match="no index"):
            await service.search(KUBERNETES.model_copy(update={"source": "index"}))
    assert not (tmp_path / "empty").exists()  # searching never creates tenant directories


async def test_source_overrides_the_policy(tenant: SyncedTenant, clock: Clock) -> None:
    async with Service.from_config(tenant.config, clock=clock) as service:
        live = await service.search(KUBERNETES.model_copy(update={"source": "live"}))
        assert (live.meta.source, live.meta.index_state) == ("live", "fresh")
        clock.offset = timedelta(days=3)
        forced = await service.search(KUBERNETES.model_copy(update={"source": "index"}))
        assert (forced.meta.source, forced.meta.index_state) == ("index", "stale")


async def test_relaxation_runs_on_the_live_path_too(tenant: SyncedTenant, clock: Clock) -> None:
    request = SearchRequest(
        kind="work_package", query="kubernetes quantum sockets nonexistent", source="live"
    )
    async with Service.from_config(tenant.config, clock=clock) as service:
        relaxed = await service.search(request)
        strict = await service.search(request.model_copy(update={"fallback": False}))
    assert relaxed.meta.source == "live"
    assert relaxed.meta.fallback_strategy == "drop_term"
    assert relaxed.meta.wildcard_fallback is True  # the seed: true whenever a fallback fired
    assert relaxed.results[0].id == 12
    assert strict.results == []
    assert strict.meta.wildcard_fallback is False


async def test_tenants_and_credentials(tenant: SyncedTenant, clock: Clock) -> None:
    async with Service.from_config(tenant.config, clock=clock) as service:
        assert service.tenant_for_credential(RECALL_KEY) == "acme"
        assert service.tenant_for_credential("key-unknown") is None
        assert service.resolve_tenant(None) == "acme"
        with pytest.raises(InvalidArgumentError, match="unknown tenant"):
            await service.search(KUBERNETES, tenant="other")
        with pytest.raises(AuthenticationError, match="allow_unknown_credentials_live"):
            await service.search_with_credential(KUBERNETES, "key-ada")


async def test_caller_credential_searches_live_only(tenant: SyncedTenant, clock: Clock) -> None:
    server = replace(tenant.config.server, allow_unknown_credentials_live=True)
    config = replace(tenant.config, server=server)
    async with Service.from_config(config, clock=clock) as service:
        response = await service.search_with_credential(KUBERNETES, "key-ada")
        assert response.meta.source == "live"
        assert response.meta.tenant == CALLER_TENANT
        assert response.meta.index_state == "missing"
        assert response.results[0].id == 12
        assert _requests(tenant) > 0
        with pytest.raises(InvalidArgumentError, match="live only"):
            await service.search_with_credential(
                KUBERNETES.model_copy(update={"source": "index"}), "key-ada"
            )
        with pytest.raises(AuthenticationError):
            await service.search_with_credential(KUBERNETES, "key-wrong")


async def test_reads(tenant: SyncedTenant, clock: Clock) -> None:
    async with Service.from_config(tenant.config, clock=clock) as service:
        record = await service.get_record(None, "work_package", 13)
        assert record.meta.source == "index"
        assert record.record.title == "Billing export"
        assert [v.ref for v in record.record.fields["comments"]] == [9001, 9002]
        assert _requests(tenant) == 0

        activities = await service.list_activities(None, 13, "rounding invoice")
        assert activities.ranked is True
        assert [a.id for a in activities.results] == [9002]
        assert activities.results[0].snippet is not None

        listing = await service.list_work_packages(None, subject="office", status="all")
        assert {r.id for r in listing.results} == {14, 17}
        open_only = await service.list_work_packages(None, subject="office")
        assert [r.id for r in open_only.results] == [17]

        clock.offset = timedelta(hours=2)
        live = await service.get_record(None, "meeting", 31)
        assert live.meta.source == "live"
        assert [v.text for v in live.record.fields["agenda_title"]] == ["Approval of Q3 budget"]

        [status] = service.status()
        assert status.tenant == "acme"
        assert status.freshness == "stale"
        assert status.documents["work_packages"] == 8
