"""Fields the CLI prints come from the server (titles, file names, snippets, errors):
control characters in them reach a terminal only as visible escapes; --json stays exact."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator

import pytest
from tests.reliability.conftest import run_opindex
from tests.support.corpus_builder import MEMBER_KEY, CorpusBuilder
from tests.support.synced_tenant import SyncedTenant, synced_tenant

from opindex.cli.search_command import BOLD, RESET, render_table
from opindex.cli.terminal_text import visible
from opindex.envelope import SearchResponse

HOSTILE = "\x1b[31mred\x07 \x1b]0;owned\x07 \u202eevil\x9b2J"
SHOWN = "\\x1b[31mred\\x07 \\x1b]0;owned\\x07 \\u202eevil\\x9b2J"
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
WP, FILE = 21, 31


@pytest.fixture(scope="module")
def tenant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncedTenant]:
    corpus = CorpusBuilder()
    corpus.add_work_package(WP, subject=f"Quarterly {HOSTILE} budget")
    corpus.add_attachment(
        FILE,
        ("work_packages", WP),
        fileName=f"budget {HOSTILE}.txt",
        generate={"format": "text", "text": "zebrafinch tally"},
    )
    with synced_tenant(tmp_path_factory.mktemp("printed"), corpus.build(), MEMBER_KEY) as t:
        yield t


def _search(tenant: SyncedTenant, *args: str) -> tuple[int, str, str]:
    done = run_opindex("search", *args, "--config", str(tenant.config_path))
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("query", "kind"),
    [("zebrafinch", "work_packages"), ("budget", "attachments"), ("zebrafinch", "all")],
)
def test_search_text_output_shows_control_characters_escaped(
    tenant: SyncedTenant, query: str, kind: str
) -> None:
    code, out, err = _search(tenant, query, "--kind", kind)
    assert code == 0, err
    assert not RAW_CONTROL.search(out + err), repr(out)
    assert SHOWN in out, out


def test_search_json_output_keeps_the_exact_text(tenant: SyncedTenant) -> None:
    code, out, err = _search(tenant, "budget", "--kind", "attachments", "--json")
    assert code == 0, err
    results = json.loads(out)["results"]
    assert results[0]["title"] == f"budget {HOSTILE}.txt"
    assert "\x1b" not in out  # JSON escapes it (\u001b), the decoded value keeps it


def test_error_line_quoting_an_argument_is_made_visible(tenant: SyncedTenant) -> None:
    code, out, err = _search(tenant, "budget", "--kind", "work_packages", "--project", HOSTILE)
    assert code == 2, (out, err)
    assert not RAW_CONTROL.search(err) and "\\x1b[31m" in err, repr(err)


def test_highlighted_table_keeps_only_its_own_bold_codes(tenant: SyncedTenant) -> None:
    code, out, err = _search(tenant, "quarterly red", "--kind", "work_packages", "--json")
    assert code == 0, err
    response = SearchResponse.model_validate(json.loads(out))
    written = io.StringIO()
    render_table(response, written, color=True)
    text = written.getvalue()
    assert BOLD in text
    stripped = text.replace(BOLD, "").replace(RESET, "")
    assert not RAW_CONTROL.search(stripped), repr(text)
    assert visible(f"Quarterly {HOSTILE} budget") in stripped


def test_visible_escapes_every_control_but_newline_and_tab() -> None:
    every = "".join(chr(code) for code in range(0x00, 0xA0)) + "\u200e\u202e\u2066\u2069"
    shown = visible(every)
    assert not RAW_CONTROL.search(shown.replace("\n", "").replace("\t", ""))
    assert "\n" in shown and "\t" in shown and "\\x1b" in shown and "\\u202e" in shown
    assert "\n" not in visible("a\nb", one_line=True)
