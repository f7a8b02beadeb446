"""Wiki pages: from the list endpoint where the server has one, else by id probing.

Wiki pages expose no change marker on released servers, so known pages are re-read in
slices (:func:`opindex.sync.wiki_probe.refresh_slice`), each within the tenant's
``wiki_refresh_interval_seconds``; a 404 on re-read removes the page. Unchanged content
(same hash) is not written to the index again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import datetime

from opindex.errors import NotFoundError
from opindex.openproject import WikiPage
from opindex.record_builders import wiki_page_record
from opindex.search import Kind
from opindex.state import WikiDiscovery
from opindex.sync import wiki_probe
from opindex.sync.sync_session import SyncSession

logger = logging.getLogger(__name__)

KIND: Kind = "wiki_page"
PAGE_SIZE = 1000


async def sync_wiki(
    session: SyncSession,
    discovery: WikiDiscovery,
    *,
    last_run_at: datetime | None,
    refresh_all: bool = False,
) -> None:
    """Discover, refresh and reconcile wiki pages; records the new discovery state.

    ``refresh_all`` re-reads every known page now (e.g. after the account lost access
    to a project) instead of the slice that is due.
    """
    if session.capabilities.wiki_list:
        try:
            await _sync_from_list(session, discovery)
            return
        except NotFoundError:
            logger.warning("the wiki page list endpoint is gone; discovering pages by id")
            session.capabilities = session.capabilities.model_copy(update={"wiki_list": False})
            stored = dict(session.changes.capabilities or {})
            stored["server"] = session.capabilities.model_dump(mode="json")
            session.changes.capabilities = stored
    if session.full:
        await _full_pass(session, discovery)
    else:
        await _incremental(session, discovery, last_run_at=last_run_at, refresh_all=refresh_all)


async def _sync_from_list(session: SyncSession, discovery: WikiDiscovery) -> None:
    listed = await session.client.wiki_pages(page_size=PAGE_SIZE).collect()
    wants_text = session.capabilities.wiki_text is True
    known = session.known_of(KIND)
    todo: list[WikiPage] = []
    for page in listed:
        entry = known.get(page.id)
        unchanged = (
            not session.full
            and session.trust_known
            and entry is not None
            and page.updated_at is not None
            and entry.updated_at == page.updated_at
        )
        if unchanged:
            session.changes.still_exists(KIND, [page.id])
        else:
            todo.append(page)
    lacking_text = [page.id for page in todo if wants_text and page.text is None]
    if lacking_text:
        fetched = await _probe(session, lacking_text)
        complete = {page.id: page for page in fetched if page is not None}
        todo = [complete.get(page.id, page) for page in todo]
    await _write_pages(session, todo)
    present = {page.id for page in listed}
    indexed = set(await asyncio.to_thread(session.index.all_ids, KIND))
    candidates = sorted((indexed | set(known)) - present)
    if candidates:
        answers = await _probe(session, candidates)
        survivors = [page for page in answers if page is not None]
        await _write_pages(session, survivors)
        alive = {page.id for page in survivors}
        await session.remove(KIND, [page_id for page_id in candidates if page_id not in alive])
    highest = max(present, default=discovery.highest_id_seen)
    now = session.started_at
    session.changes.wiki_discovery = WikiDiscovery(highest, now, discovery.probed_ranges)


async def _full_pass(session: SyncSession, discovery: WikiDiscovery) -> None:
    """Probe every id up to past the highest page (known pages included)."""
    known = session.known_of(KIND)
    indexed = set(await asyncio.to_thread(session.index.all_ids, KIND))
    floor = max([*known, *indexed, discovery.highest_id_seen or 0], default=0)
    result = await wiki_probe.scan(
        lambda ids: _probe(session, ids),
        start=1,
        floor=floor,
        misses_to_stop=wiki_probe.miss_limit,
        budget=None,
    )
    await _apply_scan(session, result, refresh_ids=set())
    beyond = sorted(page_id for page_id in (known.keys() | indexed) if page_id > result.last_probed)
    if beyond:  # cannot happen with floor set, but never leave unverified pages behind
        await _refresh(session, beyond)
    session.changes.wiki_discovery = wiki_probe.after_pass(
        discovery,
        highest=_highest(session),
        last_probed=result.last_probed,
        complete=True,
        started_at=session.started_at,
        now=session.started_at,
    )


async def _incremental(
    session: SyncSession,
    discovery: WikiDiscovery,
    *,
    last_run_at: datetime | None,
    refresh_all: bool,
) -> None:
    known = session.known_of(KIND)
    now = session.started_at
    interval = session.tenant.wiki_refresh_interval_seconds
    if refresh_all:
        due = sorted(known)
    else:
        due = wiki_probe.refresh_slice(
            known, now=now, interval_seconds=interval, last_run_at=last_run_at
        )
    await _refresh(session, due)

    position = wiki_probe.pass_position(discovery, now=now, interval_seconds=interval)
    if refresh_all and not position.due:  # pages of newly visible projects sit in the gaps
        position = wiki_probe.PassPosition(True, 0, now)
    highest = discovery.highest_id_seen
    if position.due:
        floor = max([*known, highest or 0], default=0)
        result = await wiki_probe.scan(
            lambda ids: _probe(session, ids),
            start=position.resume_after + 1,
            floor=floor,
            misses_to_stop=wiki_probe.miss_limit,
            budget=wiki_probe.GAP_PROBES_PER_RUN,
            skip=set(known),
            highest=highest,
        )
        await _apply_scan(session, result, refresh_ids=set(due))
        session.changes.wiki_discovery = wiki_probe.after_pass(
            discovery,
            highest=_highest(session),
            last_probed=result.last_probed,
            complete=result.complete,
            started_at=position.started_at or now,
            now=now,
        )
        return
    top = max([*known, highest or 0], default=0)
    result = await wiki_probe.scan(
        lambda ids: _probe(session, ids),
        start=top + 1,
        floor=top,
        misses_to_stop=lambda _highest: wiki_probe.FRONTIER,
        budget=None,
        skip=set(known),
        highest=top or None,
    )
    await _apply_scan(session, result, refresh_ids=set(due))
    session.changes.wiki_discovery = WikiDiscovery(
        _highest(session), discovery.last_full_probe_at, discovery.probed_ranges
    )


async def _refresh(session: SyncSession, ids: list[int]) -> None:
    """Re-read known pages: write changed ones, remove those that answer 404."""
    if not ids:
        return
    answers = await _probe(session, ids)
    pages = [page for page in answers if page is not None]
    await _write_pages(session, pages)
    await session.remove(
        KIND, [page_id for page_id, page in zip(ids, answers, strict=True) if page is None]
    )


async def _apply_scan(
    session: SyncSession, result: wiki_probe.ScanResult, *, refresh_ids: set[int]
) -> None:
    pages = [page for page_id, page in sorted(result.pages.items()) if page_id not in refresh_ids]
    await _write_pages(session, pages)
    tracked = set(session.known_of(KIND)) | set(
        await asyncio.to_thread(session.index.all_ids, KIND)
    )
    await session.remove(KIND, sorted(result.misses & tracked))


async def _write_pages(session: SyncSession, pages: list[WikiPage]) -> None:
    """Index the pages; learn from them whether the server sends page text."""
    await session.write([wiki_page_record(page) for page in pages])
    if pages and session.capabilities.wiki_text is None:
        learned = any(page.text is not None for page in pages)
        session.capabilities = session.capabilities.model_copy(update={"wiki_text": learned})
        stored = dict(session.changes.capabilities or {})
        stored["server"] = session.capabilities.model_dump(mode="json")
        session.changes.capabilities = stored


async def _probe(session: SyncSession, ids: list[int]) -> list[WikiPage | None]:
    return await session.bounded(
        ids, lambda page_id: wiki_probe.probe_one(session.client.wiki_page, page_id)
    )


def _highest(session: SyncSession) -> int | None:
    """The highest page id the index holds after this run's changes."""
    changes = session.changes
    present: Mapping[int, object] = changes.versions.get(KIND, {})
    removed = changes.deleted.get(KIND, set())
    ids = (set(session.known_of(KIND)) | set(present)) - removed
    return max(ids, default=None)
