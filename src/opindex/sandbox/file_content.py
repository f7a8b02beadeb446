"""The content of attachments: MIME type, size, MD5 digest and bytes, made at first use."""

from __future__ import annotations

import base64
import hashlib
import mimetypes
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass

from opindex.sandbox.corpus_files import FileAttachment
from opindex.sandbox.file_render import (
    DOCX_TYPE,
    ZipBomb,
    corrupt_pdf_chunks,
    docx_bytes,
    filler_chunks,
    pdf_bytes,
)

FORMAT_TYPES = {
    "pdf": "application/pdf",
    "docx": DOCX_TYPE,
    "text": "text/plain",
    "filler": "application/octet-stream",
    "zipbomb": DOCX_TYPE,
    "corrupt_pdf": "application/pdf",
}
RENDERED_CACHE_SIZE = 64  # small rendered files kept in memory (most recently used)


@dataclass(frozen=True, slots=True)
class FileFacts:
    """What the API tells about a file without sending it."""

    content_type: str
    size: int
    md5: str


def content_type(attachment: FileAttachment) -> str:
    """The record's ``contentType``, else the generated format's, else guessed by file name."""
    if attachment.content_type:
        return attachment.content_type
    if attachment.generate is not None:
        return FORMAT_TYPES[attachment.generate.format]
    guessed, _ = mimetypes.guess_type(attachment.file_name)
    return guessed or "application/octet-stream"


def _small_bytes(attachment: FileAttachment) -> bytes | None:
    """The whole content of a small file; ``None`` for a streamed one."""
    generate = attachment.generate
    if generate is None:
        return base64.b64decode(attachment.content_base64 or "")
    if generate.format == "pdf":
        return pdf_bytes(generate.text)
    if generate.format == "docx":
        return docx_bytes(generate.text)
    if generate.format == "text":
        return generate.text.encode("utf-8")
    return None


def _streamed(attachment: FileAttachment) -> tuple[int, Iterator[bytes]]:
    generate = attachment.generate
    if generate is None or generate.size is None:  # pragma: no cover - checked by the model
        raise ValueError("not a streamed attachment")
    if generate.format == "zipbomb":
        bomb = ZipBomb(generate.size)
        return bomb.length(), bomb.chunks()
    if generate.format == "corrupt_pdf":
        return generate.size, corrupt_pdf_chunks(generate.size)
    return generate.size, filler_chunks(generate.size)


class AttachmentFiles:
    """Facts and bytes of attachment content, computed lazily: loading a corpus renders
    nothing; facts are kept once known, rendered small files in a bounded cache."""

    def __init__(self) -> None:
        self._facts: dict[int, FileFacts] = {}
        self._rendered: OrderedDict[int, bytes] = OrderedDict()

    def forget(self, attachment_id: int) -> None:
        """Drop what is known about an attachment (its record changed or went away)."""
        self._facts.pop(attachment_id, None)
        self._rendered.pop(attachment_id, None)

    def _bytes(self, attachment: FileAttachment) -> bytes | None:
        cached = self._rendered.get(attachment.id)
        if cached is not None:
            self._rendered.move_to_end(attachment.id)
            return cached
        data = _small_bytes(attachment)
        if data is not None:
            self._rendered[attachment.id] = data
            while len(self._rendered) > RENDERED_CACHE_SIZE:
                self._rendered.popitem(last=False)
        return data

    def facts(self, attachment: FileAttachment) -> FileFacts:
        """Type, size and MD5 (a streamed file is read through once, the first time)."""
        known = self._facts.get(attachment.id)
        if known is not None:
            return known
        data = self._bytes(attachment)
        if data is not None:
            size, md5 = len(data), hashlib.md5(data, usedforsecurity=False).hexdigest()
        else:
            size, chunks = _streamed(attachment)
            digest = hashlib.md5(usedforsecurity=False)
            for chunk in chunks:
                digest.update(chunk)
            md5 = digest.hexdigest()
        facts = FileFacts(content_type(attachment), size, md5)
        self._facts[attachment.id] = facts
        return facts

    def open(self, attachment: FileAttachment) -> tuple[int, Iterator[bytes]]:
        """(length, chunks) of the content; nothing bigger than a chunk is held for streams."""
        data = self._bytes(attachment)
        if data is not None:
            return len(data), iter((data,))
        return _streamed(attachment)
