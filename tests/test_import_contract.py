"""The import contract (pyproject [tool.importlinter]): the tree passes, wrong imports fail."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint(source_root: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports with the repository's contracts, on the opindex under *source_root*."""
    env = {**os.environ, "PYTHONPATH": str(source_root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _copy_with(tmp_path: Path, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A copy of src/opindex with *files* (path under opindex → source) written over it, linted."""
    source_root = tmp_path / "src"
    package = source_root / "opindex"
    shutil.copytree(ROOT / "src" / "opindex", package, ignore=shutil.ignore_patterns("__pycache__"))
    for relative, text in files.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return _lint(source_root, tmp_path)


def test_the_repository_keeps_the_contract(tmp_path: Path) -> None:
    done = _lint(ROOT / "src", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_the_copy_is_what_gets_linted(tmp_path: Path) -> None:
    # The wrong imports below must be read from the copy, not from the installed tree.
    done = _copy_with(tmp_path, {})
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("files", "broken", "named"),
    [
        pytest.param(
            {"search/wrong_arrow.py": "from opindex.service import Service\n"},
            "Layers: the arrows point down",
            "opindex.search.wrong_arrow -> opindex.service",
            id="an arrow pointing up",
        ),
        pytest.param(
            {
                "search/wrong_lazy.py": """\
                    def run() -> object:
                        from opindex.cli import main
                        return main
                """
            },
            "Layers: the arrows point down",
            "opindex.search.wrong_lazy -> opindex.cli",
            id="a lazy import inside a function",
        ),
        pytest.param(
            {"records_wrong.py": "from opindex.moments import utc_now\n"},
            "Layers: the arrows point down",
            "records_wrong",
            id="a new unit with no place in the layers",
        ),
        pytest.param(
            {"search/wrong_sideways.py": "from opindex.moments import utc_now\n"},
            "search uses only errors",
            "opindex.search.wrong_sideways -> opindex.moments",
            id="a lower unit the table does not allow",
        ),
        pytest.param(
            {"index/wrong_entry.py": "from opindex.search.document import Kind\n"},
            "Enter opindex.search through its __init__",
            "opindex.index.wrong_entry -> opindex.search.document",
            id="another package entered past its __init__",
        ),
        pytest.param(
            {
                "openproject/wrong_a.py": "from opindex.openproject.wrong_b import B\nA = 1\n",
                "openproject/wrong_b.py": """\
                    from typing import TYPE_CHECKING
                    if TYPE_CHECKING:
                        from opindex.openproject.wrong_a import A
                    B = 2
                """,
            },
            "No import cycle between the modules of a package",
            ".wrong_a",
            id="a cycle inside a package under TYPE_CHECKING",
        ),
        pytest.param(
            {"cli/wrong_own.py": "from opindex.cli import main\n"},
            "No module of opindex.cli imports its own package",
            "opindex.cli.wrong_own -> opindex.cli",
            id="a module importing its own package",
        ),
    ],
)
def test_a_wrong_import_breaks_the_contract(
    tmp_path: Path, files: dict[str, str], broken: str, named: str
) -> None:
    done = _copy_with(tmp_path, files)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Broken contracts" in done.stdout, done.stdout + done.stderr
    report = done.stdout.split("Broken contracts", 1)[1]
    assert f"\n{broken}" in report, done.stdout
    assert named in report, done.stdout


def test_a_package_main_may_hand_over_to_the_command_line(tmp_path: Path) -> None:
    done = _copy_with(tmp_path, {"extract/__main__.py": "from opindex.cli import main\nmain()\n"})
    assert done.returncode == 0, done.stdout + done.stderr
