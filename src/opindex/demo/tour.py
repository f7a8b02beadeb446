"""The demo tour: seven searches over the sample corpus, each showing one thing opindex does.

Every step names the record it should find, so a test can check that the shipped sample
corpus still tells the story. Steps go through the same ``Service`` the MCP tools use.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from opindex.envelope import GlobalSearchResponse, SearchRequest, SearchResponse
from opindex.mcp import (
    describe_source,
    meta_lines,
    plural,
    relaxation_notice,
    result_heading,
    result_lines,
)
from opindex.service import KIND_LABELS, Kind, Service

SHOWN_RESULTS = 3


@dataclass(frozen=True, slots=True)
class TourStep:
    """One search of the tour: what it shows, the query, the record it must surface.

    ``compare_live``: also run the query on the live path and show its answer beside the
    index's (the live path reads deep content of a few candidates only).
    """

    title: str
    explanation: str
    kind: Kind
    query: str
    expect_id: int
    compare_live: bool = False
    across_kinds: bool = False
    """Search every kind at once (``openproject_search``); ``kind`` is the expected one's."""


TOUR: tuple[TourStep, ...] = (
    TourStep(
        title="A typo",
        explanation='"certficate" is one edit away from "certificate"; words are matched '
        "with typo tolerance, then ranked.",
        kind="work_package",
        query="certficate renewal customer portal",
        expect_id=1001,
    ),
    TourStep(
        title="A word that appears only deep inside a comment",
        explanation='"flamingo" is in one comment of one work package, nowhere in a subject. '
        "The index has read every comment; a live search reads the comments of only the "
        "few candidates whose subjects look promising.",
        kind="work_package",
        query="flamingo",
        expect_id=1002,
        compare_live=True,
    ),
    TourStep(
        title="A question",
        explanation="Function words are ignored, and 'decide' meets 'decided' in a meeting "
        "outcome.",
        kind="meeting",
        query="what did we decide about hiring",
        expect_id=502,
    ),
    TourStep(
        title="A name without its diacritics",
        explanation='"jurgen muller" finds Jürgen Müller: accents are folded on both sides.',
        kind="meeting",
        query="jurgen muller",
        expect_id=504,
    ),
    TourStep(
        title="Zero hits, rescued by relaxation",
        explanation='No work package mentions "canary", so nothing matches both words. '
        "Instead of an empty answer, the search retries a relaxed query and says so.",
        kind="work_package",
        query="kubernetes canary",
        expect_id=1003,
    ),
    TourStep(
        title="A phrase that exists only inside an attached PDF",
        explanation="The supplier contract is a PDF attached to the certificate work package. "
        "A sync extracted its text once; the work package is found through it, and the hit "
        "names the file.",
        kind="work_package",
        query="indemnification clause",
        expect_id=1001,
    ),
    TourStep(
        title="Everything at once",
        explanation="One ranking over work packages, wiki pages, meetings, news, documents, "
        "projects, versions and attached files; every result says what it is.",
        kind="attachment",
        query="Vertragsstrafe",
        expect_id=951,
        across_kinds=True,
    ),
)


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """What one step found: the index's answer, the live one if compared, and whether the
    expected record was among the index's results."""

    step: TourStep
    response: SearchResponse | GlobalSearchResponse
    live: SearchResponse | None
    found_expected: bool


async def run_tour(
    service: Service, out: TextIO, steps: Sequence[TourStep] = TOUR
) -> list[StepOutcome]:
    """Run every step against ``service`` and print it to ``out``."""
    outcomes = []
    for number, step in enumerate(steps, start=1):
        outcomes.append(await _run_step(service, out, number, step))
    return outcomes


async def _run_step(service: Service, out: TextIO, number: int, step: TourStep) -> StepOutcome:
    label = "every kind" if step.across_kinds else plural(2, step.kind).split(" ", 1)[1]
    print(f"\n{number}. {step.title}: “{step.query}” ({label})", file=out)
    print(f"   {step.explanation}", file=out)
    if step.across_kinds:
        return await _run_across_kinds(service, out, step)
    response, seconds = await _timed_search(service, step, "auto")
    print(f"   → {describe_source(response.meta)}, {seconds * 1000:.0f} ms", file=out)
    _print_results(out, response)
    live = None
    if step.compare_live:
        live, seconds = await _timed_search(service, step, "live")
        print(f"   The live path, for comparison ({seconds:.1f} s):", file=out)
        _print_results(out, live)
    found = any(result.id == step.expect_id for result in response.results)
    return StepOutcome(step, response, live, found)


async def _run_across_kinds(service: Service, out: TextIO, step: TourStep) -> StepOutcome:
    request = SearchRequest(kind=step.kind, query=step.query, limit=SHOWN_RESULTS)
    started = time.perf_counter()
    response = await service.search_everything(request)
    seconds = time.perf_counter() - started
    sources = {(answer.source, answer.index_state) for answer in response.meta.kinds}
    if len(sources) == 1 and next(iter(sources))[0] == "index":
        where = f"answered from the {next(iter(sources))[1]} index"
    else:
        where = "answered partly live"
    print(f"   → {where}, {len(response.meta.kinds)} kinds, {seconds * 1000:.0f} ms", file=out)
    for rank, result in enumerate(response.results, start=1):
        kind = KIND_LABELS[result.kind][0]
        print(f"   {rank}. {result_heading(result)} [{kind}]", file=out)
        for line in result_lines(result):
            if not line.startswith("http"):
                print(f"      {line}", file=out)
    found = any((r.kind, r.id) == (step.kind, step.expect_id) for r in response.results)
    return StepOutcome(step, response, None, found)


async def _timed_search(
    service: Service, step: TourStep, source: str
) -> tuple[SearchResponse, float]:
    request = SearchRequest.model_validate(
        {"kind": step.kind, "query": step.query, "source": source, "limit": SHOWN_RESULTS}
    )
    started = time.perf_counter()
    response = await service.search(request)
    return response, time.perf_counter() - started


def _print_results(out: TextIO, response: SearchResponse) -> None:
    notice = relaxation_notice(response.meta)
    for line in [notice] if notice else []:
        print(f"   {line}", file=out)
    for line in meta_lines(response.meta):
        print(f"   {line}", file=out)
    if not response.results:
        print("   (no result)", file=out)
    for rank, result in enumerate(response.results, start=1):
        print(f"   {rank}. {result_heading(result)}", file=out)
        for line in result_lines(result):
            if not line.startswith("http"):
                print(f"      {line}", file=out)
