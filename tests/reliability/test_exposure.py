"""What other users and other hosts can reach: private data files, a loopback-only server.

The world-readable configuration warning is tested with the other configuration
problems (test_bad_input_cli.py).
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from tests.support.config_files import write_config
from tests.support.corpora import reliability_corpus
from tests.support.mcp_clients import initialize_request
from tests.support.processes import http_server_process, opindex_argv, subprocess_env
from tests.support.sandbox import MEMBER_KEY, OUTSIDER_KEY, running_sandbox

from opindex.config import ServerConfig, load_config
from opindex.state import lock_file_path, state_db_path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_data_directory_and_state_files_are_private_even_with_a_permissive_umask(
    tmp_path: Path,
) -> None:
    with running_sandbox(reliability_corpus(4), wiki_list=True) as sandbox:
        config = write_config(
            tmp_path, [("acme", sandbox, MEMBER_KEY), ("beta", sandbox, OUTSIDER_KEY)]
        )
        result = subprocess.run(
            opindex_argv("sync", "--config", str(config), "--quiet"),
            capture_output=True,
            text=True,
            timeout=120,
            env=subprocess_env(),
            preexec_fn=lambda: os.umask(0),
        )
    assert result.returncode == 0, result.stderr
    data_dir = load_config(config).data_dir
    assert _mode(data_dir) == 0o700
    for tenant in ("acme", "beta"):
        assert _mode(data_dir / tenant) == 0o700
        assert _mode(state_db_path(data_dir, tenant)) == 0o600
        assert _mode(lock_file_path(data_dir, tenant)) == 0o600
        for sidecar in state_db_path(data_dir, tenant).parent.glob("state.sqlite3-*"):
            assert _mode(sidecar) & 0o077 == 0, sidecar  # WAL files follow the database
        # Whatever lies deeper (index files) is unreachable through the 0700 directory.
        for path in (data_dir / tenant).iterdir():
            if path.is_file():
                assert _mode(path) & 0o077 == 0, path


def test_an_existing_data_directory_keeps_its_mode_but_tenant_directories_are_private(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o750)
    data_dir.chmod(0o750)
    with running_sandbox(reliability_corpus(4), wiki_list=True) as sandbox:
        config = write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)])
        result = subprocess.run(
            opindex_argv("sync", "--config", str(config), "--quiet"),
            capture_output=True,
            text=True,
            timeout=120,
            env=subprocess_env(),
        )
    assert result.returncode == 0, result.stderr
    assert _mode(data_dir) == 0o750  # chosen by the operator
    assert _mode(data_dir / "acme") == 0o700


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a listening TCP socket on ``port`` (Linux /proc)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, port_hex = fields[1].rsplit(":", 1)
            if int(port_hex, 16) == port and fields[3] == "0A":  # LISTEN
                found.add(address)
    return found


def test_http_transport_binds_loopback_by_default_and_refuses_foreign_hosts(
    tmp_path: Path,
) -> None:
    assert ServerConfig().host == "127.0.0.1"
    with running_sandbox(reliability_corpus(4), wiki_list=True) as sandbox:
        config = write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)])  # no [server] table
        with http_server_process(config, "--no-sync") as url:
            parts = urlsplit(url)
            assert parts.hostname == "127.0.0.1"
            assert parts.port is not None
            if Path("/proc/net/tcp").exists():
                assert _listening_addresses(parts.port) == {"0100007F"}  # 127.0.0.1 only
            initialize = initialize_request("probe")
            headers = {
                "Accept": "application/json, text/event-stream",
                "Authorization": f"Bearer {MEMBER_KEY}",
            }
            rebinding = httpx.post(
                url, json=initialize, headers={**headers, "Host": "attacker.example"}, timeout=30
            )
            assert 400 <= rebinding.status_code < 500
            cross_site = httpx.post(
                url,
                json=initialize,
                headers={**headers, "Origin": "http://attacker.example"},
                timeout=30,
            )
            assert 400 <= cross_site.status_code < 500
            local = httpx.post(url, json=initialize, headers=headers, timeout=30)
            assert local.status_code == 200
