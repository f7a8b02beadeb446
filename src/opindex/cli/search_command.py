"""``opindex search``: ranked, typo-tolerant search from the command line (table or JSON)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TextIO

from opindex.cli.config_option import add_config_argument
from opindex.cli.exit_codes import EXIT_OK
from opindex.cli.terminal_text import visible
from opindex.config import Config, load_config
from opindex.envelope import (
    MAX_LIMIT,
    MAX_QUERY_LENGTH,
    GlobalSearchResponse,
    SearchRequest,
    SearchResponse,
    SearchResult,
)
from opindex.errors import InvalidArgumentError
from opindex.moments import parse_moment
from opindex.service import (
    KIND_KEYS,
    FilterNames,
    Kind,
    Query,
    Service,
    match_spans,
    parse_query,
)

KIND_ARGUMENTS: dict[str, Kind] = {key: kind for kind, key in KIND_KEYS.items()}
EVERY_KIND = "all"
"""``--kind all``: one ranking over every kind (the ``openproject_search`` tool)."""
BOLD, RESET = "\033[1m", "\033[0m"


def _limit(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= value <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIMIT}")
    return value


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``opindex search`` and its options."""
    parser = subparsers.add_parser(
        "search",
        help="search work packages, meetings or wiki pages",
        description=(
            "Ranked, typo-tolerant search. Answers from the tenant's index when it is fresh, "
            "live from OpenProject otherwise; the footer (or meta with --json) says which. "
            "When nothing matches, relaxed queries are tried unless --no-fallback."
        ),
    )
    parser.add_argument(
        "query", metavar="QUERY", help="what to look for (natural language is fine)"
    )
    parser.add_argument(
        "--kind",
        required=True,
        choices=[EVERY_KIND, *sorted(KIND_ARGUMENTS)],
        help="what kind of record ('all': every kind in one ranking)",
    )
    add_config_argument(parser)
    parser.add_argument(
        "--tenant", metavar="NAME", help="tenant to search (optional with one tenant)"
    )
    parser.add_argument("--json", action="store_true", help="print the JSON envelope")
    parser.add_argument(
        "--limit", type=_limit, default=10, metavar="N", help="results to show (default 10)"
    )
    parser.add_argument(
        "--source",
        choices=("auto", "index", "live"),
        default="auto",
        help="auto (default): index when fresh, else live; or force one path",
    )
    parser.add_argument(
        "--match-mode",
        choices=("fuzzy", "exact"),
        default="fuzzy",
        help="fuzzy (default) tolerates typos and reordering; exact is a literal substring",
    )
    parser.add_argument(
        "--no-fallback",
        action="store_true",
        help="do not relax the query when nothing matches (zero stays zero)",
    )
    parser.add_argument(
        "--project", metavar="PROJECT", help="only this project: id, identifier or name"
    )
    parser.add_argument(
        "--status",
        choices=("open", "closed", "all"),
        default="all",
        help="work packages only: open, closed or all (default)",
    )
    parser.add_argument(
        "--updated-after", metavar="DATE", help="only records updated at or after an ISO date"
    )
    parser.add_argument(
        "--updated-before", metavar="DATE", help="only records updated before an ISO date"
    )
    parser.add_argument(
        "--sort",
        choices=("relevance", "updated"),
        default="relevance",
        help="relevance (default) or updated: most recently updated first",
    )
    parser.add_argument(
        "--cursor", metavar="CURSOR", help="the next page: the cursor a previous answer printed"
    )


def build_request(args: argparse.Namespace) -> SearchRequest:
    """The SearchRequest the arguments describe."""
    if len(args.query) > MAX_QUERY_LENGTH:
        raise InvalidArgumentError(f"the query is longer than {MAX_QUERY_LENGTH} characters")
    return SearchRequest(
        kind=KIND_ARGUMENTS.get(args.kind, "work_package"),  # 'all': each kind in turn
        query=args.query,
        match_mode=args.match_mode,
        limit=args.limit,
        source=args.source,
        fallback=not args.no_fallback,
        status=args.status,
        updated_after=parse_moment(args.updated_after, "--updated-after"),
        updated_before=parse_moment(args.updated_before, "--updated-before"),
        sort=args.sort,
        cursor=args.cursor,
    )


