"""The import contract: which part of opindex may import which, entered how, without cycles.

python scripts/check_layers.py [--root src/opindex]

A *unit* is a package of ``opindex`` (``opindex.search``) or a top-level module
(``opindex.config``). Three rules, each reported with the file and line that breaks it
(exit status 1), read from the source with ``ast`` (nothing is imported):

1. **Layers.** A unit imports only the units ``ALLOWED`` lists for it (a package's
   ``__main__`` module counts as the entry point ``__main__``); the table itself is
   acyclic, so the arrows point one way (docs/ARCHITECTURE.md, invariant 1).
2. **Entry.** Another package is entered through its ``__init__``: ``from opindex.search
   import Kind``, never ``from opindex.search.document import Kind`` (invariant 2).
3. **No cycles.** Inside a unit, no module imports one that imports it back, directly or
   through others (imports under ``if TYPE_CHECKING:`` included), and no module imports its
   own package's ``__init__``.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Units no other unit is built on; each may import only what is listed.
_BASE: dict[str, set[str]] = {
    "errors": set(),
    "moments": {"errors"},
    "secret": {"errors"},
    "config_table": {"errors"},
    "disclosure": {"errors"},
    "process_memory": set(),
    "lazy_names": set(),
    "child_process": {"errors"},
    "webhook_config": {"config_table", "errors", "secret"},
    "webhook_signature": set(),
    "kill_points": {"errors"},
}
# What the edges (command line, MCP server, daemon, webhooks, demo) may use besides the
# service: configuration, the request/response types and the small base units.
_EDGE = {"config", "envelope", "errors", "moments", "disclosure", "secret", "service"}

ALLOWED: dict[str, set[str]] = {
    **_BASE,
    "search": {"errors"},
    "extract": {"errors"},
    "openproject": {"errors", "lazy_names"},
    "state": {"errors", "kill_points", "moments"},
    "config": {"config_table", "errors", "secret", "state", "webhook_config"},
    "records": {"search"},
    "envelope": {"errors", "records", "search"},
    "record_builders": {"errors", "openproject", "records", "search"},
    "index": {"errors", "kill_points", "records", "search"},
    "live": {
        *{"envelope", "errors", "lazy_names", "openproject", "record_builders", "records"},
        "search",
    },
    "sync": {
        *{"config", "disclosure", "envelope", "errors", "extract", "index", "lazy_names"},
        "moments",
        "openproject",
        *{"record_builders", "records", "search", "state"},
    },
    "service": {
        *{"config", "disclosure", "envelope", "errors", "index", "lazy_names", "live"},
        "moments",
        *{"openproject", "record_builders", "records", "search", "state", "sync"},
    },
    "daemon": _EDGE,
    "webhooks": _EDGE | {"webhook_config", "webhook_signature"},
    "mcp": _EDGE | {"daemon", "lazy_names", "webhooks"},
    "sandbox": {"errors", "webhook_signature"},
    "demo": _EDGE | {"child_process", "mcp", "sandbox"},
    "cli": _EDGE | {"daemon", "demo", "mcp", "process_memory", "sandbox", "webhooks"},
    "__main__": {"cli"},
}
# A package's ``__main__`` module is a program's entry point, like ``opindex/__main__.py``:
# it may hand its arguments to the command line (``python -m opindex.sandbox``).
ENTRY_POINT = "__main__"


@dataclass(frozen=True)
class Import:
    """One ``import`` statement's target, where it stands."""

    module: str  # the importing module, dotted
    target: str  # the imported module, dotted
    path: Path
    line: int


def module_name(path: Path, root: Path) -> str:
    """``src/opindex/search/score.py`` → ``opindex.search.score``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def unit_of(module: str) -> str:
    """The unit a dotted module belongs to (``opindex`` itself is its own unit)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(path: Path, root: Path) -> Iterator[Import]:
    """Every opindex module ``path`` imports, at any depth of the file."""
    module = module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        targets: list[str] = []
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            source = _resolve(node, module, path.name == "__init__.py")
            # ``from opindex.search import score`` imports a submodule, not a name.
            package_dir = root.parent.joinpath(*source.split("."))
            for alias in node.names:
                if (package_dir / f"{alias.name}.py").exists() or (
                    package_dir / alias.name
                ).is_dir():
                    targets.append(f"{source}.{alias.name}")
                elif source not in targets:
                    targets.append(source)
        for target in targets:
            if target == "opindex" or target.startswith("opindex."):
                yield Import(module, target, path, node.lineno)


def check_layers(imports: list[Import]) -> list[str]:
    """Rules 1 and 2: arrows only along ``ALLOWED``, other packages entered by ``__init__``."""
    problems: list[str] = []
    for item in imports:
        source, target = unit_of(item.module), unit_of(item.target)
        if not target or source == target:
            continue
        if item.module.endswith("." + ENTRY_POINT):
            source = ENTRY_POINT
        where = f"{item.path}:{item.line}"
        if source not in ALLOWED:
            problems.append(f"{where}: unit opindex.{source} has no row in ALLOWED")
        elif target not in ALLOWED[source]:
            problems.append(f"{where}: opindex.{source} may not import opindex.{target}")
        elif item.target.count(".") > 1:
            problems.append(
                f"{where}: import {item.target} through its package: from opindex.{target} import …"
            )
    return problems


def check_cycles(imports: list[Import], packages: set[str]) -> list[str]:
    """Rule 3: no module cycle inside a unit, no submodule importing its own package."""
    problems: list[str] = []
    graph: dict[str, set[str]] = {}
    for item in imports:
        if unit_of(item.module) != unit_of(item.target):
            continue
        if item.target in packages and item.module.startswith(item.target + "."):
            problems.append(
                f"{item.path}:{item.line}: {item.module} imports its own package "
                f"{item.target}; import the sibling module instead"
            )
            continue
        graph.setdefault(item.module, set()).add(item.target)
    for cycle in _cycles(graph):
        problems.append("import cycle: " + " -> ".join([*cycle, cycle[0]]))
    return problems


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def check_table() -> list[str]:
    """The table itself must be acyclic, or rule 1 would allow a cycle between units."""
    graph = {unit: set(targets) for unit, targets in ALLOWED.items()}
    return ["ALLOWED has a cycle: " + " -> ".join(cycle) for cycle in _cycles(graph)]


def check(root: Path) -> list[str]:
    """Every problem under ``root`` (the ``opindex`` package directory)."""
    files = sorted(root.rglob("*.py"))
    imports = [item for path in files for item in imports_of(path, root)]
    packages = {module_name(path, root) for path in files if path.name == "__init__.py"}
    return check_table() + check_layers(imports) + check_cycles(imports, packages)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_root = Path(__file__).resolve().parent.parent / "src" / "opindex"
    parser.add_argument("--root", type=Path, default=default_root)
    args = parser.parse_args(argv)
    problems = check(args.root)
    for problem in problems:
        print(problem)
    print(f"import contract: {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
