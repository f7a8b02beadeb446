"""Known-item queries generated from a corpus: each names the record it must find.

A query takes 1-4 distinctive (low document frequency) words from one field value of a
record, then may mistype one word, reorder the words, wrap them in a question, drop
their diacritics, or add words found nowhere in the corpus. The record is the expected
answer. "No-hit" queries expect nothing. Everything is drawn from one seeded Random, so
the same corpus and seed give the same queries.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, get_args

from evallib.corpus_view import TITLE_FIELD, CorpusItem
from evallib.folding import FoldStyle, fold, has_diacritics
from evallib.query_words import (
    FOREIGN_WORDS,
    MAX_AMBIGUITY,
    MAX_WORDS,
    CorpusStats,
    Word,
    value_words,
)
from evallib.typos import MIN_TYPO_LENGTH, inject_typo
from opindex.search.document import Kind
from opindex.search.score import score_token
from opindex.search.tokenizer import token_texts

Category = Literal[
    "title",
    "deep_only",
    "typo",
    "reordered",
    "question",
    "diacritics",
    "closed_work_package",
    "split_field",
    "needs_relaxation",
    "no_hit",
]
CATEGORIES: tuple[Category, ...] = get_args(Category)
GENERATOR_VERSION = 2
"""Part of the query file name: a generator with other categories writes another file."""
# Content fields a user may remember besides the title (participants are names shared by
# many meetings, so they are not distinctive on their own).
DEEP_FIELDS: Mapping[Kind, tuple[str, ...]] = {
    "work_package": ("description", "comments"),
    "wiki_page": ("text",),
    "meeting": ("agenda_title", "agenda_notes", "outcome_notes"),
}
# Fields the live path scores before enriching anything (besides the title).
SHALLOW_EXTRA: Mapping[Kind, tuple[str, ...]] = {
    "work_package": (),
    "wiki_page": (),
    "meeting": ("location", "project", "author"),
}
# Questions with exactly one content word besides the record's words ("ticket", "decide"):
# the rest are stop words, as an assistant would phrase them.
QUESTIONS: Mapping[Kind, tuple[str, ...]] = {
    "work_package": (
        "is there a ticket about {q}?",
        "what is happening with {q}?",
        "show me the issue about {q}",
        "anything about {q}?",
    ),
    "wiki_page": (
        "where is {q} documented?",
        "how do we handle {q}?",
        "is there a page about {q}?",
    ),
    "meeting": (
        "what did we decide about {q}?",
        "when did we discuss {q}?",
        "who talked about {q}?",
    ),
}
KIND_SHARES: Mapping[Kind, float] = {"work_package": 0.5, "wiki_page": 0.25, "meeting": 0.25}


@dataclass(frozen=True, slots=True)
class KnownItemQuery:
    """One generated query and its expected answer (None: nothing should match).

    ``words`` are the record's words the query was made from (before any typo or
    folding); ``ambiguity`` counts the records of the kind containing all of them.
    """

    qid: str
    category: Category
    kind: Kind
    query: str
    expected_id: int | None
    field: str | None = None
    words: tuple[str, ...] = ()
    ambiguity: int = 0
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["words"] = list(self.words)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> KnownItemQuery:
        if data.get("category") not in CATEGORIES:
            raise ValueError(f"unknown query category {data.get('category')!r}")
        return cls(
            qid=str(data["qid"]),
            category=data["category"],
            kind=data["kind"],
            query=str(data["query"]),
            expected_id=None if data.get("expected_id") is None else int(data["expected_id"]),
            field=data.get("field"),
            words=tuple(data.get("words", ())),
            ambiguity=int(data.get("ambiguity", 0)),
            note=str(data.get("note", "")),
        )


ZeroHits = Callable[[Kind, str], bool]
"""Says whether a query matches no record of a kind (an exhaustive ranking of the corpus)."""


class QueryGenerator:
    """Generates *per_category* queries of every category from *items*.

    *zero_hits*, when given, confirms that "needs relaxation" and "no-hit" queries match
    nothing as written; without it they are taken on trust (tests on tiny corpora).
    """

    def __init__(
        self,
        items: Sequence[CorpusItem],
        *,
        seed: int = 0,
        per_category: int = 40,
        zero_hits: ZeroHits | None = None,
        foreign_words: Sequence[str] = FOREIGN_WORDS,
    ) -> None:
        self.items = list(items)
        self.rng = random.Random(seed)
        self.per_category = per_category
        self.zero_hits = zero_hits
        self.stats = CorpusStats(self.items)
        self.foreign = [w for w in foreign_words if not self.stats.reaches(w)]
        self.kinds: dict[Kind, list[CorpusItem]] = {}
        for item in self.items:
            self.kinds.setdefault(item.kind, []).append(item)

    # --- word choice ------------------------------------------------------------------

    def _title_values(self, item: CorpusItem) -> list[tuple[str, str]]:
        name = TITLE_FIELD[item.kind]
        return [(name, value) for value in item.fields.get(name, ())]

    def _deep_values(self, item: CorpusItem) -> list[tuple[str, str]]:
        return [
            (name, value) for name in DEEP_FIELDS[item.kind] for value in item.fields.get(name, ())
        ]

    def _shallow_tokens(self, item: CorpusItem) -> set[str]:
        names = (TITLE_FIELD[item.kind], *SHALLOW_EXTRA[item.kind])
        return {t for name in names for v in item.fields.get(name, ()) for t in token_texts(v)}

    def _distinctive(
        self, item: CorpusItem, words: Sequence[Word], count: int
    ) -> tuple[list[Word], int] | None:
        """The *count* rarest words (more, up to 4, while too ambiguous), in text order."""
        kind = item.kind
        ranked = sorted(
            words, key=lambda w: (self.stats.frequency(kind, w.token), self.rng.random())
        )
        for size in range(count, MAX_WORDS + 1):
            if size > len(ranked):
                return None
            chosen = ranked[:size]
            ambiguity = self.stats.ambiguity(kind, [w.token for w in chosen])
            if ambiguity <= MAX_AMBIGUITY:
                return [w for w in words if w in chosen], ambiguity
        return None

    def _pick(
        self, item: CorpusItem, source: str, count: int, *, deep_only: bool = False
    ) -> tuple[str, list[Word], int] | None:
        """(field, words, ambiguity) from one value of a *source* ("title"/"deep") field."""
        values = self._title_values(item) if source == "title" else self._deep_values(item)
        if not values:
            return None
        field, text = self.rng.choice(values)
        words = value_words(text)
        if deep_only:
            shallow = self._shallow_tokens(item)
            words = [w for w in words if not any(score_token(w.token, s) > 0 for s in shallow)]
        picked = self._distinctive(item, words, count)
        if picked is None:
            return None
        return field, picked[0], picked[1]

    def _count(self, low: int = 1) -> int:
        return self.rng.choices(range(low, MAX_WORDS + 1), [15, 35, 35, 15][low - 1 :])[0]

    def _source(self, title_share: float = 0.5) -> str:
        return "title" if self.rng.random() < title_share else "deep"

    # --- one query per category -------------------------------------------------------

    def _query(
        self, category: Category, item: CorpusItem, picked: tuple[str, list[Word], int],
        text: str, note: str = "",
    ) -> KnownItemQuery:  # fmt: skip
        field, words, ambiguity = picked
        return KnownItemQuery(
            qid="",
            category=category,
            kind=item.kind,
            query=text,
            expected_id=item.id,
            field=field,
            words=tuple(w.surface for w in words),
            ambiguity=ambiguity,
            note=note,
        )

    def title(self, item: CorpusItem) -> KnownItemQuery | None:
        picked = self._pick(item, "title", self._count())
        return None if picked is None else self._query("title", item, picked, _join(picked[1]))

    def deep_only(self, item: CorpusItem) -> KnownItemQuery | None:
        picked = self._pick(item, "deep", self._count(), deep_only=True)
        return None if picked is None else self._query("deep_only", item, picked, _join(picked[1]))

    def typo(self, item: CorpusItem) -> KnownItemQuery | None:
        picked = self._pick(item, self._source(), self._count(2))
        if picked is None:
            return None
        words = picked[1]
        long_words = [i for i, w in enumerate(words) if len(w.surface) >= MIN_TYPO_LENGTH]
        if not long_words:
            return None
        position = self.rng.choice(long_words)
        try:
            typo, kind = inject_typo(words[position].surface, self.rng)
        except ValueError:
            return None
        surfaces = [w.surface for w in words]
        note = f"{kind}: {surfaces[position]} -> {typo}"
        surfaces[position] = typo
        return self._query("typo", item, picked, " ".join(surfaces), note)

    def reordered(self, item: CorpusItem) -> KnownItemQuery | None:
        picked = self._pick(item, self._source(), self._count(2))
        if picked is None or len(picked[1]) < 2:
            return None
        order = list(picked[1])
        self.rng.shuffle(order)
        if order == picked[1]:
            order.reverse()
        return self._query("reordered", item, picked, _join(order))

    def question(self, item: CorpusItem) -> KnownItemQuery | None:
        picked = self._pick(item, self._source(), self.rng.choice((2, 3)))
        if picked is None or len(picked[1]) < 2:
            return None
        template = self.rng.choice(QUESTIONS[item.kind])
        return self._query("question", item, picked, template.format(q=_join(picked[1])))

    def diacritics(self, item: CorpusItem) -> KnownItemQuery | None:
        values = [*self._title_values(item), *self._deep_values(item)]
        values += [(n, v) for n in SHALLOW_EXTRA[item.kind] for v in item.fields.get(n, ())]
        values += [("participants", v) for v in item.fields.get("participants", ())]
        values = [(n, v) for n, v in values if not v.isascii()]
        if not values:
            return None
        field, text = self.rng.choice(values)
        words = value_words(text)
        accented = [w for w in words if has_diacritics(w.surface)]
        if not accented:
            return None
        anchor = self.rng.choice(accented)
        others = [w for w in words if w != anchor]
        best: tuple[list[Word], int] | None = None
        for extra in range(0, 3):
            ranked = sorted(others, key=lambda w: self.stats.frequency(item.kind, w.token))
            chosen = [anchor, *ranked[:extra]]
            ambiguity = self.stats.ambiguity(item.kind, [w.token for w in chosen])
            if ambiguity <= MAX_AMBIGUITY:
                best = ([w for w in words if w in chosen], ambiguity)
                break
        if best is None:
            return None
        style: FoldStyle = self.rng.choice(("strip", "transliterate"))
        folded = [fold(w.surface, style) for w in best[0]]
        note = f"{style}: {anchor.surface} -> {fold(anchor.surface, style)}"
        return self._query("diacritics", item, (field, best[0], best[1]), " ".join(folded), note)

    def closed_work_package(self, item: CorpusItem) -> KnownItemQuery | None:
        if item.kind != "work_package" or not item.closed:
            return None
        picked = self._pick(item, self._source(0.7), self.rng.choice((2, 3)))
        if picked is None:
            return None
        return self._query("closed_work_package", item, picked, _join(picked[1]))

    def split_field(self, item: CorpusItem) -> KnownItemQuery | None:
        """The rarest title word that the chosen deep field lacks, and the rarest word of
        one value of that deep field that the title lacks: no single field holds both."""
        titles, deeps = self._title_values(item), self._deep_values(item)
        if not titles or not deeps:
            return None
        title_field, title = self.rng.choice(titles)
        deep_field, deep = self.rng.choice(deeps)
        title_words, deep_words = value_words(title), value_words(deep)
        in_title = {t for v in item.fields.get(title_field, ()) for t in token_texts(v)}
        in_deep = {t for v in item.fields.get(deep_field, ()) for t in token_texts(v)}
        only_title = [w for w in title_words if w.token not in in_deep]
        only_deep = [w for w in deep_words if w.token not in in_title]
        if not only_title or not only_deep:
            return None
        kind = item.kind
        chosen = [
            min(words, key=lambda w: (self.stats.frequency(kind, w.token), w.token))
            for words in (only_title, only_deep)
        ]
        ambiguity = self.stats.ambiguity(kind, [w.token for w in chosen])
        if ambiguity > MAX_AMBIGUITY:
            return None
        self.rng.shuffle(chosen)
        picked = (f"{title_field}+{deep_field}", chosen, ambiguity)
        return self._query("split_field", item, picked, _join(chosen))

    def needs_relaxation(self, item: CorpusItem) -> KnownItemQuery | None:
        """Two of the record's words plus two words the corpus never uses."""
        if len(self.foreign) < 2:
            return None
        picked = self._pick(item, self._source(), 2)
        if picked is None or len(picked[1]) != 2:
            return None
        strangers = self.rng.sample(self.foreign, 2)
        surfaces = [w.surface for w in picked[1]]
        for stranger in strangers:
            surfaces.insert(self.rng.randint(0, len(surfaces)), stranger)
        text = " ".join(surfaces)
        if self.zero_hits is not None and not self.zero_hits(item.kind, text):
            return None
        note = f"not in the corpus: {', '.join(strangers)}"
        return self._query("needs_relaxation", item, picked, text, note)

    def no_hit(self, kind: Kind) -> KnownItemQuery | None:
        """Words the corpus never uses; half the time with one common corpus word."""
        if not self.foreign:
            return None
        words = self.rng.sample(self.foreign, min(len(self.foreign), self.rng.randint(1, 3)))
        note = "no corpus word"
        if self.rng.random() < 0.5 and len(self.foreign) >= 2:
            common = self.stats.frequent(kind, 30)
            if common:
                words = [self.rng.choice(common), *self.rng.sample(self.foreign, 2)]
                note = f"one common corpus word ({words[0]}): only relaxed results may come back"
        self.rng.shuffle(words)
        text = " ".join(words)
        if self.zero_hits is not None and not self.zero_hits(kind, text):
            return None
        return KnownItemQuery("", "no_hit", kind, text, None, note=note)

    # --- the whole set ----------------------------------------------------------------

    def _quota(self, category: Category) -> list[tuple[Kind, int]]:
        if category == "closed_work_package":
            return [("work_package", self.per_category)]
        kinds = [k for k in KIND_SHARES if self.kinds.get(k)]
        total = sum(KIND_SHARES[k] for k in kinds)
        quota = [(k, int(self.per_category * KIND_SHARES[k] / total)) for k in kinds]
        missing = self.per_category - sum(n for _, n in quota)
        return [(k, n + (missing if i == 0 else 0)) for i, (k, n) in enumerate(quota)]

    def _for_category(self, category: Category) -> list[KnownItemQuery]:
        made: list[KnownItemQuery] = []
        shortfall = 0
        for kind, wanted in self._quota(category):
            wanted += shortfall
            found: list[KnownItemQuery] = []
            if category == "no_hit":
                for _ in range(wanted * 20):
                    if len(found) >= wanted:
                        break
                    query = self.no_hit(kind)
                    if query is not None and query.query not in {q.query for q in found}:
                        found.append(query)
            else:
                builder = getattr(self, category)
                pool = list(self.kinds.get(kind, []))
                self.rng.shuffle(pool)
                for item in pool:
                    if len(found) >= wanted:
                        break
                    query = builder(item)
                    if query is not None:
                        found.append(query)
            shortfall = wanted - len(found)
            made.extend(found)
        return made

    def generate(self) -> list[KnownItemQuery]:
        """Every category's queries, numbered ``<category>-NNN``."""
        queries: list[KnownItemQuery] = []
        for category in CATEGORIES:
            for number, query in enumerate(self._for_category(category), start=1):
                queries.append(_numbered(query, f"{category}-{number:03d}"))
        return queries


def _join(words: Sequence[Word]) -> str:
    return " ".join(w.surface for w in words)


def _numbered(query: KnownItemQuery, qid: str) -> KnownItemQuery:
    data = query.to_json()
    data["qid"] = qid
    return KnownItemQuery.from_json(data)
