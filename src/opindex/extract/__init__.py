"""Attachment text extraction: bounded, never crashing the caller, isolatable."""

from opindex.extract.counts import ExtractionCounts, FormatTotals
from opindex.extract.dispatch import DEFAULT_LIMITS, extract_text
from opindex.extract.isolation import Extractor, ExtractorClosedError, ExtractorStartError
from opindex.extract.limits import ExtractionLimits, InvalidExtractionLimitsError
from opindex.extract.outcome import Extraction, Format, Outcome, Reason
from opindex.extract.source import Source

__all__ = [
    "DEFAULT_LIMITS",
    "Extraction",
    "ExtractionCounts",
    "ExtractionLimits",
    "Extractor",
    "ExtractorClosedError",
    "ExtractorStartError",
    "Format",
    "FormatTotals",
    "InvalidExtractionLimitsError",
    "Outcome",
    "Reason",
    "Source",
    "extract_text",
]
