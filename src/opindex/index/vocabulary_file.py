"""The vocabulary side file of a generation: every term ever indexed, one per line.

Tantivy's term enumeration (``terms_with_prefix``) costs seconds at 200k terms, so the
writer keeps the vocabulary itself: before each commit it appends the terms it has not
seen yet and flushes them to disk, so any reader that sees a commit also sees its terms.
The file only grows (terms of deleted records stay until a rebuild), which is harmless:
an extra term can only add candidates. Readers extend their in-memory Vocabulary with
the bytes appended since their last look.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from opindex.errors import IndexUnavailableError
from opindex.index.vocabulary import Vocabulary

VOCABULARY_FILE: Final = "vocabulary.txt"


def create(path: Path) -> None:
    """Start an empty vocabulary file in a new generation directory."""
    (path / VOCABULARY_FILE).touch()


class VocabularyWriter:
    """Collects the new terms of a write session and appends them before the commit."""

    def __init__(self, path: Path) -> None:
        self._file = path / VOCABULARY_FILE
        try:
            text = self._file.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            raise IndexUnavailableError(f"cannot read {self._file}: {exc}") from exc
        self._known = set(text.split("\n"))
        self._pending: list[str] = []

    def add(self, terms: Iterable[str]) -> None:
        """Remember the terms not seen before."""
        for term in terms:
            if term not in self._known:
                self._known.add(term)
                self._pending.append(term)

    def flush(self) -> None:
        """Append the pending terms durably (call before the Tantivy commit)."""
        if not self._pending:
            return
        data = "".join(term + "\n" for term in self._pending).encode("utf-8")
        try:
            with open(self._file, "ab") as handle:
                if _ends_mid_line(self._file):
                    data = b"\n" + data  # an append torn by a crash: never glue onto it
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise IndexUnavailableError(f"cannot write {self._file}: {exc}") from exc
        self._pending.clear()


def _ends_mid_line(path: Path) -> bool:
    """True when the file's last byte is not a newline (the tail of a torn append)."""
    with open(path, "rb") as handle:
        if handle.seek(0, os.SEEK_END) == 0:
            return False
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) != b"\n"


class VocabularyReader:
    """The in-memory Vocabulary of a generation, following the file as it grows."""

    def __init__(self, path: Path) -> None:
        self._file = path / VOCABULARY_FILE
        self._lock = threading.Lock()
        self._offset = 0
        self._vocabulary = Vocabulary()

    def current(self) -> Vocabulary:
        """The vocabulary including every term flushed so far."""
        with self._lock:
            try:
                size = os.stat(self._file).st_size
                if size > self._offset:
                    with open(self._file, "rb") as handle:
                        handle.seek(self._offset)
                        data = handle.read(size - self._offset)
                    complete = data.rfind(b"\n") + 1  # a line being appended waits
                    if complete:
                        lines = data[:complete].decode("utf-8", errors="replace")
                        self._vocabulary = self._vocabulary.extended(lines.split("\n")[:-1])
                        self._offset += complete
            except OSError as exc:
                raise IndexUnavailableError(f"cannot read {self._file}: {exc}") from exc
            return self._vocabulary
