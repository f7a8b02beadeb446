"""The vendored OpenAPI files under tests/openapi/ are exactly those SOURCES.tsv accounts for."""

from __future__ import annotations

import csv

from tests.support.openapi import EXAMPLES, OPENAPI_DIR, SCHEMAS, load_schema


def _sources() -> dict[str, str]:
    with (OPENAPI_DIR / "SOURCES.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return {row["path_here"]: row["upstream_commit"] for row in rows}


def test_every_vendored_file_has_a_source_row_and_every_row_a_file() -> None:
    on_disk = {
        path.relative_to(OPENAPI_DIR).as_posix()
        for folder in (SCHEMAS, EXAMPLES)
        for path in folder.glob("*.yml")
    }
    sources = _sources()
    assert on_disk == set(sources)
    assert all(len(commit) == 40 for commit in sources.values())


def test_every_schema_ref_but_the_documented_one_resolves_to_a_vendored_file() -> None:
    dangling = set()
    for path in SCHEMAS.glob("*.yml"):
        for target in _refs(load_schema(path.name)):
            if not (SCHEMAS / target).is_file():
                dangling.add((path.name, target))
    assert dangling == {("attachments_model.yml", "attachment_model.yml")}


def _refs(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"].removeprefix("./")] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []
