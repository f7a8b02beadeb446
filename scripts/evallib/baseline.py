"""The exact-substring baseline: what OpenProject's own ``~`` filter finds.

``subject ~ text`` keeps the records whose subject contains the whole query text,
ignoring case (casefold), and lists them most recently updated first. The baseline applies
the same rule to the title of every kind; it reads no description, comment, agenda item or
wiki body, never tolerates a typo, and never relaxes a query.
"""

from __future__ import annotations

from collections.abc import Iterable

from evallib.corpus_view import CorpusItem
from opindex.search.document import Kind


class SubstringBaseline:
    """Case-insensitive whole-query substring over titles, newest first (in process)."""

    def __init__(self, items: Iterable[CorpusItem]) -> None:
        titles: dict[Kind, list[tuple[str, int, str]]] = {}
        for item in items:
            titles.setdefault(item.kind, []).append((item.updated_at, item.id, item.title))
        self.titles: dict[Kind, list[tuple[int, str]]] = {}
        for kind, rows in titles.items():
            rows.sort(key=lambda row: (row[0], row[1]), reverse=True)  # ISO stamps sort as text
            self.titles[kind] = [(record_id, title.casefold()) for _, record_id, title in rows]

    def search(self, kind: Kind, query: str, limit: int = 10) -> list[int]:
        """Ids of the newest *limit* records of *kind* whose title contains *query*."""
        needle = query.strip().casefold()
        if not needle:
            return [record_id for record_id, _ in self.titles.get(kind, [])[:limit]]
        found = []
        for record_id, title in self.titles.get(kind, []):
            if needle in title:
                found.append(record_id)
                if len(found) >= limit:
                    break
        return found
