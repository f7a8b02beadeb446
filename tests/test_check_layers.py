"""The import contract (scripts/check_layers.py): the real tree passes, wrong imports fail."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from scripts.check_layers import ALLOWED, check

ROOT = Path(__file__).resolve().parents[1]


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A fake ``opindex`` package with *files* (relative path → source)."""
    root = tmp_path / "src" / "opindex"
    for relative, source in {"__init__.py": "", **files}.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    return root


def test_the_repository_keeps_the_contract() -> None:
    assert check(ROOT / "src" / "opindex") == []


def test_every_unit_of_the_package_has_a_row() -> None:
    package = ROOT / "src" / "opindex"
    units = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    units |= {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    assert units <= set(ALLOWED)


def test_an_arrow_against_the_layers_fails(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "search/__init__.py": "from opindex.search.score import score\n",
            "search/score.py": "from opindex.service import Service\n",
            "service/__init__.py": "Service = object\n",
        },
    )
    problems = check(root)
    assert len(problems) == 1
    assert "search/score.py:1: opindex.search may not import opindex.service" in problems[0]


def test_a_lazy_import_inside_a_function_counts_too(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "search/__init__.py": "",
            "search/score.py": "def f():\n    from opindex.cli import main\n    return main\n",
            "cli/__init__.py": "main = None\n",
        },
    )
    assert [p for p in check(root) if "may not import opindex.cli" in p]


def test_a_submodule_of_another_package_must_be_entered_by_its_init(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "search/__init__.py": "from opindex.search.document import Kind\n",
            "search/document.py": "Kind = str\n",
            "index/__init__.py": "",
            "index/schema.py": "from opindex.search.document import Kind\n",
        },
    )
    problems = check(root)
    assert len(problems) == 1
    assert "import opindex.search.document through its package" in problems[0]


def test_a_cycle_inside_a_package_fails_even_under_type_checking(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "openproject/__init__.py": "",
            "openproject/client.py": "from opindex.openproject.capabilities import probe\n",
            "openproject/capabilities.py": """\
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from opindex.openproject.client import Client
                def probe(): ...
            """,
        },
    )
    problems = check(root)
    assert problems == [
        "import cycle: opindex.openproject.capabilities -> opindex.openproject.client"
        " -> opindex.openproject.capabilities"
    ]


def test_a_module_importing_its_own_package_fails(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "cli/__init__.py": "from opindex.cli.codes import EXIT_OK\n",
            "cli/codes.py": "EXIT_OK = 0\n",
            "cli/run.py": "from opindex.cli import EXIT_OK\n",
        },
    )
    problems = check(root)
    assert len(problems) == 1 and "imports its own package opindex.cli" in problems[0]


def test_a_package_main_may_hand_over_to_the_command_line(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "sandbox/__init__.py": "",
            "sandbox/__main__.py": "from opindex.cli import main\n",
            "sandbox/server.py": "from opindex.cli import main\n",
            "cli/__init__.py": "main = None\n",
        },
    )
    problems = check(root)
    assert (
        len(problems) == 1
        and "sandbox/server.py:1: opindex.sandbox may not import" in (problems[0])
    )


def test_the_command_exits_1_and_names_the_line(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {"state/__init__.py": "import opindex.sync\n", "sync/__init__.py": ""},
    )
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "check_layers.py"), "--root", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert "state/__init__.py:1: opindex.state may not import opindex.sync" in done.stdout
    assert "1 problem(s)" in done.stderr
