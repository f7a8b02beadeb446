"""How a sandbox behaves: the options of ``opindex sandbox`` as one value."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from opindex.errors import InvalidArgumentError

MEETINGS_API_LEVELS = ("16", "17.4", "17.6")


@dataclass(frozen=True, slots=True)
class MeetingsApi:
    """How much of the meetings API exists, by OpenProject release."""

    level: str = "17.6"

    def __post_init__(self) -> None:
        if self.level not in MEETINGS_API_LEVELS:
            raise InvalidArgumentError(
                f"meetings API level must be one of {', '.join(MEETINGS_API_LEVELS)}, "
                f"not {self.level!r}"
            )

    @property
    def has_agenda_items(self) -> bool:
        """17.4+: agenda items, participants and state."""
        return self.level in ("17.4", "17.6")

    @property
    def has_outcomes(self) -> bool:
        """17.6+: outcomes of agenda items."""
        return self.level == "17.6"

    @property
    def core_version(self) -> str:
        """The ``coreVersion`` the root resource reports to admins."""
        return {"16": "16.6.0", "17.4": "17.4.0", "17.6": "17.6.0"}[self.level]


@dataclass(frozen=True, slots=True)
class SandboxOptions:
    """Everything ``opindex sandbox`` can be told on its command line."""

    corpus_path: Path
    host: str = "127.0.0.1"
    port: int = 0
    latency_ms: float = 0.0
    page_size_max: int = 1000
    wiki_text: bool = True
    wiki_list: bool = False
    meetings_api: MeetingsApi = MeetingsApi()
    webhook_url: str | None = None
    webhook_secret: str | None = None

    def __post_init__(self) -> None:
        if self.latency_ms < 0:
            raise InvalidArgumentError("latency must not be negative")
        if self.page_size_max < 1:
            raise InvalidArgumentError("the maximum page size must be at least 1")
        if not 0 <= self.port <= 65535:
            raise InvalidArgumentError(f"port {self.port} is out of range")
        if self.webhook_url is not None and not self.webhook_url.startswith(
            ("http://", "https://")
        ):
            raise InvalidArgumentError("the webhook URL must start with http:// or https://")
        if self.webhook_secret is not None and self.webhook_url is None:
            raise InvalidArgumentError("a webhook secret needs a webhook URL")
