"""The bounds on extracting one file (ExtractionLimits) and the error for nonsensical ones."""

from __future__ import annotations

from dataclasses import dataclass, fields

from opindex.errors import InvalidArgumentError

MIB = 1024 * 1024


class InvalidExtractionLimitsError(InvalidArgumentError):
    """An ExtractionLimits field is zero, negative or of the wrong type."""


@dataclass(frozen=True, slots=True)
class ExtractionLimits:
    """Every bound on one file; the defaults suit OpenProject attachments.

    - ``max_bytes``: larger inputs are skipped (``too_large``) without being read.
    - ``max_pages``: PDF pages read; the rest is dropped (``truncated/page_limit``).
    - ``max_chars``: characters of text kept (``truncated/text_limit``).
    - ``max_seconds``: wall time; checked between pages and parser chunks (partial text,
      ``truncated/timeout``); the isolated :class:`~opindex.extract.isolation.Extractor`
      also kills a worker that overruns it by its grace period (``failed/timeout``).
    - ``max_memory_bytes``: the address-space limit (RLIMIT_AS) of the isolated worker;
      not enforced when :func:`~opindex.extract.dispatch.extract_text` runs in-process.
    - ``max_zip_members``: entries a zip container's central directory may declare.
    - ``max_zip_uncompressed_bytes``: total bytes inflated from the members that are read;
      declared sizes are checked first, and reads are capped as they stream.
    - ``max_zip_ratio``: the largest uncompressed/compressed ratio of a member that is read
      and declares more than ``zip_ratio_floor_bytes`` (small members may compress well).
    """

    max_bytes: int = 50 * MIB
    max_pages: int = 1000
    max_chars: int = 1_000_000
    max_seconds: float = 30.0
    max_memory_bytes: int = 1024 * MIB
    max_zip_members: int = 10_000
    max_zip_uncompressed_bytes: int = 100 * MIB
    max_zip_ratio: float = 100.0
    zip_ratio_floor_bytes: int = 1 * MIB

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InvalidExtractionLimitsError(f"{field.name} must be a number, got {value!r}")
            if value <= 0:
                raise InvalidExtractionLimitsError(f"{field.name} must be positive, got {value}")
