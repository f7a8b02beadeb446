"""Malformed configuration files and corrupt corpus files: one clear message, exit code 2.

Every case runs the real CLI entry point; a traceback or any other exception escaping
``cli.main`` fails the test. A few cases run as subprocesses to check stderr as a user
sees it.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import run_opindex
from tests.support.config_files import write_config
from tests.support.corpora import reliability_corpus
from tests.support.processes import opindex_argv, subprocess_env
from tests.support.sandbox import MEMBER_KEY, running_sandbox

from opindex import cli

TENANT = '[[tenants]]\nname = "acme"\nbase_url = "http://127.0.0.1:9"\napi_key = "k-1"\n'
DEEP = 50_000

CONFIGS: dict[str, tuple[str | bytes, str]] = {
    # case: (file content, a fragment the message must contain)
    "empty": ("", "tenants"),
    "not toml": ("data_dir = \n", "not valid TOML"),
    "unclosed table": ("[[tenants]\nname = 'a'\n", "not valid TOML"),
    "binary": (b"\xff\xfe\x00garbage", "cannot read"),
    "deeply nested": ("x = " + "[" * DEEP + "]" * DEEP + "\n", "nested"),
    "tenants not tables": ("tenants = 5\n", "tenants"),
    "tenant not a table": ("tenants = [1]\n", "tenants[0]"),
    "no name": ('[[tenants]]\nbase_url = "http://x"\napi_key = "k"\n', "name"),
    "name escapes": (TENANT.replace('"acme"', '"../etc"'), "name"),
    "name is a number": (TENANT.replace('"acme"', "7"), "name"),
    "ftp url": (TENANT.replace("http://127.0.0.1:9", "ftp://x"), "base_url"),
    "url without host": (TENANT.replace("http://127.0.0.1:9", "http://"), "base_url"),
    "url bad port": (TENANT.replace("127.0.0.1:9", "h:99999"), "base_url"),
    "url broken ipv6": (TENANT.replace("127.0.0.1:9", "[::1"), "base_url"),
    "url with credentials": (TENANT.replace("http://", "http://u:p@"), "credentials"),
    "url with api path": (TENANT.replace(":9", ":9/api/v3"), "api/v3"),
    "url with NUL": (TENANT.replace("127.0.0.1", "exa\\u0000mple"), "base_url"),
    "empty key": (TENANT.replace('"k-1"', '"  "'), "api_key"),
    "key and key env": (TENANT + 'api_key_env = "X"\n', "api_key"),
    "key env unset": (
        TENANT.replace('api_key = "k-1"', 'api_key_env = "OPINDEX_TEST_UNSET"'),
        "OPINDEX_TEST_UNSET",
    ),
    "key with newline": (TENANT.replace('"k-1"', '"k-1\\nX-Injected: 1"'), "api_key"),
    "typo": (TENANT + "max_stalenes_seconds = 5\n", "did you mean"),
    "integer as text": (TENANT + 'max_staleness_seconds = "1h"\n', "integer"),
    "negative interval": (TENANT + "sync_interval_seconds = -5\n", "at least 1"),
    "huge interval": (TENANT + "sync_interval_seconds = 9223372036854775807\n", "at most"),
    "huge staleness": (TENANT + "max_staleness_seconds = 10000000000000\n", "at most"),
    "auth scheme": (TENANT + 'auth = "digest"\n', "auth"),
    "duplicate tenant": (TENANT + TENANT.replace('"k-1"', '"k-2"'), "duplicate"),
    "duplicate key": (TENANT + TENANT.replace('"acme"', '"beta"'), "same credential"),
    "port out of range": ("[server]\nport = 70000\n" + TENANT, "port"),
    "host not text": ("[server]\nhost = 5\n" + TENANT, "host"),
    "server not a table": ('server = "x"\n' + TENANT, "server"),
    "data_dir with NUL": ('data_dir = "da\\u0000ta"\n' + TENANT, "data_dir"),
    "data_dir not text": ("data_dir = 5\n" + TENANT, "data_dir"),
    "missing thesaurus": (TENANT + 'thesaurus = "nope.json"\n', "does not exist"),
    "thesaurus with NUL": (TENANT + 'thesaurus = "t\\u0000.json"\n', "thesaurus"),
}
THESAURI: dict[str, tuple[str, str]] = {
    "bad json": ("{", "not valid JSON"),
    "a list": ("[]", "JSON object"),
    "deeply nested": ("[" * DEEP + "]" * DEEP, "thesaurus"),
    "numbers": ('{"a": [1]}', "non-empty strings"),
}
COMMANDS = (("status",), ("sync",), ("rebuild", "--tenant", "acme"), ("serve", "--no-sync"))


def _assert_one_clear_message(
    capsys: pytest.CaptureFixture[str], command: str, fragment: str
) -> None:
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert out == ""
    assert len(lines) == 1, err
    assert lines[0].startswith(f"opindex {command}: ")
    assert fragment.lower() in lines[0].lower(), lines[0]
    assert "Traceback" not in err and len(lines[0]) < 1000


@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_malformed_configuration_is_one_clear_message_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    content, fragment = CONFIGS[case]
    path = tmp_path / "opindex.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    path.chmod(0o600)
    for command in COMMANDS:
        assert cli.main([command[0], "--config", str(path), *command[1:]]) == cli.EXIT_USAGE
        _assert_one_clear_message(capsys, command[0], fragment)
    assert not (tmp_path / "data").exists()  # nothing was created on the way


@pytest.mark.parametrize("case", sorted(THESAURI))
def test_malformed_thesaurus_is_one_clear_message_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    content, fragment = THESAURI[case]
    (tmp_path / "thesaurus.json").write_text(content, encoding="utf-8")
    path = tmp_path / "opindex.toml"
    path.write_text(TENANT + 'thesaurus = "thesaurus.json"\n', encoding="utf-8")
    path.chmod(0o600)
    assert cli.main(["status", "--config", str(path)]) == cli.EXIT_USAGE
    _assert_one_clear_message(capsys, "status", fragment)


@pytest.mark.parametrize("target", ["missing", "directory"])
def test_unreadable_configuration_path_is_one_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    path = tmp_path / "opindex.toml"
    if target == "directory":
        path.mkdir()
    assert cli.main(["status", "--config", str(path)]) == cli.EXIT_USAGE
    _assert_one_clear_message(capsys, "status", str(path))


def test_bad_environment_configuration_is_one_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPINDEX_CONFIG", raising=False)
    monkeypatch.setenv("OPENPROJECT_URL", "not a url")
    monkeypatch.setenv("OPENPROJECT_API_KEY", "k")
    assert cli.main(["status"]) == cli.EXIT_USAGE
    _assert_one_clear_message(capsys, "status", "OPENPROJECT_URL")
    monkeypatch.delenv("OPENPROJECT_URL")
    assert cli.main(["status"]) == cli.EXIT_USAGE
    _assert_one_clear_message(capsys, "status", "OPENPROJECT_URL")


def _corpus_cases() -> dict[str, tuple[bytes, str]]:
    good = reliability_corpus(4)

    def variant(change: Any) -> bytes:
        data = json.loads(json.dumps(good))
        change(data)
        return json.dumps(data).encode()

    def duplicate(data: dict[str, Any]) -> None:
        data["work_packages"].append(dict(data["work_packages"][0]))

    def no_project(data: dict[str, Any]) -> None:
        data["work_packages"][0]["project"] = 999

    def no_user(data: dict[str, Any]) -> None:
        data["work_packages"][0]["author"] = 999

    def id_as_text(data: dict[str, Any]) -> None:
        data["wiki_pages"][0]["id"] = "seven"

    def version_2(data: dict[str, Any]) -> None:
        data["version"] = 2

    def bad_key_owner(data: dict[str, Any]) -> None:
        data["api_keys"]["key-x"] = 42

    return {
        "bad json": (b'{"version": 1,', "not valid JSON"),
        "not utf-8": (b"\xff\xfe{}", "corpus"),
        "not an object": (b"[1, 2]", "object"),
        "deeply nested": (b"[" * DEEP + b"]" * DEEP, "corpus"),
        "duplicate id": (variant(duplicate), "duplicate"),
        "missing project": (variant(no_project), "999"),
        "missing user": (variant(no_user), "999"),
        "id as text": (variant(id_as_text), "wiki"),
        "version 2": (variant(version_2), "version"),
        "key of no user": (variant(bad_key_owner), "42"),
    }


CORPORA = _corpus_cases()


@pytest.mark.parametrize("case", sorted(CORPORA))
def test_corrupt_corpus_is_one_clear_message_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    content, fragment = CORPORA[case]
    path = tmp_path / "corpus.json"
    path.write_bytes(content)
    assert cli.main(["sandbox", "--corpus", str(path), "--port", "0"]) == cli.EXIT_USAGE
    _assert_one_clear_message(capsys, "sandbox", fragment)


def test_missing_corpus_is_one_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "absent.json"
    assert cli.main(["sandbox", "--corpus", str(path), "--port", "0"]) == cli.EXIT_USAGE
    _assert_one_clear_message(capsys, "sandbox", str(path))


@pytest.mark.parametrize(
    ("argv", "content"),
    [
        (("status", "--config", "{path}"), "x = " + "[" * DEEP + "]" * DEEP),
        (("status", "--config", "{path}"), 'data_dir = "a\\u0000"\n' + TENANT),
        (("sandbox", "--corpus", "{path}", "--port", "0"), "[" * DEEP + "]" * DEEP),
    ],
    ids=["deep-config", "nul-data-dir", "deep-corpus"],
)
def test_a_real_process_prints_no_traceback(
    tmp_path: Path, argv: tuple[str, ...], content: str
) -> None:
    path = tmp_path / "input"
    path.write_text(content, encoding="utf-8")
    path.chmod(0o600)
    result = run_opindex(*(arg.format(path=path) for arg in argv), timeout=60)
    assert result.returncode == cli.EXIT_USAGE, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr[-2000:]


def test_a_world_readable_configuration_holding_a_key_warns(tmp_path: Path) -> None:
    path = tmp_path / "opindex.toml"
    path.write_text('data_dir = "data"\n' + TENANT, encoding="utf-8")
    path.chmod(0o644)
    loud = subprocess.run(
        opindex_argv("status", "--config", str(path)),
        capture_output=True,
        text=True,
        timeout=60,
        env=subprocess_env(),
    )
    assert loud.returncode == cli.EXIT_OK
    assert "readable by every user" in loud.stderr and "chmod 600" in loud.stderr
    assert "k-1" not in loud.stderr
    path.chmod(0o600)
    quiet = run_opindex("status", "--config", str(path), timeout=60)
    assert quiet.returncode == cli.EXIT_OK and "readable" not in quiet.stderr
    env_path = tmp_path / "env.toml"
    env_path.write_text(
        TENANT.replace('api_key = "k-1"', 'api_key_env = "OPINDEX_TEST_KEY"'), encoding="utf-8"
    )
    env_path.chmod(0o644)
    no_inline = subprocess.run(
        opindex_argv("status", "--config", str(env_path)),
        capture_output=True,
        text=True,
        timeout=60,
        env={**subprocess_env(), "OPINDEX_TEST_KEY": "k-9"},
    )
    assert no_inline.returncode == cli.EXIT_OK and "readable" not in no_inline.stderr
    assert os.stat(path).st_mode & 0o777 == 0o600


@pytest.fixture(scope="module")
def synced_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("search-cli")
    with running_sandbox(reliability_corpus(8), wiki_list=True) as sandbox:
        path = write_config(directory, [("acme", sandbox, MEMBER_KEY)])
        assert cli.main(["sync", "--config", str(path), "--quiet"]) == cli.EXIT_OK
        yield path


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (["q" * 1001], "longer than 1000"),
        (["--limit", "0", "x"], "--limit"),
        (["--limit", "101", "x"], "--limit"),
        (["--limit", "99999999999999999999", "x"], "--limit"),
        (["--project", "-1", "x"], "--project"),
        (["--tenant", "../etc", "x"], "unknown tenant"),
    ],
)
def test_search_command_refuses_bad_arguments_in_one_line(
    synced_config: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], fragment: str
) -> None:
    argv = ["search", "--config", str(synced_config), "--kind", "work_packages", *arguments]
    try:
        code = cli.main(argv)
    except SystemExit as exited:  # argparse refuses malformed options itself
        code = int(exited.code or 0)
    assert code == cli.EXIT_USAGE
    _, err = capsys.readouterr()
    assert fragment in err and "Traceback" not in err


@pytest.mark.parametrize("query", ["a\x01b", "((((", ".*", "\u202eevil", "😀", "", "%_%"])
def test_search_command_answers_hostile_queries(
    synced_config: Path, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    argv = ["search", "--config", str(synced_config), "--kind", "work_packages", "--", query]
    assert cli.main(argv) == cli.EXIT_OK
    out, err = capsys.readouterr()
    assert out.strip() and "Traceback" not in err
