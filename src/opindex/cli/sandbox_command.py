"""``opindex sandbox``: serve a corpus file as an OpenProject API v3 stand-in."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from opindex.sandbox import MEETINGS_API_LEVELS, MeetingsApi, SandboxOptions, serve


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``opindex sandbox`` and its options."""
    parser = subparsers.add_parser(
        "sandbox",
        help="serve a corpus file as an OpenProject API v3 stand-in",
        description=(
            "Serve a corpus file over HTTP with the shapes, defaults and errors of "
            "OpenProject API v3 (the subset opindex reads), plus /_sandbox control endpoints."
        ),
    )
    parser.add_argument("--corpus", required=True, type=Path, help="corpus JSON file")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--port", required=True, type=int, help="port to listen on (0 picks a free one)"
    )
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=0.0,
        metavar="MS",
        help="delay added to every API response (default 0)",
    )
    parser.add_argument(
        "--page-size-max",
        type=int,
        default=1000,
        metavar="N",
        help="maximum page size, like apiv3_max_page_size (default 1000)",
    )
    parser.add_argument(
        "--no-wiki-text",
        action="store_true",
        help="omit text (and slug/timestamps) from wiki pages, as released 17.x does",
    )
    parser.add_argument(
        "--wiki-list",
        action="store_true",
        help="serve GET /api/v3/wiki_pages and /api/v3/projects/{id}/wiki_pages",
    )
    parser.add_argument(
        "--meetings-api",
        choices=MEETINGS_API_LEVELS,
        default="17.6",
        metavar="LEVEL",
        help="how much of the meetings API exists: 16 | 17.4 | 17.6 (default 17.6)",
    )
    parser.add_argument(
        "--webhook-url",
        metavar="URL",
        help="send OpenProject webhooks for /_sandbox/mutate upserts to this URL",
    )
    parser.add_argument(
        "--webhook-secret",
        metavar="SECRET",
        help="sign those webhooks (X-OP-Signature: sha1=<hex HMAC-SHA1>) with this secret",
    )


def _announce(url: str) -> None:
    print(f"sandbox listening on {url}", flush=True)


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM. Raises ``CorpusError`` for a refused corpus."""
    options = SandboxOptions(
        corpus_path=args.corpus,
        host=args.host,
        port=args.port,
        latency_ms=args.latency_ms,
        page_size_max=args.page_size_max,
        wiki_text=not args.no_wiki_text,
        wiki_list=args.wiki_list,
        meetings_api=MeetingsApi(args.meetings_api),
        webhook_url=args.webhook_url,
        webhook_secret=args.webhook_secret,
    )
    asyncio.run(serve(options, _announce))
    sys.stdout.flush()
    return 0
