"""Credentials held so that no repr, str or log line can reveal them."""

from __future__ import annotations

import hmac


class Secret:
    """A credential whose repr and str never reveal it; call :meth:`reveal` to use it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret value, for the one place that must send it (the HTTP client)."""
        return self._value

    def matches(self, candidate: str) -> bool:
        """Constant-time comparison with a credential presented by a caller."""
        return hmac.compare_digest(self._value.encode(), candidate.encode())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and self.matches(other._value)

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __repr__(self) -> str:
        return "Secret('**********')"

    def __str__(self) -> str:
        return "**********"
