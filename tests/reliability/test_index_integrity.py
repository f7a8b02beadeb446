"""Silent index damage: same-length garbage inside a generation's files is found by its
checksums before Tantivy reads it, reported with the file and the repair, answered live,
and repaired by the next plain sync (a new generation), with no backtrace anywhere."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import (
    assert_exactly_once,
    index_snapshot,
    run_opindex,
)
from tests.support.config_files import write_config
from tests.support.corpora import BOB, PROJECT_MARKERS, expected_all
from tests.support.mcp_clients import (
    bearer,
    http_client,
    in_process_client,
    result_ids,
    result_text,
    structured,
)
from tests.support.processes import http_server_process
from tests.support.sandbox import MEMBER_KEY, SandboxHandle, running_sandbox

from opindex import cli
from opindex.config import Config, load_config
from opindex.index import checksums
from opindex.state import StateStore, state_db_path
from opindex.sync import index_directory, sync_tenant
from opindex.sync.verification import Pacer, verify_live_generation

MARKER = PROJECT_MARKERS[1]
SEARCH = "openproject_search_work_packages"
SEGMENT_KINDS = (".store", ".idx", ".term", ".pos", ".fast", ".fieldnorm")


@dataclass
class Site:
    sandbox: SandboxHandle
    corpus: dict[str, Any]
    config_path: Path

    @property
    def config(self) -> Config:
        return load_config(self.config_path)

    @property
    def data_dir(self) -> Path:
        return self.config_path.parent / "data"

    def live(self) -> Path:
        directory = index_directory(self.data_dir, "acme")
        name = directory.current()
        assert name is not None
        return directory.root / name

    def marker_ids(self) -> set[int]:
        return {i for i in expected_all(self.corpus, BOB)["work_package"] if i % 4 == 0}


@pytest.fixture(scope="module")
def template(corpus: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    directory = tmp_path_factory.mktemp("integrity-template")
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        config_path = write_config(directory, [("acme", sandbox, MEMBER_KEY)])
        config = load_config(config_path)
        asyncio.run(sync_tenant(config.tenant("acme"), config.data_dir))
        yield Site(sandbox, corpus, config_path)


@pytest.fixture
def site(template: Site, tmp_path: Path) -> Site:
    copy = tmp_path / "site"
    shutil.copytree(template.config_path.parent, copy)
    return Site(template.sandbox, template.corpus, copy / template.config_path.name)


def garble(path: Path) -> None:
    """Same-length garbage in the middle of the file (its header and footer intact)."""
    data = bytearray(path.read_bytes())
    start, end = len(data) // 8, max(len(data) // 2, len(data) // 8 + 1)
    for position in range(start, min(end, len(data))):
        data[position] ^= 0xA5
    path.write_bytes(bytes(data))


def garble_kind(site: Site, suffix: str) -> list[str]:
    files = sorted(f for f in site.live().iterdir() if f.suffix == suffix and f.stat().st_size)
    assert files, suffix
    for file in files:
        garble(file)
    return [file.name for file in files]


def assert_no_backtrace(stderr: str) -> None:
    assert "Traceback" not in stderr and "panicked" not in stderr, stderr
    assert "stack backtrace" not in stderr, stderr


@pytest.mark.parametrize("suffix", SEGMENT_KINDS)
def test_garbage_in_a_segment_file_is_found_reported_and_rebuilt_by_the_next_sync(
    site: Site, suffix: str
) -> None:
    damaged = garble_kind(site, suffix)
    config = str(site.config_path)

    status = run_opindex("status", "--config", config, "--json")
    assert status.returncode == cli.EXIT_OK
    assert_no_backtrace(status.stderr)
    (acme,) = json.loads(status.stdout)["tenants"]
    assert acme["state"] == "damaged"  # not "missing": an index is there, unreadable
    (problem,) = acme["problems"]
    assert "damaged" in problem and "opindex rebuild" in problem and "next sync" in problem
    assert any(name in problem for name in damaged), problem

    search = run_opindex(
        "search", "--config", config, "--kind", "work_packages", "--source", "index", MARKER
    )
    assert search.returncode == cli.EXIT_LOCAL_STORAGE
    assert "damaged" in search.stderr
    assert_no_backtrace(search.stderr)

    with in_process_client(site.config, tenant="acme") as client:
        auto = client.call(SEARCH, {"query": MARKER})
        assert set(result_ids(auto)) == site.marker_ids()
        meta = structured(auto)["meta"]
        assert meta["source"] == "live"
        notes = meta.get("notes", [])
        assert any("damaged" in note and "next sync" in note for note in notes), meta
        report = structured(client.call("openproject_index_status", {}))["tenants"][0]
        (public,) = report["problems"]
        assert "damaged" in public and any(name in public for name in damaged), public
        assert str(site.data_dir) not in json.dumps(report) and "/" + damaged[0] not in public

    generation = site.live().name
    sync = run_opindex("sync", "--config", config)  # a plain sync, not a rebuild
    assert sync.returncode == cli.EXIT_OK, sync.stderr
    assert_no_backtrace(sync.stderr)
    assert site.live().name != generation  # a new generation, not written onto the damage
    assert not (site.live().parent / generation).exists()

    after = run_opindex("status", "--config", config, "--json", "--verify")
    (acme,) = json.loads(after.stdout)["tenants"]
    assert acme["state"] == "fresh" and acme["problems"] == [], acme
    assert any("match the checksums" in line for line in acme["verified"]), acme
    assert_exactly_once(index_snapshot(site.data_dir), expected_all(site.corpus, BOB))
    with in_process_client(site.config, tenant="acme") as client:
        result = client.call(SEARCH, {"query": MARKER, "source": "index"})
        assert set(result_ids(result)) == site.marker_ids()


def test_damage_found_later_by_the_background_check_is_recorded_for_every_reader(
    site: Site,
) -> None:
    with in_process_client(site.config, tenant="acme") as client:
        before = client.call(SEARCH, {"query": MARKER, "source": "index"})
        assert set(result_ids(before)) == site.marker_ids()  # the generation is open

        garble_kind(site, ".store")  # under the open reader, after its check
        slept: list[float] = []
        damage = verify_live_generation(
            site.data_dir, "acme", pace=Pacer(1 << 30, sleep=slept.append)
        )
        assert damage is not None and damage.file is not None
        assert damage.file.endswith(".store")
        assert (site.live() / checksums.DAMAGE_FILE).is_file()

        auto = client.call(SEARCH, {"query": MARKER})  # the open reader stops using it
        meta = structured(auto)["meta"]
        assert meta["source"] == "live" and set(result_ids(auto)) == site.marker_ids()
        assert any("damaged" in note for note in meta.get("notes", [])), meta

    sync = run_opindex("sync", "--config", str(site.config_path), "--quiet")
    assert sync.returncode == cli.EXIT_OK, sync.stderr
    assert_exactly_once(index_snapshot(site.data_dir), expected_all(site.corpus, BOB))
    assert verify_live_generation(site.data_dir, "acme") is None


def test_damage_in_an_analysis_segment_is_found_by_the_background_check_and_status(
    site: Site,
) -> None:
    # A segment a reader mapped (and checked) at open, damaged afterwards: only a re-read
    # finds it, and both re-reads read the segments too.
    segments = sorted((site.live() / "analysis").glob("work_package-*.bin"))
    assert segments
    garble(segments[0])
    damage = verify_live_generation(site.data_dir, "acme")
    assert damage is not None and damage.file == f"analysis/{segments[0].name}"
    assert damage.reason == "does not match the checksum in its manifest"
    assert (site.live() / checksums.DAMAGE_FILE).is_file()
    status = run_opindex("status", "--config", str(site.config_path), "--json", "--verify")
    (acme,) = json.loads(status.stdout)["tenants"]
    assert any(segments[0].name in problem for problem in acme["problems"]), acme


def test_a_sound_index_passes_the_verification(site: Site) -> None:
    status = run_opindex("status", "--config", str(site.config_path), "--verify")
    assert status.returncode == cli.EXIT_OK
    assert "verified: index generation" in status.stdout
    assert "verified: state database" in status.stdout and "problem" not in status.stdout
    assert verify_live_generation(site.data_dir, "acme") is None


def test_the_pacer_keeps_the_reading_rate_bounded() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    pacer = Pacer(1000, clock=lambda: now[0], sleep=sleep)
    pacer(500)  # half a second's worth at once: wait for it
    assert slept == [0.5]
    now[0] += 2.0  # the next read came late: no wait
    pacer(1000)
    assert slept == [0.5]
    pacer(3000)  # 4500 bytes after 2.5 s at 1000/s: 2 s ahead
    assert slept == [0.5, pytest.approx(2.0)]
    with pytest.raises(ValueError):
        Pacer(0)


async def test_a_server_whose_index_is_damaged_under_it_answers_live_without_backtraces(
    site: Site,
) -> None:
    """The damage appears while `opindex serve` has the generation open (already checked):
    whatever Tantivy does with it, every answer holds exactly the right records, no
    backtrace (Rust or Python) reaches the server's stderr, and the damage is recorded."""
    stderr_path = site.config_path.parent / "serve-stderr.txt"
    with http_server_process(site.config_path, "--no-sync", stderr_path=stderr_path) as url:
        async with http_client(url, bearer(MEMBER_KEY)) as client:
            first = await client.call_tool(SEARCH, {"query": MARKER, "source": "index"})
            assert set(result_ids(first)) == site.marker_ids()  # the generation is open
            for suffix in (".idx", ".term", ".store"):
                garble_kind(site, suffix)
            # Fuzzy queries are ranked by the analysis store (intact here) and read only
            # the returned records from Tantivy; whatever they read, the answer is right.
            for query, mode in ((MARKER, "fuzzy"), ("", "fuzzy"), ("budget", "exact")):
                result = await client.call_tool(SEARCH, {"query": query, "matchMode": mode})
                assert not result.is_error, result_text(result)
                if query == MARKER:
                    assert set(result_ids(result)) == site.marker_ids()
            # Damage no search read is found by verification (the daemon's hourly pass, or
            # `opindex status --verify`), which records it for every process.
            verified = run_opindex("status", "--config", str(site.config_path), "--verify")
            assert_no_backtrace(verified.stderr)
            status = await client.call_tool("openproject_index_status", {})
            after = await client.call_tool(SEARCH, {"query": MARKER})
    problems = structured(status)["tenants"][0]["problems"]
    assert any("damaged" in problem for problem in problems), problems
    assert set(result_ids(after)) == site.marker_ids()  # answered live, still right
    assert any("damaged" in note for note in structured(after)["meta"].get("notes", []))
    assert (site.live() / checksums.DAMAGE_FILE).is_file()
    stderr = stderr_path.read_text(encoding="utf-8")
    assert "stack backtrace" not in stderr and "Traceback" not in stderr, stderr


