"""Filling sentence templates with consistent, distinctive details for generated records."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date, timedelta

from opindex.sandbox import corpus_vocabulary as vocab


class _Slots(dict[str, str]):
    """A ``format_map`` mapping that asks the filler for every placeholder."""

    def __init__(self, filler: TextFiller, deep: bool) -> None:
        super().__init__()
        self.filler = filler
        self.deep = deep

    def __missing__(self, key: str) -> str:
        return self.filler.slot(key, deep=self.deep)


class TextFiller:
    """Fills templates for one record at a time.

    Each record gets its own codewords, component, system and customer, so its title and
    body tell one consistent story. The *title* codeword appears in subjects and titles;
    a second, *deep* codeword appears only in bodies and comments, which makes deep-only
    known-item queries possible.
    """

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.people: Sequence[str] = ("Ada Admin",)
        self.codeword = vocab.CODEWORDS[0]
        self.deep_codeword = vocab.CODEWORDS[1]
        self.component = vocab.COMPONENTS[0]
        self.system = vocab.SYSTEMS[0]
        self.customer = vocab.CUSTOMERS[0]

    def start_record(self, people: Sequence[str]) -> None:
        """Pick the details of the next record; *people* are names that may be mentioned."""
        rng = self.rng
        self.people = people or ("Ada Admin",)
        self.codeword, self.deep_codeword = rng.sample(vocab.CODEWORDS, 2)
        self.component = rng.choice(vocab.COMPONENTS)
        self.system = rng.choice(vocab.SYSTEMS)
        self.customer = rng.choice(vocab.CUSTOMERS)

    def slot(self, key: str, *, deep: bool = False) -> str:
        rng = self.rng
        codeword = self.deep_codeword if deep else self.codeword
        values: dict[str, str] = {
            "codeword": codeword,
            "codeword_cap": codeword.capitalize(),
            "component": self.component,
            "system": self.system,
            "customer": self.customer,
        }
        if key in values:
            return values[key]
        if key == "person":
            return rng.choice(self.people)
        if key == "metric":
            return rng.choice(vocab.METRICS)
        if key == "environment":
            return rng.choice(vocab.ENVIRONMENTS)
        if key == "date":
            day = date(2026, 1, 5) + timedelta(days=rng.randint(0, 300))
            return day.isoformat()
        raise KeyError(key)

    def fill(self, template: str, *, deep: bool = False) -> str:
        """*template* with every ``{placeholder}`` replaced."""
        return template.format_map(_Slots(self, deep))

    def sentences(self, pool: Sequence[str], count: int, *, deep: bool = True) -> list[str]:
        picked = self.rng.sample(pool, min(count, len(pool)))
        return [self.fill(sentence, deep=deep) for sentence in picked]

    def description(self) -> str:
        """A work-package description: a paragraph, sometimes with a checklist."""
        rng = self.rng
        text = " ".join(self.sentences(vocab.DESCRIPTION_SENTENCES, rng.randint(2, 5)))
        if rng.random() < 0.3:
            steps = self.sentences(vocab.COMMENT_SENTENCES, rng.randint(2, 3))
            text += "\n\nTo do:\n" + "\n".join(f"- {step}" for step in steps)
        return text

    def comment(self, *, internal: bool) -> str:
        """A comment of one or two sentences (internal ones talk about sensitive things)."""
        pool = vocab.INTERNAL_COMMENT_SENTENCES if internal else vocab.COMMENT_SENTENCES
        return " ".join(self.sentences(pool, self.rng.randint(1, 2)))

    def agenda_notes(self) -> str:
        """Notes of an agenda item."""
        return " ".join(self.sentences(vocab.AGENDA_NOTES, self.rng.randint(1, 3)))


def wiki_body(filler: TextFiller, rng: random.Random) -> str:
    """A long Markdown wiki body: several sections of several paragraphs."""
    sections = rng.sample(vocab.WIKI_SECTIONS, rng.randint(3, 5))
    parts: list[str] = []
    for heading in sections:
        parts.append(f"## {heading}")
        for _ in range(rng.randint(1, 3)):
            parts.append(" ".join(filler.sentences(vocab.WIKI_SENTENCES, rng.randint(3, 5))))
    return "\n\n".join(parts)
