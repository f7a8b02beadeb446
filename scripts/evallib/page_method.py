"""The fixed prose of docs/BENCHMARKS.md: how the figures are made and what they mean."""

from __future__ import annotations

from evallib.markdown import table

CATEGORY_ROWS: tuple[tuple[str, str], ...] = (
    (
        "title",
        "words of the title / subject, in their order",
    ),
    (
        "deep_only",
        "words of a description, comment, agenda item, outcome or wiki body, none of "
        "which scores against any word the live path sees before enrichment (title; for "
        "meetings also location, project, author)",
    ),
    (
        "typo",
        "title or body words; one word of ≥ 5 letters gets one typo: a dropped letter, "
        "two adjacent letters swapped, a neighbouring key inserted or substituted "
        "(QWERTY)",
    ),
    (
        "reordered",
        "2–4 title or body words, shuffled out of their order",
    ),
    (
        "question",
        '2–3 words wrapped in a question with one content word ("is there a ticket about '
        '…?", "what did we decide about …?", "where is … documented?")',
    ),
    (
        "diacritics",
        "a word with diacritics (names, customers, places) plus rarer words of the same "
        "value, typed without diacritics: stripped (Müller → Muller) or transliterated "
        "(Müller → Mueller, Weißenburg → Weissenburg)",
    ),
    (
        "closed_work_package",
        "title or body words of a closed work package (searched with the default status "
        "filter, all)",
    ),
    (
        "needs_relaxation",
        "two of the record's words plus two plausible words the corpus never uses "
        '("grafana", "okta"); as written the query matches no record (checked against the'
        " whole corpus), so only relaxation can find the record",
    ),
    (
        "no_hit",
        "one to three words the corpus never uses, half of them with one common corpus "
        "word added; nothing should be returned, or only results flagged as relaxed",
    ),
)


METHOD_TEMPLATE = """\
## How these figures are made

**One command.** `scripts/bench_all` runs every benchmark below and then
`scripts/render_benchmarks.py`, which rewrites this page and its plots from the JSON
files the benchmarks leave in `bench-results/` (ignored by git). `scripts/bench_all
--full` adds the 100k-work-package sizes. Each section names the command behind it.
Machines are shared and noisy: compare figures measured side by side in one run; the
load average of each run is listed at the top.

**Corpora.** `opindex.sandbox.corpus_gen` (seed 7): N work packages with descriptions
and comments, N/20 wiki pages with long bodies, N/25 meetings with agenda items,
outcomes and participants, names with diacritics, open and closed statuses, several
projects. The files are cached in `bench-results/corpora/`. *Search* and *Cold start*
use the same records with Zipf text (`scripts/gen_corpus.py --vocabulary zipf`): running
text over millions of word types (frequency ∝ 1/rank, steeper in the tail), with person
names, ticket ids, host names, versions, misspellings and wiki pages of about 1,300
tokens; 260k distinct tokens at 10k documents, 1.2 million at 100k (30.9 million tokens).

**Indexes.** Every benchmark tenant is built by the real syncer (`sync_tenant`) reading
the real sandbox application in process (`httpx.ASGITransport`): the same requests and
code as over the network, without ~11,000 loopback round trips per 10k tenant. The data
directory is cached in `bench-results/tenants/`, keyed by the corpus hash and a hash of
the code that decides what is indexed. Sync speed itself is measured in *Sync*. The
tenants of *Search* and *Cold start* are built in bulk (`scripts/evallib/bulk_tenant.py`):
the corpus records go through the sandbox's HAL representers, the client's models and the
syncer's record conversion straight into the index, without a request per record (a
test checks the result equals a real sync's); their build time and disk size are listed.

**Known-item queries** (`scripts/evallib/querygen.py`, seeded; written to
`bench-results/queries/*.json` and replayable with `eval_recall.py --queries FILE`).
A query picks one record and one field value of it, and takes the 1–4 words of that
value with the lowest document frequency in the record's kind (more, up to 4, while
more than 3 records contain all of them). The record is the expected answer.

{categories}

Words that never occur are drawn from a fixed list and kept only if neither they nor
their prefixes score against any corpus token. Generated corpora repeat sentence
templates, so a few records may contain every word of a query: a hit counts when the
expected record is in the top k, and ties with identical text are possible.

**Metrics.** recall@k: share of a category's queries whose expected record ranks ≤ k.
MRR: mean reciprocal rank within the top 10 (a miss counts 0). *overall*: all known-item
queries pooled. No-hit precision: share of no-hit queries answered with nothing or only
with results flagged as relaxed (`meta.wildcard_fallback`). Relaxation success: share of
needs-relaxation queries answered with the expected record in the top 10 by a flagged
relaxed query. Latency: nearest-rank p50/p95 of wall time per search, measured at the
caller.

**Paths.** *index*: `Service.search(source="index")`, no API call. *live*:
`Service.search(source="live")` against `opindex sandbox` over HTTP: list requests plus
enrichment of at most 25 records (spec §6.1: deep-only matches outside that window are
missed). *substring*: what OpenProject's `subject ~ text` filter does — the whole query,
case-insensitive, as a substring of the title, newest first — applied to every kind.

**Sockets.** The benchmarks start `opindex sandbox` and `opindex serve --transport http`
through `scripts/evallib/nodelay_main.py`. A listening socket created with protocol 0 and
without TCP_NODELAY gives connections on which every response written in two parts waits
for the client's delayed ACK (~40 ms per request; asyncio enables TCP_NODELAY only on
sockets created with IPPROTO_TCP); the wrapper rebinds such a socket with IPPROTO_TCP and
changes nothing otherwise (the sandbox now sets TCP_NODELAY itself).
"""


METHOD = METHOD_TEMPLATE.format(
    categories=table(["category", "how the query is made"], CATEGORY_ROWS, "ll")
)