def answers_of_every_tool(client: Any) -> str:
    """The text and structured content of a call to each tool that reads the index."""
    calls = [
        (SEARCH, {"query": MARKER}),
        (SEARCH, {"query": MARKER, "source": "index"}),
        ("openproject_search_meetings", {"query": "weekly", "source": "index"}),
        ("openproject_get_work_package", {"id": 4}),
        ("openproject_index_status", {}),
    ]
    shown = []
    for name, arguments in calls:
        result = client.call(name, arguments)
        shown.append(result_text(result))
        if result.structured_content is not None:
            shown.append(json.dumps(result.structured_content))
    return "\n".join(shown)


def damage_state_pages(site: Site) -> None:
    database = state_db_path(site.data_dir, "acme")
    data = bytearray(database.read_bytes())
    for position in range(4096 + 16, len(data)):
        data[position] = (position * 7 + 13) % 256
    database.write_bytes(bytes(data))


def record_a_storage_failure(site: Site) -> None:
    with StateStore.for_tenant(site.data_dir, "acme") as state:
        run = state.start_run("incremental")
        state.fail_run(
            run.id,
            f"IndexUnavailableError: index at {site.data_dir}/acme/index/g000001: cannot "
            "commit: An IO error occurred: 'No space left on device (os error 28)'",
        )


@pytest.mark.parametrize(
    "damage",
    [lambda site: garble_kind(site, ".idx"), damage_state_pages, record_a_storage_failure],
    ids=["segment garbage", "state database pages", "stored storage error"],
)
def test_no_answer_carries_a_server_path_or_a_library_message(
    site: Site, damage: Callable[[Site], object]
) -> None:
    damage(site)
    with in_process_client(site.config, tenant="acme") as client:
        shown = answers_of_every_tool(client)
    assert str(site.config_path.parent) not in shown
    for internal in ("state.sqlite3", "IoError", "Errno", "os error", "Traceback", "sqlite3."):
        assert internal not in shown, internal
