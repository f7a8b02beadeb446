"""Every module, script and test path named in docs/*.md and README.md still exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# docs/SPEC.md is the specification written against the TypeScript openproject-mcp
# repository; the paths it names (src/services/meetings.ts, tests/...) are that repository's.
DOCS = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "SPEC.md")
DOCS.append(ROOT / "README.md")
# Packages a name like `index.reread` is read against; `mcp.` names the MCP SDK as often.
UNITS = sorted(
    p.name
    for p in (ROOT / "src" / "opindex").iterdir()
    if (p / "__init__.py").exists() and p.name != "mcp"
)

# src/opindex/x/y.py, scripts/bench_all, tests/support/, docs/SCALING.md, migrations/...
_PATH = re.compile(r"(?<![\w./-])((?:src/opindex|scripts|tests|docs|migrations)/[\w./-]*\w/?)")
# opindex/service/rerank.py (the package path without src/)
_PACKAGE_PATH = re.compile(r"(?<![\w./-])(opindex/[\w/]+\.py)\b")
# opindex.search.document, opindex.cli.main (a module, or a name one defines)
_DOTTED = re.compile(r"(?<![\w./-])(opindex(?:\.\w+)+)")
# `index.record_dictionary`, `engine.sorted_sets.unique_sorted` (relative to opindex)
_UNIT_DOTTED = re.compile(r"`((?:" + "|".join(UNITS) + r")(?:\.\w+)+)`")
# `processes.py`, `evallib/corpus_stream.py`, `index/index_filters.py`
_BARE = re.compile(r"`((?:\w+/)*\w+\.py)\b")
# A name given with the commit it lived in is history: (`opindex.x.y`, commit 9922a64).
_HISTORY = re.compile(r"^`?,? (?:commit|at commit|until commit) [0-9a-f]{7,40}\b")
# A section marked as replaced (docs/DECISIONS.md) keeps the names of its day.
_REPLACED = re.compile(r"^## [^\n]*\n\n\*(?:Superseded|Reversed) by", re.M)
_NOT_MODULES = {"toml", "json", "md", "db", "sqlite", "sqlite3", "log", "txt"}
_CHECKED_SUFFIXES = {"", ".py", ".md", ".png", ".json", ".sql", ".toml", ".txt"}


def _module_file(parts: list[str]) -> Path | None:
    base = ROOT / "src" / Path(*parts)
    if (base / "__init__.py").exists():
        return base / "__init__.py"
    if base.with_suffix(".py").exists():
        return base.with_suffix(".py")
    return None


def _dotted_exists(name: str) -> bool:
    """A dotted module exists, or names one top-level name its longest existing module has."""
    parts = name.split(".")
    for n in range(len(parts), 1, -1):
        found = _module_file(parts[:n])
        if found is None:
            continue
        rest = parts[n:]
        if not rest:
            return True
        if len(rest) > 1:
            return False
        name = re.escape(rest[0])
        defined = rf"(?:def|class)\s+{name}\b|^{name}\s*[:=]|^\s+{name},$|import .*\b{name}\b"
        return re.search(defined, found.read_text(), re.M) is not None
    return False


def _path_exists(path: str) -> bool:
    target = ROOT / path.rstrip("/")
    if target.exists():
        return True
    # tests/support/processes.wait_until: a name in a module given by its path.
    stem, _, name = path.rpartition(".")
    module = ROOT / f"{stem}.py"
    return (
        bool(stem) and module.exists() and re.search(rf"\b{name}\b", module.read_text()) is not None
    )


def _bare_exists(path: str) -> bool:
    return any(any((ROOT / top).glob(f"**/{path}")) for top in ("src/opindex", "scripts", "tests"))


def _is_history(text: str, end: int) -> bool:
    return _HISTORY.match(text[end : end + 40]) is not None


def _current(text: str) -> str:
    """*text* without its sections marked superseded or reversed."""
    sections = re.split(r"(?=^## )", text, flags=re.M)
    return "".join(section for section in sections if not _REPLACED.match(section))


def dead_names(text: str) -> list[str]:
    """Every module path or dotted module name in *text* that names nothing in the tree."""
    text = _current(text)
    dead: list[str] = []
    for match in _PATH.finditer(text):
        path = match.group(1).rstrip(".")
        suffix = Path(path.rstrip("/")).suffix
        if path.startswith("docs/") and not suffix:
            continue  # "3,545 docs/s" is a rate
        checked = suffix in _CHECKED_SUFFIXES or not re.fullmatch(r"\.\w+", suffix)
        if checked and not _path_exists(path) and not _is_history(text, match.end()):
            dead.append(path)
    for match in _PACKAGE_PATH.finditer(text):
        if not (ROOT / "src" / match.group(1)).exists() and not _is_history(text, match.end()):
            dead.append(match.group(1))
    for match in _DOTTED.finditer(text):
        name = match.group(1)
        if name.rsplit(".", 1)[-1] in _NOT_MODULES:
            continue
        if not _dotted_exists(name) and not _is_history(text, match.end()):
            dead.append(name)
    for match in _UNIT_DOTTED.finditer(text):
        if match.group(1).rsplit(".", 1)[-1] in _NOT_MODULES:
            continue
        if not _dotted_exists("opindex." + match.group(1)) and not _is_history(
            text, match.end() - 1
        ):
            dead.append(match.group(1))
    for match in _BARE.finditer(text):
        path = match.group(1)
        if path.startswith(("src/", "scripts/", "tests/", "opindex/")):
            continue  # checked above
        if not _bare_exists(path) and not _is_history(text, match.end()):
            dead.append(path)
    return sorted(set(dead))


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_path_a_doc_names_exists(doc: Path) -> None:
    assert dead_names(doc.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("text", "dead"),
    [
        ("see `src/opindex/search/nothing_here.py`", ["src/opindex/search/nothing_here.py"]),
        ("ranked by opindex.search.worker_pool today", ["opindex.search.worker_pool"]),
        ("the re-rank in `opindex/service/rerank.py`", ["opindex/service/rerank.py"]),
        ("`scripts/no_such_check.py` runs in scripts/test", ["scripts/no_such_check.py"]),
        ("`engine.trigram_count.no_such_name`", ["engine.trigram_count.no_such_name"]),
        ("`decoder.py` decodes", ["decoder.py"]),
        ("opindex.cli.no_such_name", ["opindex.cli.no_such_name"]),
        ("`tests/index/test_gone.py`", ["tests/index/test_gone.py"]),
        ("## D9. old\n\n*Partly superseded by D10.*\n\n`scripts/gone.py`", ["scripts/gone.py"]),
    ],
)
def test_a_dead_name_is_found(text: str, dead: list[str]) -> None:
    assert dead_names(text) == dead


@pytest.mark.parametrize(
    "text",
    [
        "`src/opindex/search/document.py`, opindex.search.document and `search.document`",
        "opindex.cli.main, `index/index_filters.py`, `processes.py`, tests/support/",
        "`scripts/bench_all`, docs/SCALING.md, tests/support/processes.wait_until",
        "a pool (`opindex.search.worker_pool`, commit 9922a64) was tried",
        "the config file opindex.toml, `state.sqlite3`, 3,545 docs/s",
        "## D9. old\n\n*Superseded by D10.*\n\n`scripts/gone.py`\n\n## D10. new\n",
        "`engine.trigram_count.holding_at_least`, `mcp.Client`",
    ],
)
def test_a_living_or_historical_name_passes(text: str) -> None:
    assert dead_names(text) == []
