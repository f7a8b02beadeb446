"""Validated reads of TOML tables: typed getters whose errors name the full key."""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from opindex.errors import ConfigError


class ConfigTable:
    """A TOML table under validation: typed getters whose errors name the full key."""

    def __init__(self, data: Mapping[str, object], path: str, where: str) -> None:
        self.data = data
        self.path = path
        self.where = where

    def key(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.where}: {self.key(key)}: {problem}")

    def reject_unknown(self, allowed: set[str]) -> None:
        unknown = sorted(set(self.data) - allowed)
        if not unknown:
            return
        hints = [with_suggestion(key, allowed) for key in unknown]
        raise ConfigError(
            f"{self.where}: unknown key {', '.join(hints)} in {self.path or 'top level'};"
            f" known keys: {', '.join(sorted(allowed))}"
        )

    def table(self, key: str) -> ConfigTable:
        value = self.data[key]
        if not isinstance(value, dict):
            raise self.error(key, "must be a table")
        return ConfigTable(value, self.key(key), self.where)

    def string(self, key: str, *, required: bool = True) -> str | None:
        value = self.data.get(key)
        if value is None:
            if required:
                raise self.error(key, "missing (required)")
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"must be a non-empty string, got {type(value).__name__}")
        if has_control_characters(value):
            raise self.error(key, "must not contain control characters (NUL, newline, ...)")
        return value.strip()

    def integer(self, key: str, default: int, *, minimum: int, maximum: int | None = None) -> int:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be an integer, got {type(value).__name__}")
        if value < minimum or (maximum is not None and value > maximum):
            bound = f"between {minimum} and {maximum}" if maximum else f"at least {minimum}"
            raise self.error(key, f"must be {bound}, got {value}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"must be true or false, got {type(value).__name__}")
        return value


def has_control_characters(text: str) -> bool:
    """True if ``text`` holds a control character: never part of a path, URL, name or key
    (and a NUL makes every file-system call fail)."""
    return any(ord(char) < 0x20 or ord(char) == 0x7F for char in text)


def with_suggestion(key: str, allowed: set[str]) -> str:
    close = difflib.get_close_matches(key, allowed, n=1)
    return f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key)
