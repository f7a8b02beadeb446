"""Configuration loading: file and environment sources, validation messages, secrets."""

from __future__ import annotations

import json
import logging
import os
import textwrap
from pathlib import Path

import pytest

from opindex.config import (
    Config,
    Secret,
    default_data_dir,
    load_config,
    load_config_file,
    load_thesaurus,
)
from opindex.errors import ConfigError

KEY = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

VALID = f"""
data_dir = "data"

[server]
host = "0.0.0.0"
port = 9000
allow_unknown_credentials_live = true

[[tenants]]
name = "acme"
base_url = "https://openproject.example.com/"
api_key = "{KEY}"
auth = "bearer"
sync_interval_seconds = 600
max_staleness_seconds = 1800
wiki_refresh_interval_seconds = 7200
deletion_sweep_interval_seconds = 1200
sync_safety_margin_seconds = 0
thesaurus = "synonyms.json"

[[tenants]]
name = "beta-2"
base_url = "http://localhost:8080/openproject"
api_key_env = "BETA_KEY"
"""


def write(path: Path, text: str, mode: int = 0o600) -> Path:
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    os.chmod(path, mode)
    return path


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    (tmp_path / "synonyms.json").write_text(json.dumps({"bug": ["defect", "fault"]}))
    return tmp_path


def test_valid_file_gives_every_value(config_dir: Path) -> None:
    path = write(config_dir / "opindex.toml", VALID)
    config = load_config(path, env={"BETA_KEY": "beta-secret"})

    assert config.source == path
    assert config.data_dir == config_dir / "data"
    assert config.server.host == "0.0.0.0"
    assert config.server.port == 9000
    assert config.server.allow_unknown_credentials_live is True
    assert config.tenant_names == ("acme", "beta-2")
    acme = config.tenant("acme")
    assert acme.base_url == "https://openproject.example.com"
    assert acme.api_key.reveal() == KEY
    assert acme.auth == "bearer"
    assert (acme.sync_interval_seconds, acme.max_staleness_seconds) == (600, 1800)
    assert acme.wiki_refresh_interval_seconds == 7200
    assert acme.deletion_sweep_interval_seconds == 1200
    assert acme.sync_safety_margin_seconds == 0
    assert acme.thesaurus_path == config_dir / "synonyms.json"
    assert acme.thesaurus == {"bug": ("defect", "fault")}
    beta = config.tenant("beta-2")
    assert beta.base_url == "http://localhost:8080/openproject"
    assert beta.api_key.reveal() == "beta-secret"
    assert config.tenant_data_dir("beta-2") == config_dir / "data" / "beta-2"


def test_defaults_apply_to_omitted_keys(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.toml",
        f'[[tenants]]\nname = "a"\nbase_url = "https://x.example"\napi_key = "{KEY}"\n',
    )
    config = load_config(path, env={"XDG_DATA_HOME": str(tmp_path / "xdg")})
    tenant = config.tenants[0]
    assert tenant.auth == "basic"
    assert tenant.sync_interval_seconds == 900
    assert tenant.max_staleness_seconds == 3600
    assert tenant.wiki_refresh_interval_seconds == 3600
    assert tenant.deletion_sweep_interval_seconds == 3600
    assert tenant.sync_safety_margin_seconds == 300
    assert tenant.thesaurus == {} and tenant.thesaurus_path is None
    assert config.server.host == "127.0.0.1" and config.server.port == 8765
    assert config.server.allow_unknown_credentials_live is False
    assert config.data_dir == tmp_path / "xdg" / "opindex"


def test_environment_single_tenant(tmp_path: Path) -> None:
    env = {
        "OPENPROJECT_URL": "https://op.example.org/",
        "OPENPROJECT_API_KEY": KEY,
        "OPINDEX_DATA_DIR": str(tmp_path / "d"),
    }
    config = load_config(env=env, cwd=tmp_path)
    assert config.source is None
    assert config.tenant_names == ("default",)
    assert config.tenants[0].base_url == "https://op.example.org"
    assert config.tenants[0].api_key.reveal() == KEY
    assert config.data_dir == tmp_path / "d"


def test_environment_needs_both_variables(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="OPENPROJECT_API_KEY is not set"):
        load_config(env={"OPENPROJECT_URL": "https://op.example.org"}, cwd=tmp_path)
    with pytest.raises(ConfigError, match="OPENPROJECT_URL: must be an http"):
        load_config(
            env={"OPENPROJECT_URL": "op.example.org", "OPENPROJECT_API_KEY": KEY}, cwd=tmp_path
        )


