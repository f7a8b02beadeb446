"""The input of one extraction, bytes in memory or a file on disk, read only as needed."""

from __future__ import annotations

import io
import os
import stat
from os import PathLike
from typing import BinaryIO

Source = bytes | bytearray | memoryview | PathLike[str]
"""File contents, or the path of a downloaded file (a bare ``str`` is refused as ambiguous)."""


class UnreadableSourceError(OSError):
    """The path is missing, not a regular file, or cannot be read (becomes an outcome)."""


class Blob:
    """One input file; its size is known before anything is read."""

    def __init__(self, source: Source) -> None:
        if isinstance(source, str):
            raise TypeError("pass file contents as bytes or a path as pathlib.Path, not str")
        self._data: bytes | memoryview | None
        self._path: str | None
        if isinstance(source, bytes | bytearray | memoryview):
            self._data = source if isinstance(source, bytes) else memoryview(source)
            self._path = None
            self.size = len(self._data)
        else:
            self._data = None
            self._path = os.fspath(source)
            try:
                info = os.stat(self._path)
            except OSError as error:
                raise UnreadableSourceError(type(error).__name__) from error
            if not stat.S_ISREG(info.st_mode):
                raise UnreadableSourceError("not a regular file")
            self.size = info.st_size

    @property
    def path(self) -> str | None:
        """The file's path, or None for in-memory contents."""
        return self._path

    def open(self) -> BinaryIO:
        """A fresh binary stream over the whole input (the caller closes it)."""
        if self._data is not None:
            return io.BytesIO(self._data)
        assert self._path is not None
        try:
            return open(self._path, "rb")
        except OSError as error:
            raise UnreadableSourceError(type(error).__name__) from error

    def head(self, count: int) -> bytes:
        """Up to ``count`` bytes from the start."""
        return self.read_prefix(count)

    def read_prefix(self, count: int) -> bytes:
        """Up to ``count`` bytes from the start; a path is read no further than that."""
        if self._data is not None:
            return bytes(self._data[:count])
        with self.open() as stream:
            return stream.read(count)

    def bytes_or_path(self) -> bytes | str:
        """The contents as bytes, or the path of a file (for libraries that read files)."""
        if self._data is not None:
            return bytes(self._data)
        assert self._path is not None
        return self._path
