"""The vendored OpenProject OpenAPI files (tests/openapi/): example documents, schema validators.

``tests/openapi/`` holds verbatim copies of the upstream files the tests read (its README and
SOURCES.tsv name each file's origin); nothing is read from outside the repository.

The component files are OpenAPI 3.1 schemas (JSON Schema 2020-12) that point at each other
with relative ``$ref``s. They were copied selectively, so some ``$ref``s point at files that
do not exist (e.g. ``attachment_model.yml`` from ``attachments_model.yml``); such a dangling
target is resolved to the empty schema ``{}``, which accepts anything. Only the parts the
sandbox does not serve are affected (it never embeds attachments), and
``test_validators_reject_broken_bodies`` shows the validators still reject wrong shapes.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

OPENAPI_DIR = Path(__file__).resolve().parents[1] / "openapi"
SCHEMAS = OPENAPI_DIR / "schemas"  # components/schemas/*.yml
EXAMPLES = OPENAPI_DIR / "examples"  # paths, components/examples and components/responses

FORMATS = FormatChecker()
_DURATION = re.compile(
    r"^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$"
)


@FORMATS.checks("date-time", raises=ValueError)
def _is_datetime(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if "T" not in value or not (value.endswith("Z") or "+" in value[10:]):
        raise ValueError(f"{value!r} is not an RFC 3339 date-time")
    datetime.fromisoformat(value)
    return True


@FORMATS.checks("duration")
def _is_duration(value: object) -> bool:
    return not isinstance(value, str) or bool(_DURATION.match(value))


def _retrieve(uri: str) -> Resource[Any]:
    path = Path(urlparse(uri).path)
    if not path.is_file():
        return DRAFT202012.create_resource({})  # dangling on purpose: accept anything
    return DRAFT202012.create_resource(yaml.safe_load(path.read_text(encoding="utf-8")))


_REGISTRY: Registry[Any] = Registry(retrieve=_retrieve)  # type: ignore[call-arg]


def load_schema(name: str) -> dict[str, Any]:
    """The raw schema of one component file (its ``example`` is the documented payload)."""
    loaded: dict[str, Any] = yaml.safe_load((SCHEMAS / name).read_text(encoding="utf-8"))
    return loaded


def load_example(name: str) -> Any:
    """Parse one example document: a path file, a component example or a response component."""
    return yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))


def response_example(document: Mapping[str, Any], status: str = "200") -> Any:
    """The first ``examples.*.value`` of ``get.responses[status]`` of a path file."""
    content = document["get"]["responses"][status]["content"]["application/hal+json"]
    examples = content["examples"]
    return next(iter(examples.values()))["value"]


@cache
def validator(name: str) -> Draft202012Validator:
    """A validator for the component schema file *name* (e.g. ``work_package_model.yml``)."""
    return Draft202012Validator(
        {"$ref": (SCHEMAS / name).as_uri()}, registry=_REGISTRY, format_checker=FORMATS
    )


def relaxed_validator(
    name: str, property_name: str, extra_values: list[str]
) -> Draft202012Validator:
    """A validator for *name* whose enum *property_name* also admits *extra_values*."""
    schema = copy.deepcopy(load_schema(name))
    schema["properties"][property_name]["enum"] += extra_values
    uri = (SCHEMAS / name).as_uri()
    schema["$id"] = uri  # relative $refs inside resolve next to the original file
    return Draft202012Validator(schema, registry=_REGISTRY, format_checker=FORMATS)


def problems(validator_: Draft202012Validator, body: Any) -> list[str]:
    """Every validation error, as 'path: message' lines (empty when the body conforms)."""
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(root)'}: {error.message}"
        for error in validator_.iter_errors(body)
    ]
