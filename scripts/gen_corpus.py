"""Write a generated sandbox corpus file (seeded, deterministic), or the shipped sample corpus.

python scripts/gen_corpus.py --work-packages 10000 --seed 7 --out bench-results/10k.json
python scripts/gen_corpus.py --work-packages 100000 --vocabulary zipf --out bench-results/z.json
python scripts/gen_corpus.py --work-packages 2000 --publications --out bench-results/p.json
python scripts/gen_corpus.py --sample   # rewrite src/opindex/sandbox/data/sample_corpus.json

News, documents, versions, forum posts and attachments are generated only when asked for
(``--publications`` for proportional counts, or a count flag per kind), so corpora of the
same size and seed keep their bytes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from evallib.zipf_corpus import VOCABULARIES, write_generated
from opindex.errors import InvalidArgumentError, OpindexError
from opindex.sandbox.corpus_gen import CorpusSize, with_publications, write_corpus
from opindex.sandbox.sample_corpus import build_sample_corpus, sample_corpus_path

PUBLICATION_KINDS = ("news", "documents", "versions", "posts", "attachments")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work-packages", type=int, default=1000, metavar="N")
    parser.add_argument(
        "--wiki-pages", type=int, default=None, metavar="N", help="default: N work packages / 20"
    )
    parser.add_argument(
        "--meetings", type=int, default=None, metavar="N", help="default: N work packages / 25"
    )
    parser.add_argument(
        "--projects", type=int, default=None, metavar="N", help="default: 3 + N / 2000, max 12"
    )
    parser.add_argument(
        "--publications",
        action="store_true",
        help="also generate news, documents, versions, posts and attachments (per project "
        "3 news, 2 documents, 2 versions, 2 posts; attachments on 1 in 10 work packages or "
        "wiki pages, small PDF/DOCX/text files)",
    )
    for kind in PUBLICATION_KINDS:
        parser.add_argument(
            f"--{kind}", type=int, default=None, metavar="N", help=f"number of {kind}"
        )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--vocabulary",
        choices=VOCABULARIES,
        default="templates",
        help="templates (default): the sentence templates' few hundred words; zipf: running "
        "text over a Zipf vocabulary of millions of types (names, ids, typos, long wiki pages)",
    )
    parser.add_argument("--out", type=Path, help="corpus file to write")
    parser.add_argument(
        "--sample", action="store_true", help="rewrite the sample corpus shipped in the package"
    )
    args = parser.parse_args(argv)
    if not args.sample and args.out is None:
        parser.error("--out is required (or --sample)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    try:
        if args.sample:
            corpus = build_sample_corpus()
            out = sample_corpus_path()
            written = write_corpus(corpus, out)
            counts = [len(corpus[kind]) for kind in ("work_packages", "wiki_pages", "meetings")]
        else:
            size = CorpusSize.proportional(
                args.work_packages,
                wiki_pages=args.wiki_pages,
                meetings=args.meetings,
                projects=args.projects,
            )
            counts_given = {kind: getattr(args, kind) for kind in PUBLICATION_KINDS}
            if args.publications or any(n is not None for n in counts_given.values()):
                if any(n is not None and n < 0 for n in counts_given.values()):
                    raise InvalidArgumentError("record counts must not be negative")
                if not args.publications:  # only the kinds named on the command line
                    counts_given = {k: n or 0 for k, n in counts_given.items()}
                size = with_publications(size, **counts_given)
            out = args.out
            out.parent.mkdir(parents=True, exist_ok=True)
            # Record by record: a 1M-document corpus never sits in memory whole.
            written = write_generated(size, args.seed, args.vocabulary, out)
            counts = [size.work_packages, size.wiki_pages, size.meetings]
    except OpindexError as error:
        print(f"gen_corpus: {error}", file=sys.stderr)
        return 2
    kinds = ("work_packages", "wiki_pages", "meetings")
    summary = ", ".join(f"{count} {kind}" for count, kind in zip(counts, kinds, strict=True))
    elapsed = time.perf_counter() - started
    print(f"wrote {out} ({written / 1e6:.1f} MB: {summary}) in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