def run(args: argparse.Namespace) -> int:
    """Load the configuration, search, print."""
    request = build_request(args)
    config = load_config(args.config)
    names = FilterNames(project=args.project, option_prefix="--")
    out = sys.stdout
    if args.kind == EVERY_KIND:
        everything = asyncio.run(_search_everything(config, request, args.tenant, names))
        if args.json:
            json.dump(everything.to_json_dict(), out, ensure_ascii=False, indent=2)
            out.write("\n")
        else:
            from opindex.mcp import render_global  # the MCP rendering: only for this table

            out.write(visible(render_global(everything)) + "\n")
        return EXIT_OK
    response = asyncio.run(_search(config, request, args.tenant, names))
    if args.json:
        json.dump(response.to_json_dict(), out, ensure_ascii=False, indent=2)
        out.write("\n")
    else:
        render_table(response, out, color=out.isatty(), filters=describe_filters(args))
    return EXIT_OK


async def _search_everything(
    config: Config, request: SearchRequest, tenant: str | None, names: FilterNames
) -> GlobalSearchResponse:
    async with Service.from_config(config) as service:
        return await service.search_everything(request, tenant=tenant, names=names)


async def _search(
    config: Config, request: SearchRequest, tenant: str | None, names: FilterNames
) -> SearchResponse:
    async with Service.from_config(config) as service:
        return await service.search(request, tenant=tenant, names=names)


def describe_filters(args: argparse.Namespace) -> str:
    """``project 999, status open`` for the filters that narrowed the search ("" for none)."""
    parts = [f"project {args.project}"] if args.project is not None else []
    if args.status != "all":
        parts.append(f"status {args.status}")
    if args.updated_after:
        parts.append(f"updated at or after {args.updated_after}")
    if args.updated_before:
        parts.append(f"updated before {args.updated_before}")
    return ", ".join(parts)


# --- the readable table -----------------------------------------------------------------


def highlight(text: str, query: Query, *, color: bool) -> str:
    """*text* made ``visible`` (no control character reaches the terminal) with the words
    that match *query* in bold (only when *color*)."""
    if not color or not text:
        return visible(text)
    spans = match_spans(text, query)
    pieces, position = [], 0
    for start, end in spans:
        pieces.append(visible(text[position:start]) + BOLD + visible(text[start:end]) + RESET)
        position = end
    return "".join(pieces) + visible(text[position:])


def _row(index: int, result: SearchResult, query: Query, color: bool) -> list[str]:
    title = highlight(result.title, query, color=color)
    fields = visible(", ".join(result.matched_fields)) or "-"
    lines = [f"{index:>2}. {result.score:.2f}  #{result.id}  {title}", f"      matched: {fields}"]
    if result.snippet and result.matched_fields[:1] != [_primary(result)]:
        lines.append(f"      {highlight(result.snippet, query, color=color)}")
    for item in result.matched_agenda_items or []:
        snippet = highlight(item.snippet or "", query, color=color)
        lines.append(f"      agenda item #{item.id} {visible(item.title)}: {snippet}")
    for comment in result.matched_comments or []:
        snippet = highlight(comment.snippet or "", query, color=color)
        lines.append(f"      comment #{comment.id}: {snippet}")
    return lines


def _primary(result: SearchResult) -> str:
    return "subject" if result.kind == "work_package" else "title"


def footer(response: SearchResponse) -> list[str]:
    """The meta lines under the table: path, freshness, relaxation, problems."""
    meta = response.meta
    shown = len(response.results)
    lines = [f"{shown} result(s) of {meta.total} · tenant {meta.tenant} · source {meta.source}"]
    freshness = f"index {meta.index_state}"
    if meta.age_seconds is not None:
        freshness += f" (synced {_age(meta.age_seconds)} ago)"
    lines[0] += f" · {freshness}"
    from opindex.mcp import relaxation_notice  # not for --json (DECISIONS D159)

    notice = relaxation_notice(meta)
    if notice is not None:
        lines.insert(0, notice)
    if meta.degraded:
        lines.append(f"degraded: {meta.enrichment_failures} record(s) could not be read completely")
    lines.extend(f"note: {note}" for note in meta.notes)
    if meta.next_cursor:
        lines.append(f"more: --cursor {meta.next_cursor}")
    return lines


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def render_table(response: SearchResponse, out: TextIO, *, color: bool, filters: str = "") -> None:
    """Print the results as a readable list with highlighted snippets, then the footer."""
    meta = response.meta
    query = parse_query(meta.effective_query, meta.match_mode)
    if meta.notice:
        out.write(meta.notice + "\n")
    if not response.results:
        said = f" {meta.original_query!r}" if meta.original_query.strip() else ""
        narrowed = f" with these filters: {filters}" if filters else ""
        out.write(visible(f"No {meta.kind.replace('_', ' ')}s match{said}{narrowed}.") + "\n")
    for index, result in enumerate(response.results, start=1):
        out.write("\n".join(_row(index, result, query, color)) + "\n")
    out.write(visible("\n".join(footer(response))) + "\n")
