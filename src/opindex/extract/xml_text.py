"""Text from one XML member, streamed through expat with no tree and no DTD.

Safety: expat never fetches external entities unless a handler asks it to, and none is
set. Office Open XML forbids DTDs (ECMA-376 part 2) and ODF files carry none, so any
``<!DOCTYPE`` is refused outright (``failed/corrupt``): no entity can be declared, which
rules out "billion laughs" expansion whatever the expat version (expat >= 2.4.1 also caps
entity amplification itself). The parser is fed in chunks and keeps only the open-element
stack, so memory stays flat however large the member is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol
from xml.parsers import expat

from opindex.extract.outcome import Outcome, Reason
from opindex.extract.sink import Stop, TextSink

CHUNK_BYTES = 64 * 1024


class ByteReader(Protocol):
    """Anything with ``read(size) -> bytes`` (a capped zip member, a file)."""

    def read(self, size: int) -> bytes: ...


@dataclass(frozen=True, slots=True)
class TextRules:
    """Which elements (by local name, any namespace) carry text in one XML vocabulary.

    ``leaves``: character data directly inside is text (OOXML ``t``). ``containers``:
    all character data anywhere inside is text (ODF ``text:p``'s mixed content).
    ``spaces``: an element that stands for a blank (tab, break, ``text:s``). ``blocks``:
    an element that ends a line. ``skipped``: a subtree whose text is not content.
    """

    leaves: frozenset[str] = frozenset()
    containers: frozenset[str] = frozenset()
    spaces: frozenset[str] = frozenset()
    blocks: frozenset[str] = frozenset()
    skipped: frozenset[str] = frozenset()
    attributes: dict[str, str] = field(default_factory=dict)
    """Element local name -> attribute whose value is text (such as a sheet's name)."""


def local_name(name: str) -> str:
    """``"uri local"`` (expat's namespace form) or ``"prefix:local"`` -> ``"local"``."""
    return name.rpartition(" ")[2].rpartition(":")[2]


class TextHandler:
    """Collects an XML member's text by :class:`TextRules`; subclasses may refine it."""

    def __init__(self, rules: TextRules, sink: TextSink) -> None:
        self.rules = rules
        self.sink = sink
        self._leaf_stack: list[bool] = [False]
        self._inside_containers = 0
        self._inside_skipped = 0

    def start(self, name: str, attributes: dict[str, str]) -> None:
        """An element opens."""
        local = local_name(name)
        rules = self.rules
        if local in rules.skipped or self._inside_skipped:
            self._inside_skipped += 1
        self._leaf_stack.append(local in rules.leaves)
        if local in rules.containers:
            self._inside_containers += 1
        if self._inside_skipped:
            return
        if local in rules.spaces:
            self.sink.add(" ")
        attribute = rules.attributes.get(local)
        if attribute is not None:
            for key, value in attributes.items():
                if local_name(key) == attribute:
                    self.sink.add(value + "\n")

    def end(self, name: str) -> None:
        """An element closes."""
        local = local_name(name)
        self._leaf_stack.pop()
        if local in self.rules.containers:
            self._inside_containers -= 1
        if self._inside_skipped:
            self._inside_skipped -= 1
            return
        if local in self.rules.blocks:
            self.sink.add("\n")

    def data(self, text: str) -> None:
        """Character data arrives (possibly in several pieces)."""
        if not self._inside_skipped and (self._leaf_stack[-1] or self._inside_containers):
            self.sink.add(text)


def _refuse_dtd(*_: object) -> None:
    raise Stop(Outcome.FAILED, Reason.CORRUPT, "XML with a DTD")


def parse_xml(reader: ByteReader, handler: TextHandler) -> None:
    """Stream ``reader`` through expat into ``handler``; malformed XML -> ``corrupt``."""
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.buffer_text = True
    parser.StartDoctypeDeclHandler = _refuse_dtd
    parser.EntityDeclHandler = _refuse_dtd
    parser.StartElementHandler = handler.start
    parser.EndElementHandler = handler.end
    parser.CharacterDataHandler = handler.data
    try:
        while chunk := reader.read(CHUNK_BYTES):
            parser.Parse(chunk, False)
            handler.sink.check_time()
        parser.Parse(b"", True)
    except expat.ExpatError as error:
        raise Stop(
            Outcome.FAILED, Reason.CORRUPT, f"XML: {expat.ErrorString(error.code)}"
        ) from error
