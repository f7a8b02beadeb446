"""Webhook pieces on their own: signatures, what a payload names, the configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opindex.config import load_config_file
from opindex.errors import ConfigError, InvalidArgumentError
from opindex.sandbox.options import SandboxOptions
from opindex.webhook_signature import sign, signature_matches
from opindex.webhooks.events import Targets, targets_of

BODY = b'{"action":"work_package:updated","work_package":{"id":5}}'


def test_signature_is_hmac_sha1_hex_and_checked_exactly() -> None:
    # Known vector: HMAC-SHA1(key="key", "The quick brown fox jumps over the lazy dog").
    fox = b"The quick brown fox jumps over the lazy dog"
    assert sign("key", fox) == "sha1=de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9"
    good = sign("s3cret-value", BODY)
    assert signature_matches("s3cret-value", BODY, good)
    assert signature_matches("s3cret-value", BODY, good.upper().replace("SHA1=", "sha1="))
    assert not signature_matches("s3cret-value", BODY, None)
    assert not signature_matches("s3cret-value", BODY, "")
    assert not signature_matches("s3cret-value", BODY, good.removeprefix("sha1="))
    assert not signature_matches("s3cret-value", BODY, "sha256=" + good[5:])
    assert not signature_matches("other-secret", BODY, good)
    assert not signature_matches("s3cret-value", BODY + b" ", good)
    assert not signature_matches("s3cret-value", BODY, "sha1=ünïcode")


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"action": "work_package:created", "work_package": {"id": 7}}, Targets(frozenset({7}))),
        ({"action": "work_package:updated", "work_package": {"id": 8}}, Targets(frozenset({8}))),
        (
            {
                "action": "work_package_comment:comment",
                "activity": {"_links": {"workPackage": {"href": "/api/v3/work_packages/12"}}},
            },
            Targets(frozenset({12})),
        ),
        (
            {
                "action": "attachment:created",
                "attachment": {"_links": {"container": {"href": "/api/v3/work_packages/3"}}},
            },
            Targets(frozenset({3})),
        ),
        ({"action": "project:updated", "project": {"id": 2}}, Targets(manifest=True)),
        # Events naming nothing opindex indexes, or malformed ones: nothing.
        (
            {
                "action": "attachment:created",
                "attachment": {"_links": {"container": {"href": "/api/v3/meetings/3"}}},
            },
            Targets(),
        ),
        ({"action": "time_entry:created", "time_entry": {"id": 1}}, Targets()),
        ({"action": "work_package:updated", "work_package": {"id": "7"}}, Targets()),
        ({"action": "work_package:updated", "work_package": {"id": True}}, Targets()),
        ({"action": "work_package:updated", "work_package": {"id": -3}}, Targets()),
        ({"action": "work_package:updated", "work_package": None}, Targets()),
        ([1, 2], Targets()),
        ("work_package:updated", Targets()),
    ],
)
def test_targets_take_only_ids_from_the_payload(payload: Any, expected: Targets) -> None:
    assert targets_of(payload) == expected


def _config(tmp_path: Path, *tenants: str) -> Path:
    parts = ['data_dir = "data"']
    for index, extra in enumerate(tenants):
        parts.append(
            f'[[tenants]]\nname = "t{index}"\nbase_url = "https://op.example"\n'
            f'api_key = "key-{index}"\n{extra}'
        )
    path = tmp_path / "opindex.toml"
    path.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def test_webhook_settings_are_read_and_the_secret_is_never_shown(tmp_path: Path) -> None:
    path = _config(tmp_path, 'webhook_path = "/hooks/t0/"\nwebhook_secret = "abcdefgh12"')
    tenant = load_config_file(path).tenants[0]
    assert tenant.webhook is not None
    assert tenant.webhook.path == "/hooks/t0"
    assert tenant.webhook.secret.reveal() == "abcdefgh12"
    assert "abcdefgh12" not in repr(tenant)


@pytest.mark.parametrize(
    ("tenants", "message"),
    [
        (['webhook_secret = "abcdefgh12"'], "webhook_path"),
        (['webhook_path = "/hooks/a"'], "webhook_secret"),
        (['webhook_path = "hooks"\nwebhook_secret = "abcdefgh12"'], "URL path"),
        (['webhook_path = "/mcp"\nwebhook_secret = "abcdefgh12"'], "MCP endpoint"),
        (['webhook_path = "/h"\nwebhook_secret = "short"'], "at least 8"),
        (
            [
                'webhook_path = "/h"\nwebhook_secret = "abcdefgh12"',
                'webhook_path = "/h"\nwebhook_secret = "abcdefgh34"',
            ],
            "also tenant",
        ),
    ],
)
def test_bad_webhook_settings_are_refused_with_the_key(
    tmp_path: Path, tenants: list[str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        load_config_file(_config(tmp_path, *tenants))
    assert "abcdefgh" not in str(caught.value)


def test_sandbox_webhook_options_are_checked(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.json"
    with pytest.raises(InvalidArgumentError, match="needs a webhook URL"):
        SandboxOptions(corpus_path=corpus, webhook_secret="abcdefgh12")
    with pytest.raises(InvalidArgumentError, match="http"):
        SandboxOptions(corpus_path=corpus, webhook_url="ftp://example.org/hook")
    options = SandboxOptions(corpus_path=corpus, webhook_url="http://127.0.0.1:9/h")
    assert options.webhook_secret is None
