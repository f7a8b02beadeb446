"""Building blocks of the corpus models: the record base classes and field types."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

# Timestamps a corpus leaves out default to this instant, so loading stays deterministic.
CORPUS_TIME = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)


def none_to_empty_list(value: Any) -> Any:
    """``null`` in a corpus means an empty list."""
    return [] if value is None else value


def _none_to_false(value: Any) -> Any:
    return False if value is None else value


def _as_utc(value: datetime) -> datetime:
    """Naive timestamps are read as UTC; every stored timestamp is timezone-aware."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


Timestamp = Annotated[datetime, AfterValidator(_as_utc)]
IdList = Annotated[list[int], BeforeValidator(none_to_empty_list)]
TextList = Annotated[list[str], BeforeValidator(none_to_empty_list)]
Flag = Annotated[bool, BeforeValidator(_none_to_false)]


def one_of(allowed: tuple[str, ...]) -> AfterValidator:
    """A validator admitting only the *allowed* strings."""

    def check(value: str) -> str:
        if value not in allowed:
            raise ValueError(f"must be one of {', '.join(allowed)}")
        return value

    return AfterValidator(check)


class CorpusRecord(BaseModel):
    """Common configuration: unknown keys are ignored, corpus keys are camelCase aliases."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    def to_corpus_json(self) -> dict[str, Any]:
        """The record as it would appear in a corpus file."""
        return self.model_dump(mode="json", by_alias=True)


class Stamped(CorpusRecord):
    """A record with creation and change timestamps."""

    created_at: Timestamp = Field(default=CORPUS_TIME, alias="createdAt")
    updated_at: Timestamp = Field(default=CORPUS_TIME, alias="updatedAt")
