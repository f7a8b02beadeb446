"""The wheel ships the SQL migrations, and an installed copy migrates a fresh database."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

MIGRATE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import opindex
    from pathlib import Path
    from opindex.state import StateStore
    from opindex.state.migrations import locate_migrations

    with StateStore.for_tenant(Path(sys.argv[2]), "acme") as store:
        applied = store.applied_migrations()
    print(json.dumps({
        "package": opindex.__file__,
        "migrations": str(locate_migrations()),
        "applied": applied,
    }))
    """
)


def test_wheel_contains_migrations_and_installed_copy_migrates(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(REPO), "-w", tmp_path],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("opindex-*.whl")
    expected = sorted(p.name for p in (REPO / "migrations").glob("*.sql"))
    with zipfile.ZipFile(wheel) as archive:
        shipped = sorted(
            Path(name).name
            for name in archive.namelist()
            if name.startswith("opindex/migrations/") and name.endswith(".sql")
        )
    assert shipped == expected

    target = tmp_path / "site"
    install = ["install", "--no-deps", "--no-index", "-q", "--target", str(target), str(wheel)]
    installed = subprocess.run(
        [sys.executable, "-m", "pip", *install],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr

    # -S: no site-packages, so the editable checkout cannot shadow the installed copy.
    migrated = subprocess.run(
        [sys.executable, "-S", "-c", MIGRATE_SCRIPT, str(target), str(tmp_path / "data")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert migrated.returncode == 0, migrated.stderr
    report = json.loads(migrated.stdout)
    assert Path(report["package"]).is_relative_to(target)
    assert Path(report["migrations"]) == target / "opindex" / "migrations"
    assert report["applied"] == [Path(name).stem for name in expected]
    assert (tmp_path / "data" / "acme" / "state.sqlite3").is_file()