def test_source_order(tmp_path: Path) -> None:
    body = '[[tenants]]\nname = "{}"\nbase_url = "https://x.example"\napi_key = "k{}"\n'
    explicit = write(tmp_path / "explicit.toml", body.format("explicit", 1))
    from_env = write(tmp_path / "env.toml", body.format("fromenv", 2))
    write(tmp_path / "opindex.toml", body.format("cwd", 3))
    env = {
        "OPINDEX_CONFIG": str(from_env),
        "OPENPROJECT_URL": "https://y",
        "OPENPROJECT_API_KEY": "k",
    }

    assert load_config(explicit, env=env, cwd=tmp_path).tenant_names == ("explicit",)
    assert load_config(env=env, cwd=tmp_path).tenant_names == ("fromenv",)
    del env["OPINDEX_CONFIG"]
    assert load_config(env=env, cwd=tmp_path).tenant_names == ("cwd",)
    (tmp_path / "opindex.toml").unlink()
    assert load_config(env=env, cwd=tmp_path).tenant_names == ("default",)
    with pytest.raises(ConfigError, match="no configuration found"):
        load_config(env={}, cwd=tmp_path)


def test_missing_file_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "absent.toml", env={})
    path = write(tmp_path / "bad.toml", "[[tenants]\nname = ")
    with pytest.raises(ConfigError, match=r"bad\.toml: not valid TOML"):
        load_config(path, env={})


TENANT = 'name = "acme"\nbase_url = "https://op.example.com"\napi_key = "secret-key-1"\n'

INVALID_CASES = [
    # (file body, key the message must name, problem fragment)
    ("", "tenants", "at least one"),
    ("tenants = 3", "tenants", "at least one"),
    ("tenants = [1]", "tenants[0]", "must be a table"),
    ("data_dir = 5\n[[tenants]]\n" + TENANT, "data_dir", "non-empty string"),
    ("data_dir = ''\n[[tenants]]\n" + TENANT, "data_dir", "non-empty string"),
    ("colour = 1\n[[tenants]]\n" + TENANT, "'colour'", "unknown key"),
    ("[[tenants]]\n" + TENANT + "sync_intervall_seconds = 5", "sync_interval_seconds", "mean"),
    ("[[tenants]]\n" + TENANT.replace('"acme"', '"Acme"'), "tenants[0].name", "a-z"),
    ("[[tenants]]\n" + TENANT.replace('"acme"', '"a/b"'), "tenants[0].name", "a-z"),
    ("[[tenants]]\n" + TENANT.replace('name = "acme"\n', ""), "tenants[0].name", "missing"),
    ("[[tenants]]\n" + TENANT + "[[tenants]]\n" + TENANT.replace("-1", "-2"),
     "tenants[1].name", "duplicate"),
    ("[[tenants]]\n" + TENANT + "[[tenants]]\n" + TENANT.replace('"acme"', '"b"'),
     "tenants[1].api_key", "same credential"),
    ("[[tenants]]\n" + TENANT.replace("https://op.example.com", "ftp://op"),
     "tenants[0].base_url", "http"),
    ("[[tenants]]\n" + TENANT.replace("https://op.example.com", "op.example.com"),
     "tenants[0].base_url", "http"),
    ("[[tenants]]\n" + TENANT.replace("https://op.example.com", "https://u:pw@op"),
     "tenants[0].base_url", "credentials"),
    ("[[tenants]]\n" + TENANT.replace("https://op.example.com", "https://op/api/v3/"),
     "tenants[0].base_url", "without /api/v3"),
    ("[[tenants]]\n" + TENANT.replace("https://op.example.com", "https://op:99999"),
     "tenants[0].base_url", "valid URL"),
    ("[[tenants]]\n" + TENANT.replace("https://op.example.com", "https://op?x=1"),
     "tenants[0].base_url", "query"),
    ("[[tenants]]\n" + TENANT.replace('api_key = "secret-key-1"\n', ""),
     "tenants[0].api_key", "api_key_env"),
    ("[[tenants]]\n" + TENANT.replace('"secret-key-1"', '""'), "tenants[0].api_key", "non-empty"),
    ("[[tenants]]\n" + TENANT + 'api_key_env = "X"', "tenants[0].api_key", "not both"),
    ("[[tenants]]\n" + TENANT + 'auth = "digest"', "tenants[0].auth", "'basic' or 'bearer'"),
    ("[[tenants]]\n" + TENANT + "sync_interval_seconds = 0", "sync_interval_seconds", "at least 1"),
    ("[[tenants]]\n" + TENANT + "max_staleness_seconds = '1h'", "max_staleness_seconds", "integer"),
    ("[[tenants]]\n" + TENANT + "wiki_refresh_interval_seconds = true",
     "wiki_refresh_interval_seconds", "integer"),
    ("[[tenants]]\n" + TENANT + "deletion_sweep_interval_seconds = -1",
     "deletion_sweep_interval_seconds", "at least 1"),
    ("[[tenants]]\n" + TENANT + "sync_safety_margin_seconds = -1",
     "sync_safety_margin_seconds", "at least 0"),
    ("[[tenants]]\n" + TENANT + "sync_interval_seconds = 1.5", "sync_interval_seconds", "integer"),
    ("[[tenants]]\n" + TENANT + "thesaurus = 3", "tenants[0].thesaurus", "string"),
    ("[[tenants]]\n" + TENANT + 'thesaurus = "absent.json"', "tenants[0].thesaurus",
     "absent.json does not exist"),
    ("server = 1\n[[tenants]]\n" + TENANT, "server", "must be a table"),
    ("[server]\nport = 0\n[[tenants]]\n" + TENANT, "server.port", "between 1 and 65535"),
    ("[server]\nport = 70000\n[[tenants]]\n" + TENANT, "server.port", "between 1 and 65535"),
    ("[server]\nhost = ''\n[[tenants]]\n" + TENANT, "server.host", "non-empty"),
    ("[server]\nallow_unknown_credentials_live = 'yes'\n[[tenants]]\n" + TENANT,
     "server.allow_unknown_credentials_live", "true or false"),
    ("[server]\nprot = 1\n[[tenants]]\n" + TENANT, "'prot'", "did you mean 'port'"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "key", "problem"), INVALID_CASES)
