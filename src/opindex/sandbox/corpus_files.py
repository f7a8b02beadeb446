"""Corpus models of attachments: the container a file belongs to and the forms of its content."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Self

from pydantic import AfterValidator, Field, model_validator

from opindex.sandbox.corpus_base import CorpusRecord, Stamped, one_of

CONTAINER_KINDS = ("work_packages", "wiki_pages", "meetings", "documents", "posts")
RENDERED_FORMATS = ("pdf", "docx", "text")  # small files built from ``text`` at first use
STREAMED_FORMATS = ("filler", "zipbomb", "corrupt_pdf")  # ``bytes`` long, never held whole
GENERATED_FORMATS = RENDERED_FORMATS + STREAMED_FORMATS


def _is_base64(value: str) -> str:
    try:
        base64.b64decode(value, validate=True)
    except binascii.Error as exc:
        raise ValueError(f"is not valid base64: {exc}") from None
    return value


class Container(CorpusRecord):
    """What an attachment is attached to: a record kind of the corpus and its id."""

    kind: Annotated[str, one_of(CONTAINER_KINDS)]
    id: int = Field(gt=0)


class GeneratedContent(CorpusRecord):
    """Content the sandbox makes itself: a document holding ``text``, or ``bytes`` of filler.

    ``pdf``/``docx``/``text`` render ``text`` into a real file; ``filler`` is ``bytes``
    of repeated text, ``zipbomb`` a DOCX-shaped zip whose document inflates to ``bytes``,
    ``corrupt_pdf`` ``bytes`` that start like a PDF but are not one.
    """

    format: Annotated[str, one_of(GENERATED_FORMATS)]
    text: str = ""
    size: int | None = Field(default=None, ge=0, alias="bytes")

    @model_validator(mode="after")
    def _size_for_streams(self) -> Self:
        if self.format in STREAMED_FORMATS and self.size is None:
            raise ValueError(f"format {self.format} needs a size in bytes")
        return self


class FileAttachment(Stamped):
    """A file attached to a container, with real content (``contentBase64`` or ``generate``;
    neither means an empty file). ``fileSize`` and the digest are computed from the content."""

    id: int = Field(gt=0)
    container: Container
    file_name: str = Field(alias="fileName")
    content_type: str | None = Field(default=None, alias="contentType")
    description: str | None = None
    author: int
    content_base64: Annotated[str, AfterValidator(_is_base64)] | None = Field(
        default=None, alias="contentBase64"
    )
    generate: GeneratedContent | None = None

    @model_validator(mode="after")
    def _one_content_form(self) -> Self:
        if self.content_base64 is not None and self.generate is not None:
            raise ValueError("give contentBase64 or generate, not both")
        return self
