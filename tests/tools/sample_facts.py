"""Facts read from the sample corpus file, the oracle the tool tests compare answers with."""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from typing import Any

from opindex.sandbox.sample_corpus import sample_corpus_path


@cache
def corpus() -> dict[str, Any]:
    """The sample corpus as shipped."""
    data: dict[str, Any] = json.loads(sample_corpus_path().read_text(encoding="utf-8"))
    return data


def updated(record: dict[str, Any]) -> datetime:
    """A corpus record's update time."""
    return datetime.fromisoformat(record["updatedAt"].replace("Z", "+00:00"))


def work_packages(**equal: Any) -> list[dict[str, Any]]:
    """Work packages whose fields equal *equal* (every one for none)."""
    return [
        wp
        for wp in corpus()["work_packages"]
        if all(wp.get(name) == value for name, value in equal.items())
    ]


def newest_first(records: list[dict[str, Any]]) -> list[int]:
    """Ids by update time, newest first, then by descending id (OpenProject's order)."""
    ordered = sorted(records, key=lambda r: (updated(r), r["id"]), reverse=True)
    return [record["id"] for record in ordered]


def id_of(table: str, **equal: Any) -> int:
    """The id of the one entry of *table* matching *equal*."""
    found = [
        row
        for row in corpus()[table]
        if all(row.get(name) == value for name, value in equal.items())
    ]
    assert len(found) == 1, (table, equal, found)
    return int(found[0]["id"])