def test_invalid_configuration_names_key_and_problem(
    tmp_path: Path, body: str, key: str, problem: str
) -> None:
    path = write(tmp_path / "opindex.toml", body)
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={})
    message = str(caught.value)
    assert key in message
    assert problem in message
    assert str(path) in message
    assert "\n" not in message
    assert "secret-key" not in message


def test_api_key_env_missing_variable(tmp_path: Path) -> None:
    body = '[[tenants]]\nname = "a"\nbase_url = "https://x.example"\napi_key_env = "ACME_KEY"\n'
    path = write(tmp_path / "c.toml", body)
    with pytest.raises(ConfigError, match=r"tenants\[0\]\.api_key_env: .*ACME_KEY is not set"):
        load_config(path, env={})
    with pytest.raises(ConfigError, match="ACME_KEY is not set or empty"):
        load_config(path, env={"ACME_KEY": "  "})
    assert load_config(path, env={"ACME_KEY": "k"}).tenants[0].api_key.reveal() == "k"


def test_key_pasted_into_api_key_env_is_not_echoed(tmp_path: Path) -> None:
    body = f'[[tenants]]\nname = "a"\nbase_url = "https://x.example"\napi_key_env = "{KEY}"\n'
    path = write(tmp_path / "c.toml", body)
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={})
    assert KEY not in str(caught.value)
    assert "api_key_env" in str(caught.value)


def test_secret_never_shown(config_dir: Path) -> None:
    path = write(config_dir / "opindex.toml", VALID)
    config = load_config(path, env={"BETA_KEY": "beta-secret"})
    for shown in (repr(config), str(config), repr(config.tenants), f"{config.tenants[0]}"):
        assert KEY not in shown
        assert "beta-secret" not in shown
    secret = config.tenants[0].api_key
    assert KEY not in repr(secret) and KEY not in str(secret) and KEY not in f"{secret!r}"
    assert secret == Secret(KEY) and secret != Secret("other")
    assert config.tenant_for_credential(KEY) is config.tenants[0]
    assert config.tenant_for_credential("beta-secret") is config.tenants[1]
    assert config.tenant_for_credential("nobody") is None


def test_url_credentials_not_echoed(tmp_path: Path) -> None:
    body = '[[tenants]]\nname = "a"\nbase_url = "https://me:hunter2@x"\napi_key = "k"\n'
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path / "c.toml", body), env={})
    assert "hunter2" not in str(caught.value)


