"""Index generations of one tenant and the CURRENT pointer that names the live one.

Layout under the tenant's index root (e.g. ``<data_dir>/<tenant>/index``)::

    CURRENT        one line: the name of the live generation ("g000003")
    g000002/       an older generation, removed by cleanup()
    g000003/       the live generation: Tantivy files + opindex-index.json
    g000004/       a rebuild in progress (not yet published)

A rebuild writes a fresh generation beside the live one and publishes it by replacing
CURRENT with os.replace, which is atomic: a reader sees either the old or the new name.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Final

from opindex import kill_points
from opindex.errors import IndexUnavailableError

POINTER: Final = "CURRENT"
_GENERATION_RE: Final = re.compile(r"^g(\d{6,})$")


def generation_name(number: int) -> str:
    """The directory name of generation *number*."""
    return f"g{number:06d}"


def generation_number(name: str) -> int | None:
    """The number of a generation directory name, None if *name* is not one."""
    match = _GENERATION_RE.match(name)
    return int(match.group(1)) if match else None


class IndexDirectory:
    """The generations of one tenant's index and the pointer to the live one."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @property
    def pointer(self) -> Path:
        """The CURRENT pointer file."""
        return self.root / POINTER

    def generation_path(self, name: str) -> Path:
        """The directory of generation *name*."""
        if generation_number(name) is None:
            raise IndexUnavailableError(f"{name!r} is not an index generation name")
        return self.root / name

    def generations(self) -> list[str]:
        """Names of every generation directory present, oldest first."""
        if not self.root.is_dir():
            return []
        found = [
            (number, entry.name)
            for entry in self.root.iterdir()
            if entry.is_dir() and (number := generation_number(entry.name)) is not None
        ]
        return [name for _, name in sorted(found)]

    def current(self) -> str | None:
        """The live generation's name, None when nothing was published yet."""
        try:
            name = self.pointer.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise IndexUnavailableError(f"cannot read {self.pointer}: {exc}") from exc
        if generation_number(name) is None:
            raise IndexUnavailableError(f"{self.pointer} names no generation: {name!r}")
        return name

    def pointer_stamp(self) -> tuple[int, int, int] | None:
        """A cheap change marker for CURRENT (inode, mtime, size); None when absent."""
        try:
            st = os.stat(self.pointer)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def new_generation(self) -> str:
        """Create an empty generation directory numbered after every existing one."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            numbers = [generation_number(name) or 0 for name in self.generations()]
            number = max(numbers, default=0) + 1
            while True:
                name = generation_name(number)
                try:
                    (self.root / name).mkdir()
                except FileExistsError:  # a concurrent builder took this number
                    number += 1
                    continue
                return name
        except OSError as exc:
            raise IndexUnavailableError(
                f"cannot create a generation under {self.root}: {exc}"
            ) from exc

    def publish(self, name: str) -> None:
        """Make generation *name* the live one, atomically."""
        path = self.generation_path(name)
        if not path.is_dir():
            raise IndexUnavailableError(f"cannot publish {name}: {path} does not exist")
        tmp = self.root / f".{POINTER}.{os.getpid()}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(name + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.pointer)
        except OSError as exc:
            raise IndexUnavailableError(f"cannot publish {name}: {exc}") from exc
        _fsync_dir(self.root)
        kill_points.reached("current-switch")

    def discard(self, name: str) -> None:
        """Remove generation *name*; refuses to remove the live one."""
        if name == self.current():
            raise IndexUnavailableError(f"refusing to discard the live generation {name}")
        shutil.rmtree(self.generation_path(name), ignore_errors=True)

    def cleanup(self) -> list[str]:
        """Remove every generation older than the live one; returns the removed names.

        Newer generations are left alone: they may be a rebuild still in progress.
        Readers that still have an old generation open keep working on Linux and macOS
        (open files outlive their directory entry) until they follow CURRENT.
        """
        live = self.current()
        if live is None:
            return []
        live_number = generation_number(live) or 0
        removed: list[str] = []
        for name in self.generations():
            if (generation_number(name) or 0) < live_number:
                shutil.rmtree(self.root / name, ignore_errors=True)
                removed.append(name)
        return removed


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory handles
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


FULL_DISK_BYTES = 1024 * 1024
"""Free space below which a failed write is blamed on a full disk."""


def full_disk_note(data_dir: Path) -> str:
    """ " (the file system … is full …)" when little space is left, else ""."""
    try:
        stats = os.statvfs(data_dir)
    except OSError:
        return ""
    free = stats.f_bavail * stats.f_frsize
    if free >= FULL_DISK_BYTES:
        return ""
    return f" (the disk is full: the file system holding {data_dir} has {free} bytes free)"
