"""Package names that load their module on first use (PEP 562), to keep start-up light."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for *package*: a name of *homes* is read from the module
    its entry names (relative to *package* when it starts with a dot), then kept in
    *namespace* (the package's globals) so the next lookup is direct."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = (
            importlib.import_module(home, package)
            if home.startswith(".")
            else (importlib.import_module(home))
        )
        value = getattr(module, name)
        namespace[name] = value
        return value

    return __getattr__