def test_world_readable_file_with_inline_key_warns(
    config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(config_dir / "opindex.toml", VALID, mode=0o644)
    with caplog.at_level(logging.WARNING, logger="opindex.config"):
        load_config(path, env={"BETA_KEY": "beta-secret"})
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "readable by every user" in warnings[0] and "acme" in warnings[0]
    assert "beta-2" not in warnings[0]  # its key comes from the environment
    assert KEY not in caplog.text and "beta-secret" not in caplog.text


def test_private_file_or_env_key_does_not_warn(
    config_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    private = write(config_dir / "private.toml", VALID, mode=0o600)
    env_only = "[[tenants]]\nname = 'b'\nbase_url = 'https://x.example'\napi_key_env = 'K'\n"
    public_env_only = write(config_dir / "public.toml", env_only, mode=0o644)
    with caplog.at_level(logging.WARNING, logger="opindex.config"):
        load_config(private, env={"BETA_KEY": "beta-secret"})
        load_config(public_env_only, env={"K": "v"})
    assert not caplog.records


def test_thesaurus_relative_to_config_file(tmp_path: Path) -> None:
    (tmp_path / "conf" / "lists").mkdir(parents=True)
    thesaurus = {"login": ["sign-in", "authentication"], "Straße": ["road"]}
    (tmp_path / "conf" / "lists" / "syn.json").write_text(json.dumps(thesaurus))
    body = (
        '[[tenants]]\nname = "a"\nbase_url = "https://x.example"\napi_key = "k"\n'
        'thesaurus = "lists/syn.json"\n'
    )
    path = write(tmp_path / "conf" / "opindex.toml", body)
    other_cwd = tmp_path / "elsewhere"
    other_cwd.mkdir()
    previous = Path.cwd()
    os.chdir(other_cwd)
    try:
        tenant = load_config(Path("../conf/opindex.toml"), env={}).tenants[0]
    finally:
        os.chdir(previous)
    assert tenant.thesaurus_path is not None and tenant.thesaurus_path.is_absolute()
    assert tenant.thesaurus_path.resolve() == (tmp_path / "conf/lists/syn.json").resolve()
    assert tenant.thesaurus == {"login": ("sign-in", "authentication"), "Straße": ("road",)}
    assert load_config_file(path, env={}).tenants[0].thesaurus == tenant.thesaurus


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ('["a", "b"]', "must hold a JSON object"),
        ('{"a": "b"}', "list of non-empty strings"),
        ('{"a": [1]}', "list of non-empty strings"),
        ('{"a": [""]}', "list of non-empty strings"),
        ('{"": ["b"]}', "list of non-empty strings"),
    ],
)
def test_malformed_thesaurus_names_the_file(tmp_path: Path, content: str, problem: str) -> None:
    thesaurus = tmp_path / "syn.json"
    thesaurus.write_text(content)
    with pytest.raises(ConfigError) as caught:
        load_thesaurus(thesaurus)
    assert str(thesaurus) in str(caught.value) and problem in str(caught.value)
    body = '[[tenants]]\nname = "a"\nbase_url = "https://x.example"\napi_key = "k"\n'
    path = write(tmp_path / "c.toml", body + 'thesaurus = "syn.json"\n')
    with pytest.raises(ConfigError, match=r"tenants\[0\]\.thesaurus: thesaurus file"):
        load_config(path, env={})


def test_absolute_and_home_relative_data_dir(tmp_path: Path) -> None:
    body = '[[tenants]]\nname = "a"\nbase_url = "https://x.example"\napi_key = "k"\n'
    absolute = write(tmp_path / "a.toml", f'data_dir = "{tmp_path / "abs"}"\n' + body)
    assert load_config(absolute, env={}).data_dir == tmp_path / "abs"
    home = write(tmp_path / "h.toml", 'data_dir = "~/idx"\n' + body)
    assert load_config(home, env={}).data_dir == Path.home() / "idx"


def test_default_data_dir_order(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    assert default_data_dir({"HOME": home}) == Path(home) / ".local/share/opindex"
    assert default_data_dir({"HOME": home, "XDG_DATA_HOME": "relative"}) == (
        Path(home) / ".local/share/opindex"
    )
    xdg = str(tmp_path / "xdg")
    assert default_data_dir({"HOME": home, "XDG_DATA_HOME": xdg}) == Path(xdg) / "opindex"
    override = str(tmp_path / "over")
    env = {"HOME": home, "XDG_DATA_HOME": xdg, "OPINDEX_DATA_DIR": override}
    assert default_data_dir(env) == Path(override)


def test_unknown_tenant_lookup_lists_known(config_dir: Path) -> None:
    config = load_config(write(config_dir / "c.toml", VALID), env={"BETA_KEY": "b"})
    assert isinstance(config, Config)
    with pytest.raises(ConfigError, match="unknown tenant 'zeta'; configured tenants: acme"):
        config.tenant("zeta")
