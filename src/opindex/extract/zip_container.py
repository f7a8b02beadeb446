"""Zip containers opened defensively: member count, declared sizes and ratios checked from
the central directory before any member is inflated, and every read capped as it streams.

Declared sizes can lie. :mod:`zipfile` itself never returns more than a member's declared
``file_size`` (and then fails the CRC check), and :class:`CappedReader` additionally counts
the bytes actually inflated against the container's total budget, so a forged central
directory cannot make a read exceed ``max_zip_uncompressed_bytes``.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterable
from types import TracebackType
from typing import IO, Self

from opindex.extract.limits import ExtractionLimits
from opindex.extract.outcome import Outcome, Reason
from opindex.extract.sink import Stop
from opindex.extract.source import Blob

_EOCD = struct.Struct("<4s4H2LH")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
_EOCD_SEARCH = _EOCD.size + 0xFFFF  # the record plus the longest archive comment
_READ_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,  # an unsupported compression method
    OSError,
    ValueError,  # also UnicodeDecodeError, on a member name with invalid UTF-8
    struct.error,  # a truncated header or extra field
)


def _corrupt(detail: str) -> Stop:
    return Stop(Outcome.FAILED, Reason.CORRUPT, detail)


def _bomb(detail: str) -> Stop:
    return Stop(Outcome.SKIPPED, Reason.ZIP_BOMB, detail)


def declared_entry_count(blob: Blob) -> int:
    """The number of entries the end-of-central-directory record declares (zip64 aware),
    read before :mod:`zipfile` builds an object for each of them."""
    with blob.open() as stream:
        start = max(0, blob.size - _EOCD_SEARCH)
        stream.seek(start)
        tail = stream.read()
        position = tail.rfind(b"PK\x05\x06")
        if position < 0 or position + _EOCD.size > len(tail):
            raise _corrupt("no end of central directory")
        fields = _EOCD.unpack_from(tail, position)
        entries, cd_size = fields[4], fields[5]
        if entries != 0xFFFF and cd_size != 0xFFFFFFFF:
            return int(entries)
        locator_at = position - _ZIP64_LOCATOR.size
        if locator_at < 0:
            raise _corrupt("zip64 locator missing")
        signature, _, record_offset, _ = _ZIP64_LOCATOR.unpack_from(tail, locator_at)
        if signature != b"PK\x06\x07" or record_offset + _ZIP64_EOCD.size > blob.size:
            raise _corrupt("zip64 locator invalid")
        stream.seek(record_offset)
        record = stream.read(_ZIP64_EOCD.size)
        if len(record) < _ZIP64_EOCD.size or record[:4] != b"PK\x06\x06":
            raise _corrupt("zip64 end record invalid")
        return int(_ZIP64_EOCD.unpack(record)[7])


class CappedReader:
    """A member's inflating stream that stops (``zip_bomb``) past its byte budget and turns
    decompression or CRC failures into ``corrupt``."""

    def __init__(self, inner: IO[bytes], archive: SafeZip, declared: int) -> None:
        self._inner = inner
        self._archive = archive
        self._declared = declared
        self.bytes_read = 0

    def read(self, size: int) -> bytes:
        """Up to ``size`` inflated bytes; b"" at the member's end."""
        try:
            data = self._inner.read(size)
        except _READ_ERRORS as error:
            raise _corrupt(type(error).__name__) from error
        self.bytes_read += len(data)
        if self.bytes_read > self._declared:
            raise _bomb("member inflates past its declared size")
        self._archive.charge(len(data))
        return data

    def close(self) -> None:
        """Release the member stream."""
        self._inner.close()


class SafeZip:
    """A zip container whose members are read only after :meth:`check` approved them."""

    def __init__(self, blob: Blob, limits: ExtractionLimits) -> None:
        self._limits = limits
        self._inflated = 0
        self._declared_total = 0
        self._approved: set[str] = set()
        count = declared_entry_count(blob)
        if count > limits.max_zip_members:
            raise _bomb(f"{count} entries declared")
        self._stream = blob.open()
        try:
            self._zip = zipfile.ZipFile(self._stream)
        except _READ_ERRORS as error:
            self._stream.close()
            raise _corrupt(type(error).__name__) from error
        self._infos = {info.filename: info for info in self._zip.infolist()}

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the archive and its underlying stream."""
        self._zip.close()
        self._stream.close()

    @property
    def names(self) -> list[str]:
        """Member names in central-directory order."""
        return list(self._infos)

    def check(self, names: Iterable[str]) -> None:
        """Approve members for reading, or stop (``zip_bomb``, ``encrypted``) on what their
        central-directory entries declare: total size, per-member ratio, encryption."""
        for name in names:
            info = self._infos[name]
            if name in self._approved:
                continue
            if info.flag_bits & 0x1:
                raise Stop(Outcome.SKIPPED, Reason.ENCRYPTED, "encrypted zip member")
            self._declared_total += info.file_size
            if self._declared_total > self._limits.max_zip_uncompressed_bytes:
                raise _bomb(f"members declare {self._declared_total} bytes uncompressed")
            if info.file_size > self._limits.zip_ratio_floor_bytes:
                ratio = info.file_size / max(info.compress_size, 1)
                if ratio > self._limits.max_zip_ratio:
                    raise _bomb(f"member ratio {ratio:.0f}:1")
            self._approved.add(name)

    def open_member(self, name: str) -> CappedReader:
        """A capped stream over an approved member."""
        if name not in self._approved:
            raise ValueError(f"member {name!r} was not checked before reading")
        info = self._infos[name]
        try:
            inner = self._zip.open(info)
        except _READ_ERRORS as error:
            raise _corrupt(type(error).__name__) from error
        return CappedReader(inner, self, info.file_size)

    def read_small(self, name: str, max_bytes: int) -> bytes | None:
        """A short member (such as ODF's ``mimetype``) in full, or None if it is absent or
        declares more than ``max_bytes``."""
        info = self._infos.get(name)
        if info is None or info.file_size > max_bytes:
            return None
        self.check([name])
        reader = self.open_member(name)
        try:
            return reader.read(max_bytes + 1)[:max_bytes]
        finally:
            reader.close()

    def charge(self, count: int) -> None:
        """Count ``count`` inflated bytes against the container's budget."""
        self._inflated += count
        if self._inflated > self._limits.max_zip_uncompressed_bytes:
            raise _bomb("inflated past the container budget")
