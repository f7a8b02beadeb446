"""The command line's own contract: exit codes and error conversion at the edge."""

from __future__ import annotations

import pytest

from opindex import cli
from opindex.errors import (
    AuthenticationError,
    ConfigError,
    IndexUnavailableError,
    OpindexError,
    ServerError,
    SyncInProgressError,
)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (SyncInProgressError("busy"), cli.EXIT_SYNC_RUNNING),
        (AuthenticationError("no", status=401), cli.EXIT_AUTH),
        (ServerError("boom", status=500), cli.EXIT_UPSTREAM),
        (IndexUnavailableError("gone"), cli.EXIT_LOCAL_STORAGE),
        (ConfigError("bad key"), cli.EXIT_USAGE),
        (OpindexError("other"), cli.EXIT_FAILURE),
    ],
)
def test_exit_codes(error: OpindexError, code: int) -> None:
    assert cli.exit_code_for(error) == code


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert "opindex" in capsys.readouterr().out
