"""Names instead of ids: the projects, users, statuses and types an account can see.

A model knows "platform" or "Jürgen Müller", not project 2 or user 101. A ``Directory``
lists what the account can see (read live, kept for a few minutes) and resolves a name to
its id: exactly (case, accents and punctuation ignored), else by a unique partial match;
an unknown or ambiguous name is an ``InvalidArgumentError`` listing the closest entries.
"""

from __future__ import annotations

import asyncio
import difflib
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from opindex.envelope import MAX_ID
from opindex.errors import InvalidArgumentError, NotFoundError, PermissionDeniedError

if TYPE_CHECKING:
    from opindex.openproject import OpenProjectClient

DirectoryKind = Literal["projects", "users", "statuses", "types"]
DIRECTORY_KINDS: tuple[DirectoryKind, ...] = ("projects", "users", "statuses", "types")
DIRECTORY_TTL_SECONDS = 300.0
"""How long a directory read from OpenProject is reused before it is read again."""
MAX_CANDIDATES_LISTED = 6
"""Most entries an unknown-name error lists."""

_SINGULAR: dict[DirectoryKind, str] = {
    "projects": "project",
    "users": "user",
    "statuses": "status",
    "types": "type",
}


@dataclass(frozen=True, slots=True)
class Entry:
    """One project, user, status or type: its id, name and other handle.

    ``handle`` is a project's identifier or a user's login (None when unknown, e.g. the
    login of another user to a non-admin); ``closed`` a status's closed flag.
    """

    id: int
    name: str
    handle: str | None = None
    closed: bool | None = None

    def label(self) -> str:
        """``Platform Engineering (platform, id 2)``."""
        handle = f"{self.handle}, " if self.handle else ""
        return f"{self.name} ({handle}id {self.id})"


def fold(text: str) -> str:
    """*text* compared loosely: case, accents and punctuation ignored, ``ß`` as ``ss``."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    kept = "".join(c for c in decomposed if not unicodedata.combining(c))
    kept = kept.replace("ø", "o").replace("ł", "l").replace("đ", "d").replace("ı", "i")
    words = "".join(c if c.isalnum() else " " for c in kept)
    return " ".join(words.split())


def _keys(entry: Entry) -> list[str]:
    return [fold(text) for text in (entry.name, entry.handle) if text]


@dataclass(frozen=True, slots=True)
class Directory:
    """What one account can see, by kind; ``me`` is the account's own user id."""

    projects: tuple[Entry, ...]
    users: tuple[Entry, ...]
    statuses: tuple[Entry, ...]
    types: tuple[Entry, ...]
    me: int | None = None

    def entries(self, kind: DirectoryKind) -> tuple[Entry, ...]:
        """The entries of *kind*, by id."""
        found: tuple[Entry, ...] = getattr(self, kind)
        return found

    def matching(self, kind: DirectoryKind, text: str | None) -> list[Entry]:
        """Entries of *kind* whose name or handle contains *text* loosely (all for None)."""
        entries = list(self.entries(kind))
        wanted = fold(text or "")
        if not wanted:
            return entries
        return [entry for entry in entries if any(wanted in key for key in _keys(entry))]

    def resolve(
        self,
        kind: DirectoryKind,
        argument: str,
        ref: int | str,
        *,
        hint: bool = True,
        digits_are_ids: bool = True,
    ) -> int:
        """The id *ref* names among the entries of *kind*; *argument* names the tool
        argument in errors (*hint*: they point at the look-up tool). Numbers are ids, and
        so are digit strings when *digits_are_ids* (the command line's text); otherwise a
        digit string is a name like any other."""
        if isinstance(ref, int) and not isinstance(ref, bool):
            return ref
        text = str(ref).strip()
        if digits_are_ids and text.lstrip("-").isdigit():
            value = int(text)
            if not 1 <= value <= MAX_ID:
                raise InvalidArgumentError(
                    f"{argument}: ids are numbers from 1 to {MAX_ID}, not {text}"
                )
            return value
        if kind == "users" and text.casefold() == "me":
            if self.me is None:
                raise InvalidArgumentError(f"{argument}: the account's own user is unknown")
            return self.me
        wanted = fold(text)
        if not wanted:
            raise InvalidArgumentError(f"{argument}: give an id or a name, not {ref!r}")
        entries = self.entries(kind)
        exact = [entry for entry in entries if wanted in _keys(entry)]
        if len(exact) == 1:
            return exact[0].id
        partial = exact or [
            entry
            for entry in entries
            if any(f" {wanted} " in f" {key} " or key.startswith(wanted) for key in _keys(entry))
        ]
        if len(partial) == 1:
            return partial[0].id
        singular = _SINGULAR[kind]
        if partial:
            listed = "; ".join(entry.label() for entry in partial[:MAX_CANDIDATES_LISTED])
            raise InvalidArgumentError(
                f"{argument}: {ref!r} matches {len(partial)} {kind}: {listed}. "
                f"Pass the id or the full name of the {singular} you mean."
            )
        lookup = f", or call openproject_lookup with kind {kind!r} to list them" if hint else ""
        raise InvalidArgumentError(
            f"{argument}: no {singular} called {ref!r} is visible to this account. "
            f"{self._closest(kind, wanted)} Pass one of these (id or name){lookup}."
        )

    def _closest(self, kind: DirectoryKind, wanted: str) -> str:
        entries = self.entries(kind)
        scored = sorted(
            entries,
            key=lambda entry: (
                -max(difflib.SequenceMatcher(None, wanted, key).ratio() for key in _keys(entry))
            ),
        )
        if not scored:
            return f"This account sees no {kind}."
        listed = "; ".join(entry.label() for entry in scored[:MAX_CANDIDATES_LISTED])
        return f"Closest: {listed}."


async def read_directory(client: OpenProjectClient) -> Directory:
    """Everything the account behind *client* can see, read in parallel.

    A server that refuses the user listing (403/404) leaves only the account itself.
    """
    me = await client.ensure_identity()

    async def projects() -> tuple[Entry, ...]:
        found = await client.projects().collect()
        return tuple(Entry(p.id, p.name, p.identifier) for p in found)

    async def users() -> tuple[Entry, ...]:
        try:
            found = await client.principals()
        except (NotFoundError, PermissionDeniedError):
            found = [me]
        if all(user.id != me.id for user in found):
            found = [*found, me]
        return tuple(
            Entry(u.id, u.name or u.login or f"user {u.id}", u.login)
            for u in sorted(found, key=lambda u: u.id)
        )

    async def statuses() -> tuple[Entry, ...]:
        return tuple(Entry(s.id, s.name, closed=s.is_closed) for s in await client.statuses())

    async def types() -> tuple[Entry, ...]:
        return tuple(Entry(t.id, t.name) for t in await client.types())

    listed = await asyncio.gather(projects(), users(), statuses(), types())
    return Directory(*listed, me=me.id)
