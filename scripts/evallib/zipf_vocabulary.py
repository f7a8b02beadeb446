"""A Zipf-distributed vocabulary of millions of word types, with names, identifiers and typos.

Word types are ranked: the word of rank *r* (0-based) is drawn with probability
proportional to ``1 / (r + 1) ** exponent``, as word frequencies in natural text are.
The first ranks are common English words; every further rank maps to a distinct made-up
word of syllables (an onset of consonants, then a run of vowels, so a word splits into its
syllables one way only and two ranks never give the same word). Frequent ranks get short
words, rare ranks long ones, and the syllable space is sparse so most typos of a word are
not another word. Everything random goes through the caller's seeded ``Random``.
"""

from __future__ import annotations

import functools
import itertools
import random
from array import array
from bisect import bisect
from collections.abc import Callable, Sequence

from opindex.sandbox import corpus_vocabulary as vocab

_COMMON_TEXT = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if "
    "so no will more can out about up what some them into only other time could new then "
    "these two may first any like now my such make over our even most also after did many "
    "before must through back years where much your way well down should because each just "
    "those people how too little state good very world still own see men work long get here "
    "between both life being under never day same another know while last might us great old "
    "year off come since against go came right used take three himself few house use during "
    "without again place around however home small found thought went say part once general "
    "high upon school every does got united left number course war until always away something "
    "fact though water less public put think almost hand enough far took head yet government "
    "system better set told nothing night end why called didn eyes find going look asked later "
    "point knew city next program business give group toward young days let room president "
    "side social given present several order national possible rather second face per among "
    "form important often things looked early white case john become large big need four "
    "within felt along children saw best church ever least power development light thing "
    "release deploy server ticket issue meeting review backlog sprint customer feature bug "
    "incident outage latency cluster database migration rollback config token report"
)
COMMON_WORDS = tuple(_COMMON_TEXT.split())
ONSETS = (
    "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
    "br", "dr", "gr", "st", "tr", "pl",
)  # fmt: skip
NUCLEI = ("a", "e", "i", "o", "u", "ai", "ou", "ei")
SYLLABLES = tuple(onset + nucleus for onset in ONSETS for nucleus in NUCLEI)
# Ranks after the common words: the next ones get two syllables, then three, then four.
# Each class fills a few per cent of its syllable space at most (sparse, see module doc).
CLASS_SIZES = (2_000, 300_000)
PERMUTE = 1_000_003  # a prime: coprime with every class's space size (a power of 192)
TICKET_PREFIXES = ("INC", "CHG", "PRB", "REQ", "SEC", "OPS", "BUG", "RFC")
HOST_ROLES = ("db", "web", "api", "cache", "queue", "worker", "lb", "mail", "vpn", "ci")
ENVIRONMENT_SUFFIXES = ("prod", "stage", "dev", "eu", "us", "internal")
MORE_FIRST_NAMES = (
    "Adaeze", "Bartholomew", "Cosima", "Dagny", "Eamon", "Farida", "Gunnhild", "Hiroshi",
    "Ismene", "Jarosław", "Katarzyna", "Leopold", "Magnús", "Nnamdi", "Odalys", "Pernille",
    "Quentin", "Rasmus", "Saoirse", "Thorvald", "Ulrike", "Vítězslav", "Wilhelmina", "Xiomara",
)  # fmt: skip
MORE_LAST_NAMES = (
    "Abernathy", "Błaszczykowski", "Castellanos", "Dąbrowska", "Eichhorn", "Fitzgerald",
    "Grünewald", "Hämäläinen", "Ibáñez", "Jankowski", "Kristiansen", "Lindgren", "Mbeki",
    "Nakamura", "Oyelaran", "Papadopoulos", "Quiñones", "Radović", "Szczepańska",
    "Thorsdóttir", "Urbański", "Vasquez", "Wrzesińska", "Zapatero",
)  # fmt: skip
FIRST_NAMES = (*vocab.FIRST_NAMES, *MORE_FIRST_NAMES)
LAST_NAMES = (*vocab.LAST_NAMES, *MORE_LAST_NAMES)


_COMMON = frozenset(COMMON_WORDS)


def _syllable_word(index: int, syllables: int) -> str:
    """The *index*-th word of *syllables* syllables, spread over the space by a permutation.

    Such words end in a vowel; one that happens to be a common word ("time") gets ``n``
    appended until it is none ("give" -> "given" -> "givenn"): no other syllable word ends
    in ``n``, so words stay distinct.
    """
    space = len(SYLLABLES) ** syllables
    code = (index * PERMUTE + 7919) % space
    parts = []
    for _ in range(syllables):
        code, digit = divmod(code, len(SYLLABLES))
        parts.append(SYLLABLES[digit])
    word = "".join(parts)
    while word in _COMMON:
        word += "n"
    return word


def word_of_rank(rank: int) -> str:
    """The word type of *rank* (0 is the most frequent); distinct ranks, distinct words."""
    if rank < 0:
        raise ValueError(f"rank must not be negative, got {rank}")
    if rank < len(COMMON_WORDS):
        return COMMON_WORDS[rank]
    index = rank - len(COMMON_WORDS)
    for syllables, size in enumerate(CLASS_SIZES, start=2):
        if index < size:
            return _syllable_word(index, syllables)
        index -= size
    return _syllable_word(index, len(CLASS_SIZES) + 2)


