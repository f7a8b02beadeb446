"""The vocabulary side file of a generation: every term ever indexed, one per line.

Tantivy's term enumeration (``terms_with_prefix``) costs seconds at 200k terms, so the
index keeps the vocabulary itself: before each commit the writer appends the terms of the
tokens the generation had not indexed yet and flushes them to disk, so any reader that
sees a commit also sees its terms.
The file only grows (terms of deleted records stay until a rebuild), which is harmless:
an extra term can only add candidates. Readers extend their in-memory Vocabulary with
the bytes appended since their last look, up to the length the check file records
(DECISIONS D123): bytes past it (an append whose check is not written yet, or garbage)
are never read.

A term missing from the file would make records silently unfindable by substring and
prefix searches, so after each append the writer records the file's length and SHA-256
in ``vocabulary.check`` (replaced atomically). Readers and writers verify the file
against it when they first read it, and readers notice a file that shrinks later: a
truncated or altered vocabulary is an unavailable index, never a silent empty answer.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Final

from opindex.errors import IndexUnavailableError
from opindex.index.vocabulary import Vocabulary

VOCABULARY_FILE: Final = "vocabulary.txt"
CHECK_FILE: Final = "vocabulary.check"
_REPAIR: Final = "the next sync or `opindex rebuild` builds a new index"


def create(path: Path) -> None:
    """Start an empty vocabulary file (and its check) in a new generation directory."""
    (path / VOCABULARY_FILE).touch()
    _write_check(path, 0, hashlib.sha256())


def _write_check(path: Path, length: int, digest: hashlib._Hash) -> None:
    """Record the vocabulary's committed length and checksum (atomic replace)."""
    temporary = path / (CHECK_FILE + ".tmp")
    try:
        with open(temporary, "w", encoding="ascii") as handle:
            handle.write(f"{length} {digest.hexdigest()}\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path / CHECK_FILE)
    except OSError as exc:
        raise IndexUnavailableError(f"cannot write {path / CHECK_FILE}: {exc}") from exc


def _read_checked(path: Path) -> bytes:
    """The vocabulary file's bytes, verified against its check (IndexUnavailableError)."""
    check_file, vocabulary = path / CHECK_FILE, path / VOCABULARY_FILE
    try:  # the check first: it is written after the append it describes
        fields = check_file.read_text(encoding="ascii").split()
        data = vocabulary.read_bytes()
    except FileNotFoundError as exc:
        raise IndexUnavailableError(
            f"index at {path}: {exc.filename} is missing; {_REPAIR}"
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise IndexUnavailableError(f"cannot read the vocabulary of {path}: {exc}") from exc
    if len(fields) != 2 or not fields[0].isdigit():
        raise IndexUnavailableError(f"index at {path}: {CHECK_FILE} is malformed; {_REPAIR}")
    length, expected = int(fields[0]), fields[1]
    if len(data) < length:
        raise IndexUnavailableError(
            f"index at {path}: {VOCABULARY_FILE} is truncated ({len(data)} bytes, its last "
            f"commit wrote {length}); {_REPAIR}"
        )
    if hashlib.sha256(data[:length]).hexdigest() != expected:
        raise IndexUnavailableError(
            f"index at {path}: {VOCABULARY_FILE} was altered since its last commit "
            f"(checksum mismatch); {_REPAIR}"
        )
    return data[:length]


def _committed_length(path: Path) -> int:
    """The vocabulary length the check file records (IndexUnavailableError if unreadable)."""
    try:
        fields = (path / CHECK_FILE).read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError) as exc:
        raise IndexUnavailableError(f"cannot read the vocabulary check of {path}: {exc}") from exc
    if len(fields) != 2 or not fields[0].isdigit():
        raise IndexUnavailableError(f"index at {path}: {CHECK_FILE} is malformed; {_REPAIR}")
    return int(fields[0])


class VocabularyWriter:
    """Collects the new terms of a write session and appends them before the commit.

    The analysis store's vocabulary holds every token this file holds, uncut and written
    by the same commits, so the writer is told which tokens are new (``add_new``) instead
    of keeping a set of every term (1.3 s and about 0.4 GiB at 1M records, DECISIONS
    D170): a token shorter than *cut* is new here too; a longer one is cut, and its cut
    form is looked up among the file's terms of that length, read when first needed."""

    def __init__(self, path: Path, cut: int) -> None:
        self._path = path
        self._file = path / VOCABULARY_FILE
        self._cut = cut
        data = _read_checked(path)
        self._long: set[str] | None = None  # the terms of length *cut*, read when needed
        self._pending: list[str] = []
        self._length = len(data)
        self._digest = hashlib.sha256(data)

    def reopen(self) -> bool:
        """Whether this writer, after its flush, can serve the next write session: the
        committed length is still the one it wrote (the file only grows, so no other
        writer appended since) and nothing is pending."""
        return not self._pending and _committed_length(self._path) == self._length

    def add_new(self, tokens: Iterable[str]) -> None:
        """Append, at the next flush, the terms of *tokens*: tokens no commit of this
        generation indexed before (each once), uncut."""
        for token in tokens:
            if len(token) < self._cut:
                self._pending.append(token)
                continue
            term = token[: self._cut]
            if self._long is None:
                text = _read_checked(self._path).decode("utf-8", errors="replace")
                self._long = {t for t in text.split("\n") if len(t) == self._cut}
                self._long.update(t for t in self._pending if len(t) == self._cut)
            if term not in self._long:
                self._long.add(term)
                self._pending.append(term)

    def flush(self) -> None:
        """Append the pending terms durably (call before the Tantivy commit)."""
        if not self._pending:
            return
        data = "".join(term + "\n" for term in self._pending).encode("utf-8")
        try:
            with open(self._file, "r+b") as handle:
                # Bytes past the committed length (an append torn by a crash before its
                # check was written) were never read by anyone: overwrite them.
                handle.seek(self._length)
                handle.truncate()
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise IndexUnavailableError(f"cannot write {self._file}: {exc}") from exc
        self._length += len(data)
        self._digest.update(data)
        _write_check(self._path, self._length, self._digest)
        self._pending.clear()


class VocabularyReader:
    """The in-memory Vocabulary of a generation, following the file as it grows."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._file = path / VOCABULARY_FILE
        self._lock = threading.Lock()
        self._offset = 0
        self._vocabulary = Vocabulary()

    def current(self) -> Vocabulary:
        """The vocabulary including every term flushed so far.

        Raises IndexUnavailableError if the file fails its check on the first read, or
        shrinks afterwards.
        """
        with self._lock:
            if self._offset == 0:
                self._extend(_read_checked(self._path))
                return self._vocabulary
            try:
                size = os.stat(self._file).st_size
                if size > self._offset:
                    end = min(size, _committed_length(self._path))
                    if end > self._offset:
                        with open(self._file, "rb") as handle:
                            handle.seek(self._offset)
                            self._extend(handle.read(end - self._offset))
            except OSError as exc:
                raise IndexUnavailableError(f"cannot read {self._file}: {exc}") from exc
            if size < self._offset:
                raise IndexUnavailableError(
                    f"index at {self._path}: {VOCABULARY_FILE} shrank from {self._offset} "
                    f"to {size} bytes while in use (truncated); {_REPAIR}"
                )
            return self._vocabulary

    def _extend(self, data: bytes) -> None:
        """Add the complete lines of ``data`` (read from the current offset)."""
        complete = data.rfind(b"\n") + 1  # a line being appended waits
        if complete:
            lines = data[:complete].decode("utf-8", errors="replace")
            self._vocabulary = self._vocabulary.extended(lines.split("\n")[:-1])
            self._offset += complete
