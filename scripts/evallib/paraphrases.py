"""The paraphrase query set of the meaning evaluation: loading it and the no-title-word rule."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from opindex.search import KINDS, Kind

QUERY_FILE = Path(__file__).resolve().parents[1] / "evaldata" / "meaning_queries.json"
SPLITS = ("queries", "held_out")
CORPORA = ("sample", "template")
# Words too common to give a record away; a query may share these with its target's title.
STOP_WORDS = frozenset(
    {"a", "an", "and", "at", "by", "for", "from", "how", "in", "into", "is", "it"}
    | {"of", "on", "or", "our", "the", "to", "we", "with"}
)
_WORD = re.compile(r"[0-9a-z]+")
_NUMBERED = re.compile(r" \(\d+\)$")


@dataclass(frozen=True, slots=True)
class Paraphrase:
    """A query describing one record of *corpus* without its title words. Every record of
    *kind* whose title is *title* (a trailing `` (N)`` ignored) counts as the answer."""

    split: str
    corpus: str
    kind: Kind
    title: str
    query: str


def load_paraphrases(path: Path = QUERY_FILE) -> tuple[dict[str, Any], list[Paraphrase]]:
    """The corpus settings and every query of the file, both splits."""
    data = json.loads(path.read_text(encoding="utf-8"))
    found: list[Paraphrase] = []
    for split in SPLITS:
        for item in data[split]:
            if item["corpus"] not in CORPORA or item["kind"] not in KINDS:
                raise ValueError(f"{split}: unknown corpus or kind in {item}")
            kind = cast(Kind, item["kind"])
            found.append(Paraphrase(split, item["corpus"], kind, item["title"], item["query"]))
    return data["corpora"], found


def plain_title(title: str) -> str:
    """*title* without the `` (N)`` the corpus generator adds to repeated titles."""
    return _NUMBERED.sub("", title)


def words_of(text: str) -> list[str]:
    """Lower-case words of *text*, accents folded (``Zürich`` → ``zurich``)."""
    folded = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(char for char in folded if not unicodedata.combining(char))
    return _WORD.findall(plain)


def shared_title_words(query: str, title: str) -> list[tuple[str, str]]:
    """(query word, title word) pairs that give the title away: equal words, one word a
    prefix of the other (4+ letters), or words sharing their first 5 letters. Stop words
    do not count."""
    title_words = [w for w in words_of(plain_title(title)) if w not in STOP_WORDS]
    clashes: list[tuple[str, str]] = []
    for word in words_of(query):
        if word in STOP_WORDS:
            continue
        for other in title_words:
            shorter, longer = sorted((word, other), key=len)
            prefix = len(shorter) >= 4 and longer.startswith(shorter)
            if word == other or prefix or (len(shorter) >= 5 and word[:5] == other[:5]):
                clashes.append((word, other))
    return clashes
