"""Errors a new user meets say what to do; `opindex doctor` and `opindex init`."""

from __future__ import annotations

import base64
import socket
import stat
from pathlib import Path

import httpx
import pytest
from mcp import Client
from tests.support.config_files import write_config
from tests.tools.conftest import ADMIN_KEY, SampleSite, error_of, text_of, tools_client

from opindex import cli
from opindex.config import load_config, load_config_file
from opindex.errors import UpstreamUnavailableError
from opindex.mcp.callers import Caller, http_caller
from opindex.mcp.server import ServerOptions, build_server
from opindex.openproject import OpenProjectClient
from opindex.openproject.retry import RetryPolicy


def _doctor(config_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(["doctor", "--config", str(config_path)])
    return code, capsys.readouterr().out


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_doctor_passes_on_a_synced_tenant(
    sample_site: SampleSite, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _doctor(sample_site.config_path, capsys)
    assert code == cli.EXIT_OK, out
    assert "reached as Ada Admin (admin)" in out
    assert "tenant juergen index: fresh" in out
    assert out.rstrip().endswith("Everything checked works.")


def test_a_wrong_base_url_names_the_full_url_and_the_setting(
    sample_site: SampleSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = f"{sample_site.sandbox.base_url}/openproject"
    code, out = _doctor(write_config(tmp_path, [("t", wrong, ADMIN_KEY)]), capsys)
    assert code == cli.EXIT_UPSTREAM
    assert f"GET {wrong}/api/v3/users/me answered 404" in out
    assert "check base_url" in out and "without /api/v3" in out
    assert "First problem: tenant t." in out


def test_a_wrong_key_names_the_settings_to_check(
    sample_site: SampleSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, [("t", sample_site.sandbox.base_url, "key-nobody-has")])
    code, out = _doctor(config, capsys)
    assert code == cli.EXIT_AUTH
    assert "answered 401" in out and "api_key_env" in out
    assert "auth setting" in out and "API tokens" in out
    assert "key-nobody-has" not in out


def test_a_refused_connection_is_told_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, [("t", f"http://127.0.0.1:{_closed_port()}", "key")])
    code, out = _doctor(config, capsys)
    assert code == cli.EXIT_UPSTREAM
    assert "refused the connection; check the port in base_url" in out


@pytest.mark.parametrize(
    ("raised", "expected"),
    [
        (
            "[Errno -2] Name or service not known",
            "the host name 'openproject.invalid' could not be resolved (DNS)",
        ),
        (
            "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed",
            "the TLS handshake with openproject.invalid failed",
        ),
        ("[Errno 111] Connection refused", "openproject.invalid refused the connection"),
    ],
)
async def test_connect_failures_are_told_apart(raised: str, expected: str) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(raised, request=request)

    client = OpenProjectClient(
        "https://openproject.invalid",
        "key",
        transport=httpx.MockTransport(fail),
        retry=RetryPolicy(max_attempts=1),
    )
    async with client:
        with pytest.raises(UpstreamUnavailableError) as caught:
            await client.me()
    assert expected in str(caught.value)
    assert "https://openproject.invalid" in str(caught.value)


def test_doctor_names_a_broken_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "opindex.toml"
    broken.write_text('[[tenants]]\nname = "t"\nbase_url = "http://x"\napi_keyy = "k"\n')
    broken.chmod(0o600)
    code, out = _doctor(broken, capsys)
    assert code == cli.EXIT_USAGE
    assert out.startswith("FAIL configuration:") and "api_keyy" in out


def test_init_writes_a_commented_private_configuration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "opindex.toml"
    argv = ["init", "--path", str(path), "--base-url", "https://op.example.org/", "--name", "acme"]
    assert cli.main(argv) == cli.EXIT_OK
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text(encoding="utf-8")
    assert text.count("#") > 10  # commented
    config = load_config_file(path, env={"OPENPROJECT_API_KEY": "k"})
    assert (config.tenants[0].name, config.tenants[0].base_url) == (
        "acme",
        "https://op.example.org",
    )
    assert "opindex doctor" in capsys.readouterr().out
    path.write_text("kept", encoding="utf-8")
    assert cli.main(argv) == cli.EXIT_USAGE  # never overwritten by accident
    assert path.read_text(encoding="utf-8") == "kept"
    assert cli.main([*argv, "--force"]) == cli.EXIT_OK
    assert cli.main(["init", "--path", str(tmp_path / "x.toml"), "--name", "Bad Name"]) == 2
    assert not (tmp_path / "x.toml").exists()


def test_an_http_caller_may_send_openprojects_own_basic_header(
    sample_site: SampleSite,
) -> None:
    encoded = base64.b64encode(f"apikey:{ADMIN_KEY}".encode()).decode()
    caller = http_caller(sample_site.config, {"Authorization": f"Basic {encoded}"})
    assert caller == Caller("admin")


async def test_a_rejected_key_names_the_tenant_and_the_settings(
    sample_site: SampleSite, tmp_path: Path
) -> None:
    config = load_config(write_config(tmp_path, [("t", sample_site.sandbox.base_url, "nokey")]))
    options = ServerOptions(transport="stdio", tenant="t", sync=False)
    async with Client(build_server(config, options)) as client:
        result = await client.call_tool("openproject_search_work_packages", {"query": "x"})
    text = error_of(result)
    assert "rejected (401) for tenant 't'" in text
    assert "api_key_env" in text and "bearer" in text and "API tokens" in text


async def test_a_zero_hit_search_names_its_filters(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool(
            "openproject_search_work_packages",
            {"query": "checkout", "project": 999, "status": "open", "fallback": False},
        )
    assert "nothing matched within the filters: project 999, status open" in text_of(result)
    assert "or fewer filters." in text_of(result)
