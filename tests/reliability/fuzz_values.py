"""Hypothesis strategies for hostile tool arguments, driven by each tool's input schema.

Every argument is drawn either from what its schema allows (so calls get past the
argument check and exercise search, the index and the live path with nasty text) or
from values of any JSON type (wrong types, out-of-range numbers, unknown names).
"""

from __future__ import annotations

from typing import Any, Literal

from hypothesis import strategies as st

# Characters that have broken search engines, JSON layers and terminals before.
NASTY_CHARACTERS = (
    "\x00\x01\x07\x08\x1b\x7f\t\n\r\x0b\x0c"  # NUL, control characters, escapes
    ".*+?()[]{}|\\^$"  # regex metacharacters
    ':"~-!&|/\\<>=%_'  # query syntax of search engines and SQL LIKE
    "\u202e\u202d\u200f\u200e\u2066\u2069"  # bidi overrides and marks
    "\u0627\u0644\u0639\u0631\u0628\u064a\u0629\u05e2\u05d1\u05e8\u05d9\u05ea"  # Arabic, Hebrew
    "\u0301\u0308\u200b\u200d\ufeff\u00ad"  # combining marks, zero-width characters
    "😀👩‍💻🇩🇪🏳️‍🌈"  # emoji, ZWJ sequences, flags
    "ßİıǅﬁ𝔘𝔫𝔦"  # case-folding and normalization edge cases
    "aäeéoøcç 0123456789"
)
NASTY_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "\x00",
        "a\x00b",
        "(((((((((((",
        ".*" * 200,
        "a" * 999 + "\x00",
        "x " * 500,
        "\u202eevil\u202c",
        "AND OR NOT",
        'title:"x" AND -y~2^3',
        "%_%",
        "'; DROP TABLE runs; --",
        "😀" * 300,
        "ß" * 1000,
        "\ufeff" * 10,
    ]
)
SURROGATES: tuple[Literal["Cs"]] = ("Cs",)
"""Lone surrogates cannot be encoded as JSON text, so no client can send them."""
HUGE_STRINGS = st.sampled_from(["q" * 1001, "a b " * 600, "😀" * 1001, "x" * 100_000])


def hostile_text(max_size: int = 200) -> st.SearchStrategy[str]:
    """Short texts built from the nasty characters or from any valid Unicode."""
    return st.one_of(
        NASTY_STRINGS,
        st.text(alphabet=NASTY_CHARACTERS, max_size=max_size),
        st.text(alphabet=st.characters(exclude_categories=SURROGATES), max_size=max_size),
    )


def any_json() -> st.SearchStrategy[Any]:
    """Values of every JSON type, including out-of-range numbers and huge strings."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.sampled_from([0, -1, -(2**63), 2**63, 2**64 + 1, 10**100]),
        st.floats(allow_nan=False, allow_infinity=False),
        hostile_text(40),
        HUGE_STRINGS,
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(hostile_text(10), children, max_size=3),
        ),
        max_leaves=8,
    )


def _valid(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values the schema accepts (strings made of nasty text)."""
    if "anyOf" in schema:
        return st.one_of(*(_valid(option) for option in schema["anyOf"]))
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "string":
        limit = int(schema.get("maxLength", 1000))
        return st.one_of(hostile_text(min(limit, 200)), st.just("x" * limit))
    if kind == "integer":  # mostly small values: the ids and limits that exist
        low = int(schema.get("minimum", -(10**9)))
        high = int(schema.get("maximum", 10**12))
        small = st.integers(min_value=low, max_value=min(high, low + 20))
        return st.one_of(small, small, st.integers(min_value=low, max_value=high))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(_valid(schema.get("items", {})), max_size=5)
    return any_json()


def arguments_for(input_schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Argument objects for a tool: about half valid by the schema (with hostile text),
    the rest with wrong types, unknown names or missing required arguments."""
    properties: dict[str, Any] = input_schema.get("properties", {})
    required = set(input_schema.get("required", []))

    def objects(value: Any) -> st.SearchStrategy[dict[str, Any]]:
        fields = {name: value(schema) for name, schema in properties.items()}
        return st.fixed_dictionaries(
            {name: field for name, field in fields.items() if name in required},
            optional={name: field for name, field in fields.items() if name not in required},
        )

    valid = objects(_valid)
    mixed = objects(lambda schema: st.one_of(_valid(schema), any_json()))
    with_unknown = st.builds(
        lambda base, extra: {**base, **extra},
        valid,
        st.dictionaries(hostile_text(12), any_json(), min_size=1, max_size=2),
    )
    dropped_required = st.dictionaries(st.sampled_from(sorted(properties) or ["x"]), any_json())
    return st.one_of(valid, valid, mixed, with_unknown, dropped_required)
