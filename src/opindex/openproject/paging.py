"""Walking HAL collections: 1-based page offsets, server page size, last page, de-duplication."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from opindex.errors import InvalidArgumentError
from opindex.openproject.hal import embedded_elements

T = TypeVar("T")
JsonObject = dict[str, Any]
FetchJson = Callable[[str, Mapping[str, str]], Awaitable[JsonObject]]
Parse = Callable[[Mapping[str, Any]], T]


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a collection walk.

    ``elements`` holds only records not seen on an earlier page of the same walk;
    ``duplicates`` counts those dropped. ``page_size`` is what the server reports (it
    clamps the requested size); ``None`` for unpaginated collections or trimmed responses.
    """

    number: int
    elements: tuple[T, ...]
    total: int | None
    page_size: int | None
    duplicates: int = 0


class PagedQuery(Generic[T]):
    """A collection request that can be walked page by page or collected at once.

    ``async for page in query`` yields ``Page`` objects (bounded memory, progress);
    ``await query.collect()`` returns every record. Each walk starts again at page 1.
    Unpaginated collections (no ``pageSize`` in the answer) yield a single page.
    """

    def __init__(
        self,
        fetch: FetchJson,
        path: str,
        params: Mapping[str, str],
        parse: Parse[T],
        *,
        page_size: int | None = None,
    ) -> None:
        if page_size is not None and (page_size < 1 and page_size != -1):
            raise InvalidArgumentError("page_size must be positive (or -1 for the server max)")
        self._fetch = fetch
        self.path = path
        self.params = dict(params)
        self._parse = parse
        self.page_size = page_size

    def __aiter__(self) -> AsyncIterator[Page[T]]:
        return self.pages()

    async def pages(self) -> AsyncGenerator[Page[T], None]:
        """Yield pages until the last one; stops on the first of: no ``nextByOffset`` link,
        all ``total`` elements seen, an empty page, or a page of only already-seen ids."""
        seen: set[int] = set()
        raw_seen = 0
        number = 1
        request_size = self.page_size
        while True:
            params = dict(self.params)
            if request_size is not None or number > 1:
                params["offset"] = str(number)
            if request_size is not None:
                params["pageSize"] = str(request_size)
            data = await self._fetch(self.path, params)
            raw = embedded_elements(data)
            fresh: list[T] = []
            duplicates = 0
            for element in raw:
                element_id = element.get("id")
                if isinstance(element_id, int):
                    if element_id in seen:
                        duplicates += 1
                        continue
                    seen.add(element_id)
                fresh.append(self._parse(element))
            raw_seen += len(raw)
            total = _int_or_none(data.get("total"))
            reported_size = _int_or_none(data.get("pageSize"))
            yield Page(number, tuple(fresh), total, reported_size, duplicates)

            last = _is_last_page(
                data,
                new_elements=len(fresh),
                raw_count=len(raw),
                raw_seen=raw_seen,
                number=number,
                trimmed="select" in self.params,
            )
            if last:
                return
            if reported_size is not None and reported_size > 0:
                # Keep the page numbering the server used (it may have clamped our size).
                request_size = reported_size
            number += 1

    async def items(self) -> AsyncGenerator[T, None]:
        """Every record of the collection, page after page."""
        async for page in self.pages():
            for element in page.elements:
                yield element

    async def collect(self, limit: int | None = None) -> list[T]:
        """All records of the collection in one list, or its first *limit* (no page after
        the one that reaches it is requested)."""
        found: list[T] = []
        walk = self.items()
        try:
            async for element in walk:
                found.append(element)
                if limit is not None and len(found) >= limit:
                    break
        finally:
            await walk.aclose()
        return found


def _is_last_page(
    data: Mapping[str, Any],
    *,
    new_elements: int,
    raw_count: int,
    raw_seen: int,
    number: int,
    trimmed: bool,
) -> bool:
    if raw_count == 0 or new_elements == 0:
        return True
    total = _int_or_none(data.get("total"))
    page_size = _int_or_none(data.get("pageSize"))
    if total is not None and raw_seen >= total:
        return True
    if total is not None and page_size and page_size > 0 and number * page_size >= total:
        return True
    if trimmed:
        # `select` trims links and paging properties: walk until total or an empty page.
        return False
    links = data.get("_links")
    if isinstance(links, Mapping):
        # Paginated answers link the next page; unpaginated collections never do.
        return "nextByOffset" not in links
    return "pageSize" not in data and "offset" not in data


def _int_or_none(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value