def _two_regimes(exponent: float, tail_from: int, tail_exponent: float) -> Callable[[int], float]:
    scale = tail_from ** (tail_exponent - exponent)

    def weight(rank: int) -> float:
        position = rank + 1
        if position <= tail_from:
            return float(position**-exponent)
        return float(scale * position**-tail_exponent)

    return weight


@functools.lru_cache(maxsize=2)
def _cumulative(types: int, exponent: float, tail_from: int, tail_exponent: float) -> array[float]:
    """Cumulative weights of ranks 0..types-1 (shared, never modified: 40 MB at 5M types)."""
    weight = _two_regimes(exponent, tail_from, tail_exponent)
    return array("d", itertools.accumulate(map(weight, range(types))))


class ZipfVocabulary:
    """Draws words by Zipf rank, and the other things real text is full of."""

    def __init__(
        self,
        rng: random.Random,
        *,
        types: int = 5_000_000,
        exponent: float = 1.0,
        tail_from: int = 5_000,
        tail_exponent: float = 1.3,
    ) -> None:
        if types < len(COMMON_WORDS) or min(exponent, tail_exponent) <= 0 or tail_from < 1:
            raise ValueError("need at least the common words and positive exponents")
        self.rng = rng
        self.types = types
        # Two regimes, as in large real corpora: Zipf's 1/r for the core vocabulary, a
        # steeper power law for the long tail (names, jargon, one-off words); continuous.
        self._weights = _two_regimes(exponent, tail_from, tail_exponent)
        self._cumulative = _cumulative(types, exponent, tail_from, tail_exponent)
        self._total = self._cumulative[-1]
        self._names = list(itertools.product(FIRST_NAMES, LAST_NAMES))
        self._name_cumulative = list(
            itertools.accumulate((r + 1) ** -0.8 for r in range(len(self._names)))
        )

    def share_of_rank(self, rank: int) -> float:
        """The probability of drawing the word of *rank*."""
        return self._weights(rank) / self._total

    def rank(self) -> int:
        """One Zipf-distributed rank."""
        return bisect(self._cumulative, self.rng.random() * self._total, 0, self.types - 1)

    def word(self) -> str:
        return word_of_rank(self.rank())

    def rare_word(self, min_rank: int = 1000) -> str:
        """A word of rank at least *min_rank* (a distinctive word, still Zipf-shaped)."""
        start = self._cumulative[min_rank - 1]
        point = start + self.rng.random() * (self._total - start)
        return word_of_rank(bisect(self._cumulative, point, min_rank, self.types - 1))

    def person(self) -> str:
        """A full name; a few names are common, most are rare."""
        point = self.rng.random() * self._name_cumulative[-1]
        first, last = self._names[bisect(self._name_cumulative, point, 0, len(self._names) - 1)]
        return f"{first} {last}"

    def ticket(self) -> str:
        return f"{self.rng.choice(TICKET_PREFIXES)}-{self.rng.randint(1000, 99999)}"

    def hostname(self) -> str:
        rng = self.rng
        return (
            f"{rng.choice(HOST_ROLES)}-{self.rare_word(200)}-{rng.randint(1, 40):02d}."
            f"{rng.choice(ENVIRONMENT_SUFFIXES)}.example.net"
        )

    def version(self) -> str:
        rng = self.rng
        return f"v{rng.randint(0, 12)}.{rng.randint(0, 40)}.{rng.randint(0, 200)}"

    def misspelling(self) -> str:
        """A word of five letters or more with one typo (swap, drop, double or replace)."""
        word = self.word()
        while len(word) < 5:
            word = self.word()
        rng = self.rng
        at = rng.randrange(1, len(word) - 1)
        edit = rng.randrange(4)
        if edit == 0:
            return word[: at - 1] + word[at] + word[at - 1] + word[at + 1 :]
        if edit == 1:
            return word[:at] + word[at + 1 :]
        if edit == 2:
            return word[:at] + word[at] + word[at:]
        return word[:at] + rng.choice("abcdefghijklmnopqrstuvwxyz") + word[at + 1 :]

    def token(self) -> str:
        """One token of running text: mostly words, sometimes a name, id, host or typo."""
        roll = self.rng.random()
        if roll < 0.88:
            return self.word()
        if roll < 0.92:
            return self.person()
        if roll < 0.95:
            return self.ticket()
        if roll < 0.965:
            return self.hostname()
        if roll < 0.98:
            return self.version()
        return self.misspelling()

    def sentence(self, low: int = 6, high: int = 18) -> str:
        """A sentence of *low* to *high* tokens, capitalized, with a full stop."""
        tokens = [self.token() for _ in range(self.rng.randint(low, high))]
        tokens[0] = tokens[0][:1].upper() + tokens[0][1:]
        if len(tokens) > 8 and self.rng.random() < 0.4:
            tokens[len(tokens) // 2] += ","
        return " ".join(tokens) + "."

    def sentences(self, count: int) -> Sequence[str]:
        return [self.sentence() for _ in range(count)]
